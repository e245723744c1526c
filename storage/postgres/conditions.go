package postgres

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
)

// conditionSQL compiles conditions into a boolean SQL expression over the
// item_revisions row alias r, with the values appended to args as folded
// LIKE patterns. Conditions read left to right, each joining everything
// before it: a OR b AND c is (a OR b) AND c, exactly as dynamo.Match.
// The fields match their trigram-indexed folded copies, so that
// '%value%' patterns use the GIN indexes.
func conditionSQL(conds []dynamo.Condition, args []any) (string, []any, error) {
	return compileConditions(conds, args, false)
}

// genericConditionSQL is conditionSQL with each value read through a
// subquery, (SELECT $n::text), which the planner cannot see into: every
// plan of the statement is then the same whatever the values, so that
// PostgreSQL keeps one generic plan of a prepared statement (pgx prepares
// every query) instead of planning each query for its values, which was
// about a sixth of the backend's CPU for a one-keyword archive query on
// 1 M items. The trigram indexes still serve the LIKE: an index scan
// reads such a value when it starts.
func genericConditionSQL(conds []dynamo.Condition, args []any) (string, []any, error) {
	return compileConditions(conds, args, true)
}

func compileConditions(conds []dynamo.Condition, args []any, opaque bool) (string, []any, error) {
	if len(conds) == 0 {
		return "true", args, nil
	}
	if err := dynamo.ValidateConditions(conds); err != nil {
		return "", nil, err
	}
	var expr string
	for i, c := range conds {
		column := foldedColumns[c.Field]
		value := dynamo.FoldCase(c.Value) // valid UTF-8: folding replaces invalid bytes
		var match string
		if strings.IndexByte(value, 0) >= 0 {
			// Stored text never holds NUL (RecordPoll refuses it), and
			// PostgreSQL cannot take it as a parameter.
			match = "false"
		} else {
			args = append(args, "%"+escapeLike(value)+"%")
			match = column + " LIKE $" + strconv.Itoa(len(args))
			if opaque {
				match = column + " LIKE (SELECT $" + strconv.Itoa(len(args)) + "::text)"
			}
		}
		switch {
		case i == 0:
			expr = match
		case c.Or:
			expr = "(" + expr + " OR " + match + ")"
		default:
			expr = "(" + expr + " AND " + match + ")"
		}
	}
	return expr, args, nil
}

// foldedColumns are the expressions the trigram indexes are built on: the
// folded copy, NULL where lowering the field's ASCII letters (lower under
// the "C" collation, the same on every server) folds it already
// (archive.Folded).
var foldedColumns = map[dynamo.Field]string{
	dynamo.FieldTitle:       `coalesce(r.title_f, lower(r.title COLLATE "C"))`,
	dynamo.FieldLink:        `coalesce(r.link_f, lower(r.link COLLATE "C"))`,
	dynamo.FieldDescription: `coalesce(r.text_f, lower(r.plain_text COLLATE "C"))`,
}

// escapeLike quotes LIKE's wildcards and its escape character, so that the
// value matches literally.
var escapeLike = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace

// indexable reports whether the trigram indexes can select the items that
// conds match: every value has at least three characters, the length of a
// trigram. Shorter values match too many items for an index to help.
func indexable(conds []dynamo.Condition) bool {
	for _, c := range conds {
		if utf8.RuneCountInString(dynamo.FoldCase(c.Value)) < 3 {
			return false
		}
	}
	return len(conds) > 0
}

// archiveOrder is the archive's ORDER BY over revisions r. When the
// conditions are indexable it orders by an expression that no index
// provides, so that PostgreSQL selects the matching items through the
// trigram indexes and sorts them, rather than walking the archive in date
// order and filtering: its estimate of how many items a LIKE pattern
// matches is a fixed guess, and for a rare word that walk reads most of a
// large archive. Otherwise the walk in date order is the fast plan, and
// stops as soon as the limit is reached.
func archiveOrder(conds []dynamo.Condition, sourceOrder bool) string {
	firstSeen := "r.first_seen"
	if indexable(conds) {
		firstSeen = "(r.first_seen + interval '0 s')"
	}
	if sourceOrder {
		return firstSeen + " DESC, r.source_id, r.first_pos"
	}
	return firstSeen + " DESC, r.first_pos"
}

// windowItems is how many of the newest items a windowed archive query
// asks first, per item it answers: a condition that one item in a thousand
// matches fills the window on average.
const windowItems = 1000

// windowed reports whether an archive query of conditions conds, limited
// to max items, asks the newest items first (archiveQuery). That pays when
// the conditions match many items, of which the query would otherwise read
// every one only to keep the newest max: a single condition, or conditions
// joined by or. Conditions joined by and match few items, which the trigram
// indexes find together more cheaply than twice, window and rest.
func windowed(conds []dynamo.Condition, max int) bool {
	if max <= 0 || !indexable(conds) {
		return false
	}
	for _, c := range conds[1:] {
		if !c.Or {
			return false
		}
	}
	return true
}
