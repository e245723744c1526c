package dynamo_test

import (
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

func TestMatchReadsLeftToRight(t *testing.T) {
	it := &dynamo.Item{Title: "Straße in MÜNCHEN", Link: "http://x/a", Text: "plain text body"}
	title := func(v string) dynamo.Condition { return dynamo.Condition{Field: dynamo.FieldTitle, Value: v} }
	desc := func(v string) dynamo.Condition { return dynamo.Condition{Field: dynamo.FieldDescription, Value: v} }
	or := func(c dynamo.Condition) dynamo.Condition { c.Or = true; return c }
	tests := []struct {
		name  string
		conds []dynamo.Condition
		want  bool
	}{
		{"none", nil, true},
		{"unicode case", []dynamo.Condition{title("münchen")}, true},
		{"and both", []dynamo.Condition{title("strasse"), desc("body")}, false},
		{"and", []dynamo.Condition{title("straße"), desc("body")}, true},
		{"or", []dynamo.Condition{title("nope"), or(desc("body"))}, true},
		// (false OR true) AND false = false, where right-to-left grouping would give true.
		{"left to right", []dynamo.Condition{title("nope"), or(desc("body")), title("absent")}, false},
		// (true AND false) OR true = true.
		{"or after and", []dynamo.Condition{title("stra"), desc("absent"), or(title("mün"))}, true},
		{"link", []dynamo.Condition{{Field: dynamo.FieldLink, Value: "X/A"}}, true},
	}
	for _, tt := range tests {
		if got := dynamo.Match(tt.conds, it); got != tt.want {
			t.Errorf("%s: Match = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseField(t *testing.T) {
	for in, want := range map[string]dynamo.Field{"title": dynamo.FieldTitle, "link": dynamo.FieldLink, "desc": dynamo.FieldDescription, "description": dynamo.FieldDescription} {
		if got, err := dynamo.ParseField(in); err != nil || got != want {
			t.Errorf("ParseField(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := dynamo.ParseField("author"); err == nil {
		t.Error("ParseField(author) succeeded")
	}
}
