package dynamo

import (
	"fmt"
	"strings"
)

// Field is an item field that keyword conditions match.
type Field string

// The fields conditions can match. Description conditions match the
// description's plain text (Item.Text), not its markup.
const (
	FieldTitle       Field = "title"
	FieldLink        Field = "link"
	FieldDescription Field = "description"
)

// ParseField reads a field name; "desc" is an alias of "description".
func ParseField(s string) (Field, error) {
	switch s {
	case "title":
		return FieldTitle, nil
	case "link":
		return FieldLink, nil
	case "description", "desc":
		return FieldDescription, nil
	}
	return "", fmt.Errorf("%w field %q: want title, link or description", ErrInvalid, s)
}

// Condition is a case-insensitive substring match on one field. Conditions
// are read left to right: each joins the result of those before it with AND,
// or with OR when Or is set (SPEC §5, op=and|or).
type Condition struct {
	Or    bool
	Field Field
	Value string
}

// Match reports whether the item satisfies the conditions, read left to right.
// No conditions match every item. It is the reference semantics that the
// stores' SQL must agree with.
func Match(conds []Condition, it *Item) bool {
	if len(conds) == 0 {
		return true
	}
	result := conds[0].matches(it)
	for _, c := range conds[1:] {
		if c.Or {
			result = result || c.matches(it)
		} else {
			result = result && c.matches(it)
		}
	}
	return result
}

func (c Condition) matches(it *Item) bool {
	var text string
	switch c.Field {
	case FieldTitle:
		text = it.Title
	case FieldLink:
		text = it.Link
	case FieldDescription:
		text = it.Text
	}
	return strings.Contains(FoldCase(text), FoldCase(c.Value))
}

// FoldCase maps s to the form in which case-insensitive matching compares
// strings: Unicode lower case.
func FoldCase(s string) string { return strings.ToLower(s) }
