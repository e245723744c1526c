package api_test

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// TestReadErrors checks every client error of the read URLs: its status,
// the parameter its message names, and that the body comes in the format
// asked for.
func TestReadErrors(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		long := strings.Repeat("x", 5000)
		cases := []struct {
			name, path string
			status     int
			param      string // the parameter the message must name; "" for 404s
			mention    string // a phrase the message must hold
		}{
			{"max not a number", "/resources/news?max=ten", 400, "max", "max must be an integer from 1 to 10000"},
			{"max zero", "/resources/news?max=0", 400, "max", "from 1 to 10000"},
			{"max too large", "/resources/news?max=10001", 400, "max", "from 1 to 10000"},
			{"max negative", "/resources/news?max=-3", 400, "max", "from 1 to 10000"},
			{"max twice", "/resources/news?max=3&max=4", 400, "max", "at most once"},
			{"index not a number", "/resources/news?index=last", 400, "index", "index must be an integer"},
			{"index zero", "/resources/news?index=0", 400, "index", "index must be an integer"},
			{"index huge", "/resources/news?index=99999999999999999999", 400, "index", "index must be an integer"},
			{"type unknown", "/resources/news?type=rss3", 400, "type", "rss1, rss2, atom, json"},
			{"op unknown", "/resources/news?title=a&op=xor&title=b", 400, "op", "op must be and or or"},
			{"op trailing", "/resources/news?title=a&desc=b&op=or", 400, "op", "followed by no condition"},
			{"known parameter of another URL", "/resources/news?category=a", 400, "category", "accepts index, max, title"},
			{"parameter of another URL", "/resources?max=3", 400, "max", "/resources accepts type"},
			{"aggregate index", "/aggregate?index=1", 400, "index", "/aggregate accepts"},
			// A grammar name in capitals is a typo, not a newsletter's tag:
			// ignored, it would answer as if no condition were given.
			{"name in capitals", "/resources/news?TITLE=snow", 400, "TITLE", "parameter names are lower case: title, not TITLE"},
			{"name capitalised", "/aggregate?Max=3", 400, "Max", "parameter names are lower case: max, not Max"},
			{"dups unknown", "/aggregate?dups=all", 400, "dups", "dups must be include"},
			{"condition too long", "/resources/news?title=" + strings.Repeat("y", 300), 400, "title", "at most 256 bytes"},
			{"too many conditions", "/resources/news?" + strings.Repeat("title=a&", 33), 400, "title", "at most 32 conditions"},
			{"xpath empty", "/resources/news?xpath=", 400, "xpath", "non-empty"},
			{"xpath syntax", "/resources/news?xpath=%2F%2Fitem%5B", 400, "xpath", "not a valid XPath"},
			// The XPath library compiles what comes before a token it does not
			// expect: a stray closer would run silently as the rest.
			{"xpath stray bracket", "/resources/news?xpath=%2F%2Fitem%5B1%5D%5D", 400, "xpath", "the ] at byte 10 closes no ["},
			{"xpath stray parenthesis", "/resources/news?xpath=%2F%2Fitem)", 400, "xpath", "the ) at byte 7 closes no ("},
			{"xpath unclosed bracket", "/resources/news?xpath=%2F%2Fitem%5Btitle%3D", 400, "xpath", "the [ at byte 7 is never closed"},
			{"xpath unclosed string", "/resources/news?xpath=%2F%2Fitem%5Bcontains(title%2C'a)%5D", 400, "xpath", "the string opened by ' at byte 23 is never closed"},
			{"xpath step missing", "/resources/news?xpath=%2F%2F%2F", 400, "xpath", "a step has no name, * or node test"},
			{"xpath unknown function", "/resources/news?xpath=nope()", 400, "xpath", "not a valid XPath"},
			{"xpath not nodes", "/resources/news?xpath=count(%2F%2Fitem)", 400, "xpath", "must select nodes"},
			{"xpath too long", "/resources/news?xpath=" + strings.Repeat("a", 1100), 400, "xpath", "at most 1024 bytes"},
			{"bad escape", "/resources/news?title=%zz", 400, "title", "malformed escape"},
			{"query too long", "/resources/news?title=" + long, 400, "query", "at most 4096 bytes"},
			{"too many parameters", "/resources/news?" + strings.Repeat("op=and&", 65), 400, "query", "at most 64 parameters"},
			{"category too long", "/aggregate?category=" + strings.Repeat("c", 300), 400, "category", "at most 256 bytes"},
			{"unknown collection", "/resources/nope", 404, "", `no collection "nope"`},
			{"unknown version", "/resources/news?index=3", 404, "", "has no version 3: it has 2"},
			{"unknown version with xpath", "/resources/news?index=9&xpath=%2F%2Fitem", 404, "", "has no version 9"},
			{"unknown URL", "/feeds/news", 404, "", "no such URL"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// Plain text when no type is asked for.
				r := e.get(tc.path).must(t, tc.status, tc.path)
				if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
					t.Errorf("Content-Type %q, want plain text", ct)
				}
				if !strings.Contains(string(r.body), tc.mention) {
					t.Errorf("message %q does not say %q", r.body, tc.mention)
				}
				if tc.param != "" && !strings.Contains(string(r.body), tc.param) {
					t.Errorf("message %q does not name the parameter %q", r.body, tc.param)
				}
				if strings.Contains(tc.path, "type=") || strings.HasPrefix(tc.path, "/feeds") || tc.param == "query" {
					return
				}
				sep := "?"
				if strings.Contains(tc.path, "?") {
					sep = "&"
				}
				checkJSONError(t, e.get(tc.path+sep+"type=json").must(t, tc.status, "json"), tc.param, tc.mention)
				checkXMLError(t, e.get(tc.path+sep+"type=atom").must(t, tc.status, "atom"), tc.param, tc.mention)
			})
		}
	})
}

func checkJSONError(t *testing.T, r response, param, mention string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("type=json error: Content-Type %q", ct)
	}
	var body struct {
		Status    int    `json:"status"`
		Error     string `json:"error"`
		Parameter string `json:"parameter"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("type=json error is not JSON: %v\n%s", err, r.body)
	}
	if body.Status != r.status || body.Parameter != param || !strings.Contains(body.Error, mention) {
		t.Errorf("type=json error %+v, want status %d, parameter %q, a message saying %q", body, r.status, param, mention)
	}
}

func checkXMLError(t *testing.T, r response, param, mention string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/xml; charset=utf-8" {
		t.Errorf("type=atom error: Content-Type %q", ct)
	}
	var body struct {
		Status    int    `xml:"status"`
		Message   string `xml:"message"`
		Parameter string `xml:"parameter"`
	}
	if err := xml.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("type=atom error is not XML: %v\n%s", err, r.body)
	}
	if body.Status != r.status || body.Parameter != param || !strings.Contains(body.Message, mention) {
		t.Errorf("type=atom error %+v, want status %d, parameter %q, a message saying %q", body, r.status, param, mention)
	}
}

// TestHostileXMLErrorStaysWellFormed sends a parameter holding characters
// XML cannot carry; the XML error quoting it must still parse.
func TestHostileXMLErrorStaysWellFormed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	r := e.get("/resources/x?type=rss2&max=%01%FF%3C%5D%5D%3E").must(t, http.StatusBadRequest, "hostile max")
	var body struct {
		Message string `xml:"message"`
	}
	if err := xml.Unmarshal(r.body, &body); err != nil || !strings.Contains(body.Message, "max must be") {
		t.Errorf("XML error %q: %v", r.body, err)
	}
}
