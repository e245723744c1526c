package api_test

import (
	"bytes"
	"testing"
)

// TestJSONAnswersQuoteAsWritten: the admin API's answers carry <, > and &
// as written, so that a reader of curl's output sees a page warning as
// "<item:title> is never closed", not "\u003citem:title\u003e …" (the
// escaping encoding/json does by default, which guards HTML contexts JSON
// answers never reach: they are application/json with nosniff). Checked on
// a source, the listing (written item by item), the wrap answer with its
// warnings and an error.
func TestJSONAnswersQuoteAsWritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	page := []byte("<html><body>\n<!-- <item:title index=\"1\"> -->Council & budget\n<!-- <item:link index=\"1\"> -->http://example.org/a?x=1&y=2<!-- </item:link> -->\n</body></html>\n")
	e.origin.set("/town.html", page)
	e.addSource("town", "/town.html", `"title":"Council & <Budget>"`)
	for _, tc := range []struct {
		what, method, path string
		body               []byte
		status             int
		want               []string
	}{
		{"a source", "GET", "/api/sources/town", nil, 200, []string{`"Council & <Budget>"`}},
		{"the sources listing", "GET", "/api/sources", nil, 200, []string{`"Council & <Budget>"`}},
		{"a wrapped page", "POST", "/api/wrap?base=http://example.org/&type=rss2", page, 200, []string{`"<item:title> is never closed`, `<rss `, `x=1&y=2`}},
		{"an error", "PATCH", "/api/sources/town", []byte(`{"interval":"<1h>"}`), 400, []string{`<1h>`}},
	} {
		ctype := "application/json"
		if tc.method == "POST" { // the page to wrap
			ctype = "text/html"
		}
		r := e.do(tc.method, tc.path, tc.body, "Content-Type", ctype).must(t, tc.status, tc.what)
		for _, want := range tc.want {
			if !bytes.Contains(r.body, []byte(want)) {
				t.Errorf("%s: the answer lacks %s as written\n%.1500s", tc.what, want, r.body)
			}
		}
		if bytes.Contains(r.body, []byte(`\u003c`)) || bytes.Contains(r.body, []byte(`\u0026`)) {
			t.Errorf("%s: the answer escapes < or &\n%.1500s", tc.what, r.body)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", tc.what, r.header.Get("X-Content-Type-Options"))
		}
	}
}
