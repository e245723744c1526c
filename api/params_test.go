package api

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
)

func TestParseQueryConditions(t *testing.T) {
	and := func(f dynamo.Field, v string) dynamo.Condition { return dynamo.Condition{Field: f, Value: v} }
	or := func(f dynamo.Field, v string) dynamo.Condition { return dynamo.Condition{Or: true, Field: f, Value: v} }
	cases := []struct {
		raw  string
		want []dynamo.Condition
	}{
		{"", nil},
		{"title=a", []dynamo.Condition{and("title", "a")}},
		{"title=a&desc=b", []dynamo.Condition{and("title", "a"), and("description", "b")}},
		{"title=a&op=or&desc=b&link=c", []dynamo.Condition{and("title", "a"), or("description", "b"), or("link", "c")}},
		{"title=a&op=or&desc=b&op=and&link=c", []dynamo.Condition{and("title", "a"), or("description", "b"), and("link", "c")}},
		{"op=or&title=a&title=b", []dynamo.Condition{and("title", "a"), or("title", "b")}},
		{"op=OR&title=a&op=or&title=b", []dynamo.Condition{and("title", "a"), or("title", "b")}},
		{"title=&op=or&desc=x", []dynamo.Condition{and("description", "x")}},
		{"title=caf%C3%A9+au+lait&description=%26", []dynamo.Condition{and("title", "café au lait"), and("description", "&")}},
		{"&&title=a&&", []dynamo.Condition{and("title", "a")}},
	}
	for _, tc := range cases {
		q, err := parseQuery(tc.raw, resourceEndpoint)
		if err != nil {
			t.Errorf("%q: %v", tc.raw, err)
			continue
		}
		if !reflect.DeepEqual(q.Conditions, tc.want) {
			t.Errorf("%q: conditions %+v, want %+v", tc.raw, q.Conditions, tc.want)
		}
	}
}

func TestCanonicalQuery(t *testing.T) {
	cases := []struct{ raw, want string }{
		{"type=rss2", ""},
		{"type=ATOM&max=010&index=2", "index=2&max=10&type=atom"},
		{"desc=x&op=or&title=y&type=json", "description=x&op=or&title=y&type=json"},
		{"op=or&title=a", "title=a"},
		{"title=a+b&xpath=%2F%2Fitem", "xpath=%2F%2Fitem&title=a+b"},
	}
	for _, tc := range cases {
		q, err := parseQuery(tc.raw, resourceEndpoint)
		if err != nil {
			t.Fatalf("%q: %v", tc.raw, err)
		}
		if got := q.canonical(); got != tc.want {
			t.Errorf("canonical(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// FuzzParseQuery checks that any query string either parses or is refused
// with a parameter error, never a panic; that what parses stays within the
// bounds; and that its canonical form parses back to the same query.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{
		"", "max=10", "index=1&type=atom", "title=a&op=or&desc=b&op=and&link=c",
		"xpath=%2F%2Fitem%5Bcontains(title%2C%27x%27)%5D", "max=0", "op=or", "title=%zz",
		"category=local&dups=include", "type=json&max=10000", "xpath=%2F%2F*%5B", "a=b=c&&=",
		"title=caf%C3%A9&title=%FF", strings.Repeat("title=x&", 40),
	} {
		f.Add(seed, 0)
		f.Add(seed, 2)
	}
	endpoints := []dynamo.QuerySyntax{collectionsEndpoint, resourceEndpoint, aggregateEndpoint}
	f.Fuzz(func(t *testing.T, raw string, which int) {
		e := endpoints[(which%3+3)%3]
		q, err := parseQuery(raw, e)
		if err != nil {
			var pe *dynamo.ParamError
			if !errors.As(err, &pe) || pe.Msg == "" || pe.Param == "" {
				t.Fatalf("%q: error %v is not a parameter error naming its parameter", raw, err)
			}
			return
		}
		if q.Max < 0 || q.Max > dynamo.MaxItems || q.Index < 0 || len(q.Conditions) > dynamo.MaxConditions || len(q.XPath) > dynamo.MaxXPathLength {
			t.Fatalf("%q: out of bounds: %+v", raw, q)
		}
		for i, c := range q.Conditions {
			if c.Value == "" || (i == 0 && c.Or) {
				t.Fatalf("%q: condition %d is %+v", raw, i, c)
			}
		}
		canon := q.canonical()
		back, err := parseQuery(canon, e)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, raw, err)
		}
		if back.canonical() != canon || !reflect.DeepEqual(back.Conditions, q.Conditions) || back.Max != q.Max ||
			back.Index != q.Index || back.XPath != q.XPath || back.Format != q.Format || back.Category != q.Category || back.Dups != q.Dups {
			t.Fatalf("%q → %q → %+v, want %+v", raw, canon, back, q)
		}
		if utf8.ValidString(raw) && !utf8.ValidString(canon) {
			t.Fatalf("canonical form of valid UTF-8 %q is not: %q", raw, canon)
		}
	})
}
