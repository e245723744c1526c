package sqlite

import (
	"fmt"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// maxConditions bounds a query's conditions: each nests the expression one
// level deeper, and SQLite refuses expressions deeper than 1000.
const maxConditions = 500

// conditionColumns are the folded text that each field's conditions
// match, on the revision alias r: the folded copy, NULL where SQLite's
// lower(), which lowers ASCII letters only, folds the field already
// (archive.Folded).
var conditionColumns = map[dynamo.Field]string{
	dynamo.FieldTitle:       "coalesce(r.title_f, lower(r.title))",
	dynamo.FieldLink:        "coalesce(r.link_f, lower(r.link))",
	dynamo.FieldDescription: "coalesce(r.text_f, lower(r.plain_text))",
}

// conditionSQL compiles conditions into an SQL expression on the revision
// alias r and its arguments. It reads them left to right exactly like
// dynamo.Match: a, or b, and c is ((a OR b) AND c). Values are folded with
// dynamo.FoldCase, as the columns were, and found with instr(), which
// compares characters literally: no pattern characters to escape, and
// Unicode case handled by the folding rather than by SQLite's ASCII-only
// LIKE.
func conditionSQL(conds []dynamo.Condition) (string, []any, error) {
	if len(conds) == 0 {
		return "1", nil, nil
	}
	if len(conds) > maxConditions {
		return "", nil, fmt.Errorf("%w: %d conditions, at most %d", dynamo.ErrInvalid, len(conds), maxConditions)
	}
	if err := dynamo.ValidateConditions(conds); err != nil {
		return "", nil, err
	}
	var sb strings.Builder
	args := make([]any, 0, len(conds))
	sb.WriteString(strings.Repeat("(", len(conds)-1))
	for i, c := range conds {
		col := conditionColumns[c.Field]
		switch {
		case i == 0:
		case c.Or:
			sb.WriteString(" OR ")
		default:
			sb.WriteString(" AND ")
		}
		sb.WriteString("instr(" + col + ", ?) > 0")
		if i > 0 {
			sb.WriteString(")")
		}
		args = append(args, dynamo.FoldCase(c.Value))
	}
	return sb.String(), args, nil
}
