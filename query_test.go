package dynamo_test

import (
	"errors"
	"reflect"
	"strings"
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

func TestQuerySyntax(t *testing.T) {
	syntax := dynamo.QuerySyntax{Name: "/x", Params: []string{"index", "max", "title", "link", "description", "desc", "op", "category", "dups", "type", "xpath"}}
	title := func(v string, or bool) dynamo.Condition {
		return dynamo.Condition{Field: dynamo.FieldTitle, Value: v, Or: or}
	}
	q, err := syntax.Parse("title=+a+&op=OR&desc=b&&op=and&link=&title=c&max=07&index=2&dups=include&category=x&type=atom&xpath=%2F%2Fitem")
	if err != nil {
		t.Fatal(err)
	}
	want := []dynamo.Condition{title("a", false), {Field: dynamo.FieldDescription, Value: "b", Or: true}, title("c", false)}
	if !reflect.DeepEqual(q.Conditions, want) || q.Max != 7 || q.Index != 2 || !q.Dups || q.Category != "x" || q.Type != "atom" || q.XPath != "//item" {
		t.Errorf("parsed %+v", q)
	}
	if got := dynamo.EncodeQuery(dynamo.ConditionParams(q.Conditions, "desc")); got != "title=a&op=or&desc=b&op=and&title=c" {
		t.Errorf("conditions written as %q", got)
	}
	if q.Limit() != 7 || (&dynamo.Query{}).Limit() != dynamo.DefaultItems {
		t.Errorf("limits %d, %d", q.Limit(), (&dynamo.Query{}).Limit())
	}
	ignoring, err := syntax.Parse("utm_source=x&title=a&_=1&utm_source=y&fbclid=z")
	if err != nil || len(ignoring.Conditions) != 1 || !reflect.DeepEqual(ignoring.Ignored, []string{"utm_source", "_", "fbclid"}) {
		t.Errorf("unknown names: %+v, %v; want them ignored and listed once each", ignoring, err)
	}
	narrow := dynamo.QuerySyntax{Name: "/y", Params: []string{"type"}}
	if _, err := narrow.Parse("max=3"); err == nil || !strings.Contains(err.Error(), "/y accepts type") {
		t.Errorf("a known name /y does not accept: %v, want an error saying what /y accepts", err)
	}
	for raw, param := range map[string]string{
		"max=0":                                "max",
		"max=1&max=2":                          "max",
		"index=x":                              "index",
		"op=xor":                               "op",
		"title=a&op=or":                        "op",
		"dups=all":                             "dups",
		"title=%zz":                            "title",
		"%zz=a":                                "query",
		"=a":                                   "query",
		"xpath=":                               "xpath",
		strings.Repeat("a", 4097):              "query",
		strings.Repeat("&", 64):                "query",
		strings.Repeat("title=a&", 33):         "title",
		"title=" + strings.Repeat("a", 257):    "title",
		"category=" + strings.Repeat("c", 257): "category",
		"xpath=" + strings.Repeat("a", 1025):   "xpath",
	} {
		_, err := syntax.Parse(raw)
		var qe *dynamo.ParamError
		if !errors.As(err, &qe) || qe.Param != param || !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("Parse(%.40q) = %v, want a ParamError about %s", raw, err, param)
		}
	}
}

func TestValidateConditions(t *testing.T) {
	ok := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "a"}, {Or: true, Field: dynamo.FieldDescription, Value: ""}}
	if err := dynamo.ValidateConditions(ok); err != nil {
		t.Errorf("valid conditions: %v", err)
	}
	for _, f := range []dynamo.Field{"author", "", "desc"} {
		if err := dynamo.ValidateConditions([]dynamo.Condition{{Field: f, Value: "x"}}); !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("field %q: %v, want ErrInvalid", f, err)
		}
	}
}
