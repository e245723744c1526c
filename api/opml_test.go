package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/sources"
)

// opmlHeader is the Content-Type an import is sent with.
var opmlHeader = []string{"Content-Type", "text/x-opml"}

// importAnswer is POST /api/sources/import's answer.
type importAnswer struct {
	Registered, Skipped, Failed int
	Entries                     []sources.ImportResult
}

func (e *env) importOPML(doc string, header ...string) (response, importAnswer) {
	e.t.Helper()
	r := e.do(http.MethodPost, "/api/sources/import", []byte(doc), append(append([]string{}, opmlHeader...), header...)...)
	var ans importAnswer
	if r.status == http.StatusOK {
		if err := json.Unmarshal(r.body, &ans); err != nil {
			e.t.Fatalf("import answer: %v\n%s", err, r.body)
		}
	}
	return r, ans
}

func (e *env) sources() []dynamo.Source {
	e.t.Helper()
	var list struct{ Sources []dynamo.Source }
	e.getJSON("/api/sources", &list)
	return list.Sources
}

// config is the part of a source that its registration sets and OPML
// carries: everything but its state, summary and creation time.
func config(s dynamo.Source) dynamo.Source {
	return dynamo.Source{
		ID: s.ID, URL: s.URL, Title: s.Title, Kind: s.Kind, Interval: s.Interval, Policy: s.Policy, Category: s.Category,
		TitlePrefix: s.TitlePrefix, Subscribers: s.Subscribers, Timezone: s.Timezone, Paused: s.Paused,
	}
}

func configs(sources []dynamo.Source) []dynamo.Source {
	out := make([]dynamo.Source, len(sources))
	for i, s := range sources {
		out[i] = config(s)
	}
	return out
}

// listparserFeed is what Debian's python3-listparser, an OPML reader we
// did not write, reads of one subscription.
type listparserFeed struct {
	URL        string     `json:"url"`
	Title      string     `json:"title"`
	Categories [][]string `json:"categories"`
}

const listparserScript = `
import json, sys
import listparser
d = listparser.parse(sys.argv[1])
json.dump({"bozo": bool(d.bozo), "error": str(d.get("bozo_exception", "")), "version": d.version,
           "feeds": [{"url": f.url, "title": f.title, "categories": f.categories} for f in d.feeds]}, sys.stdout)
`

// readWithListparser parses doc with python3-listparser (scripts/test.sh
// installs it) and fails the test if it finds the document malformed.
func readWithListparser(t *testing.T, doc []byte) []listparserFeed {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sources.opml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", listparserScript, file).Output()
	if err != nil {
		t.Fatalf("python3-listparser (install it: apt-get install python3-listparser): %v\n%s", err, out)
	}
	var res struct {
		Bozo    bool
		Error   string
		Version string
		Feeds   []listparserFeed
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("listparser output: %v\n%s", err, out)
	}
	if res.Bozo || res.Version != "opml2" {
		t.Fatalf("listparser: bozo %v (%s), version %q\n%s", res.Bozo, res.Error, res.Version, doc)
	}
	return res.Feeds
}

// TestOPMLRoundTrip exports a store's sources, every field a registration
// sets in use, and imports the file into a fresh store: the sources must
// come out the same, field by field. Importing the file again skips every
// entry and changes nothing.
func TestOPMLRoundTrip(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		from := newsEnv(t, open)
		for _, body := range []string{
			`{"id":"town","url":"http://example.org/town.html","kind":"html","interval":"15m","policy":"smart","category":"Local/Town",
			  "title_prefix":"TOWN: ","subscribers":3,"timezone":"Europe/Paris","paused":true,"title":"My town, renamed"}`,
			`{"id":"wire","url":"https://feeds.example.org/wire.xml?lang=fr&x=1","kind":"feed","interval":"90s","policy":"flat","category":"Local"}`,
			`{"id":"odd","url":"http://example.org/odd","kind":"feed","category":" /a//b c/ ","title_prefix":"\t<&\"'>\n"}`,
			`{"url":"http://Example.ORG/Été/news.html","kind":"auto"}`,
		} {
			from.do(http.MethodPost, "/api/sources", []byte(body)).must(t, http.StatusCreated, body)
		}
		want := from.sources()
		if len(want) != 5 {
			t.Fatalf("%d sources to export, want 5", len(want))
		}

		r := from.get("/api/sources.opml").must(t, http.StatusOK, "export")
		if ct := r.header.Get("Content-Type"); ct != api.OPMLContentType {
			t.Errorf("Content-Type %q, want %q", ct, api.OPMLContentType)
		}
		doc := r.body
		verify.WellFormed(t, doc)

		// Another reader sees each source as a subscription to Dynamo's
		// feed of it, in its category's folder, titled by its user's
		// title, else its channel.
		feeds := readWithListparser(t, doc)
		byURL := map[string]listparserFeed{}
		for _, f := range feeds {
			byURL[f.URL] = f
		}
		if len(feeds) != len(want) {
			t.Errorf("listparser reads %d feeds, want %d", len(feeds), len(want))
		}
		for _, s := range want {
			feedURL := from.http.URL + "/resources/" + s.ID + "?max=50"
			f, ok := byURL[feedURL]
			if !ok {
				t.Errorf("no subscription to %s in the export", feedURL)
				continue
			}
			title := s.ID
			switch s.ID {
			case "news":
				title = "Test News"
			case "town":
				title = "My town, renamed"
			}
			var folder []string // one folder named by the whole category, "/" included
			if s.Category != "" {
				folder = []string{opml.NormalizeCategory(s.Category)}
			}
			if f.Title != title || (folder != nil && !reflect.DeepEqual(f.Categories, [][]string{folder})) || (folder == nil && len(f.Categories) != 0) {
				t.Errorf("%s reads as title %q in %q, want %q in %q", s.ID, f.Title, f.Categories, title, folder)
			}
		}
		from.get("/resources/news?max=50").must(t, http.StatusOK, "the exported xmlUrl of news")

		to := newEnv(t, open(t))
		_, ans := to.importOPML(string(doc))
		if ans.Registered != len(want) || ans.Skipped != 0 || ans.Failed != 0 {
			t.Fatalf("import into a fresh store: %+v", ans)
		}
		got := to.sources()
		if !reflect.DeepEqual(configs(got), configs(want)) {
			t.Errorf("sources after the round trip:\n%+v\nwant\n%+v", configs(got), configs(want))
		}

		_, again := to.importOPML(string(doc))
		if again.Registered != 0 || again.Skipped != len(want) || again.Failed != 0 {
			t.Errorf("second import of the same file: %+v, want every entry skipped", again)
		}
		if after := to.sources(); !reflect.DeepEqual(configs(after), configs(got)) {
			t.Errorf("the second import changed the sources:\n%+v", configs(after))
		}
		// The export of the copy says what the original's says, but for
		// the titles learnt by polling and the service's address.
		if extras(t, to.get("/api/sources.opml").must(t, 200, "export the copy").body) != extras(t, doc) {
			t.Errorf("the copy exports other settings than the original")
		}
	})
}

// extras is every entry's Dynamo attributes and category, in a canonical
// text.
func extras(t *testing.T, doc []byte) string {
	t.Helper()
	entries, err := opml.Parse(strings.NewReader(string(doc)))
	if err != nil {
		t.Fatalf("parse export: %v", err)
	}
	var lines []string
	for _, e := range entries {
		lines = append(lines, fmt.Sprintf("%q %v", e.Category, e.Extra))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestOPMLImportReport imports a reader's file with valid, duplicate and
// invalid entries and checks what is said of each and what is stored.
func TestOPMLImportReport(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t), func(c *api.Config) {
			// Resolution as Dynamo does it is tested in cmd/dynamo; here it
			// finds the feed of /site/ and nothing elsewhere.
			c.Resolve = func(_ context.Context, s *dynamo.Source) (*discovery.Result, error) {
				if s.Kind != dynamo.KindAuto {
					return nil, nil
				}
				if strings.HasSuffix(s.URL, "/site/") {
					s.URL, s.Kind = s.URL+"feed/", dynamo.KindFeed
					return nil, nil
				}
				return nil, fmt.Errorf("no feed found at %s (tried %s): %w", s.URL, s.URL, sources.ErrUnresolvable)
			}
		})
		e.addSource("polled", "/polled.xml")
		polled := e.origin.URL + "/polled.xml"
		e.do(http.MethodPost, "/api/sources", []byte(`{"id":"example.org-feed","url":"http://example.org/other-feed","kind":"feed"}`)).must(t, 201, "create")
		// A removed source whose archive is kept keeps its id too.
		e.origin.set("/kept.html", annotatedPage("Kept", alpha))
		e.addSource("127.0.0.1-kept.html", "/kept.html")
		e.poll("127.0.0.1-kept.html")
		e.do(http.MethodDelete, "/api/sources/127.0.0.1-kept.html", nil).must(t, 204, "remove")
		kept := e.origin.URL + "/kept.html?format=rss"

		doc := `<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0">
<head><title>My reader's subscriptions</title></head>
<body>
  <outline text="Tech">
    <outline text="Go" title="Go blog" type="rss" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog"/>
    <outline text="Polled already" type="rss" xmlUrl="` + polled + `"/>
  </outline>
  <outline text="Feed of example.org" type="rss" xmlUrl="http://example.org/feed"/>
  <outline text="Kept" type="rss" xmlUrl="` + kept + `"/>
  <outline text="Go again" type="rss" xmlUrl="HTTPS://GO.DEV/blog/feed.atom#top"/>
  <outline text="Not http" type="rss" xmlUrl="ftp://example.org/feed"/>
  <outline xmlns:dynamo="https://github.com/dynamo-feeds/dynamo/ns/opml" text="Settings" type="rss" xmlUrl="http://example.org/a.xml"
      dynamo:id="polled" dynamo:interval="5m"/>
  <outline text="Bad interval" type="rss" xmlUrl="http://example.org/b.xml" dynamo:interval="soon"/>
  <outline text="Bad policy" type="rss" xmlUrl="http://example.org/c.xml" dynamo:policy="fastest"/>
  <outline text="Typo" type="rss" xmlUrl="http://example.org/d.xml" dynamo:intervall="1h"/>
  <outline text="Site" type="rss" xmlUrl="http://example.org/site/" dynamo:kind="auto" dynamo:id="site" dynamo:category="Sites"/>
  <outline text="Nothing" type="rss" xmlUrl="http://example.org/nothing/" dynamo:kind="auto"/>
  <outline text="Old style" type="atom" url="http://example.org/old.atom"/>
</body>
</opml>`
		_, ans := e.importOPML(doc)
		type row struct {
			Outcome sources.ImportOutcome
			ID      string
			Reason  string // in the reason
		}
		want := []row{
			{sources.ImportRegistered, "go.dev-blog-feed.atom", ""},
			{sources.ImportSkipped, "polled", `duplicate: source "polled" polls this URL`},
			{sources.ImportRegistered, "example.org-feed-2", ""},
			{sources.ImportRegistered, "127.0.0.1-kept.html-2", ""},
			{sources.ImportSkipped, "go.dev-blog-feed.atom", `source "go.dev-blog-feed.atom" polls this URL`},
			{sources.ImportFailed, "", "must be an absolute http or https URL"},
			{sources.ImportSkipped, "polled", `duplicate: a source with id "polled" exists`},
			{sources.ImportFailed, "", "dynamo:interval: duration \"soon\""},
			{sources.ImportFailed, "", `policy "fastest" is unknown`},
			{sources.ImportFailed, "", "unknown attribute dynamo:intervall"},
			{sources.ImportRegistered, "site", ""},
			{sources.ImportFailed, "", "no feed found at http://example.org/nothing/ (tried"},
			{sources.ImportRegistered, "example.org-old.atom", ""},
		}
		if len(ans.Entries) != len(want) {
			t.Fatalf("%d entries reported, want %d: %+v", len(ans.Entries), len(want), ans.Entries)
		}
		for i, w := range want {
			got := ans.Entries[i]
			if got.Entry != i+1 || got.Outcome != w.Outcome || got.ID != w.ID || !strings.Contains(got.Reason, w.Reason) || (w.Reason == "") != (got.Reason == "") {
				t.Errorf("entry %d (%s): %+v, want %+v", i+1, got.Title, got, w)
			}
		}
		if ans.Registered != 5 || ans.Skipped != 3 || ans.Failed != 5 {
			t.Errorf("counts %d registered, %d skipped, %d failed; want 5, 3, 5", ans.Registered, ans.Skipped, ans.Failed)
		}

		stored := map[string]dynamo.Source{}
		for _, s := range e.sources() {
			stored[s.ID] = config(s)
		}
		wantStored := map[string]dynamo.Source{
			"polled":                {ID: "polled", URL: polled, Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval},
			"example.org-feed":      {ID: "example.org-feed", URL: "http://example.org/other-feed", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval},
			"go.dev-blog-feed.atom": {ID: "go.dev-blog-feed.atom", URL: "https://go.dev/blog/feed.atom", Title: "Go blog", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval, Category: "Tech"},
			"example.org-feed-2":    {ID: "example.org-feed-2", URL: "http://example.org/feed", Title: "Feed of example.org", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval},
			"127.0.0.1-kept.html-2": {ID: "127.0.0.1-kept.html-2", URL: kept, Title: "Kept", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval},
			"site":                  {ID: "site", URL: "http://example.org/site/feed/", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval, Category: "Sites"},
			"example.org-old.atom":  {ID: "example.org-old.atom", URL: "http://example.org/old.atom", Title: "Old style", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval},
		}
		if !reflect.DeepEqual(stored, wantStored) {
			t.Errorf("stored sources:\n%+v\nwant\n%+v", stored, wantStored)
		}
		// Registered sources are served at once, under the outline's title
		// until their feed's own is known.
		e.get("/api/sources/site").must(t, http.StatusOK, "read an imported source")
		if body := e.get("/resources/example.org-old.atom?type=rss2").must(t, http.StatusOK, "feed of a source never polled").body; !bytes.Contains(body, []byte("<title>Versions of Old style</title>")) {
			t.Errorf("the feed of a source never polled is not titled by the outline:\n%s", body)
		}
	})
}

// TestOPMLImportRefusesUnreadable sends documents that cannot be read
// whole: each gets a clear error and registers nothing, not even the
// entries before the fault.
func TestOPMLImportRefusesUnreadable(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		good := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="A" type="rss" xmlUrl="http://example.org/a.xml"/>
<outline text="B" type="rss" xmlUrl="http://example.org/b.xml"/>
`
		var many strings.Builder
		many.WriteString(`<opml version="2.0"><body>`)
		for i := range api.MaxImportEntries + 1 {
			fmt.Fprintf(&many, `<outline xmlUrl="http://example.org/%d"/>`, i)
		}
		many.WriteString(`</body></opml>`)
		cases := []struct {
			name, doc string
			header    []string
			status    int
			mention   string
		}{
			{"truncated", good, nil, 400, "the OPML document cannot be read, so nothing was registered: opml: XML syntax error on line 4: unexpected EOF"},
			{"not OPML", `<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>`, nil, 400, "not an OPML document: the root element is <rss>"},
			{"empty", ``, nil, 400, "the file is empty"},
			{"text", "subscriptions:\nhttp://example.org/a.xml\n", nil, 400, "not an OPML document"},
			{"JSON", `{"url":"http://example.org/a.xml"}`, nil, 400, "not an OPML document"},
			{"too many feeds", many.String(), nil, 400, "more than the 10000 one import takes; nothing was registered"},
			{"too big", good + strings.Repeat(" ", api.MaxImportBody) + "</body></opml>", nil, 413, "at most 4194304 bytes; nothing was registered"},
			{"sent as a form", good + "</body></opml>", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "Content-Type: text/x-opml"},
			{"sent as text", good + "</body></opml>", []string{"Content-Type", "text/plain"}, 415, "Content-Type: text/x-opml"},
			{"sent without a type", good + "</body></opml>", []string{"Content-Type", ""}, 415, "Content-Type: text/x-opml"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r, _ := e.importOPML(tc.doc, tc.header...)
				r.must(t, tc.status, tc.name)
				var body struct{ Error string }
				if err := json.Unmarshal(r.body, &body); err != nil || !strings.Contains(body.Error, tc.mention) {
					t.Errorf("error %s (%v), want one saying %q", r.body, err, tc.mention)
				}
			})
		}
		if n := len(e.sources()); n != 0 {
			t.Errorf("%d sources registered by refused imports", n)
		}
		// The same document, complete and sent as XML, is imported.
		_, ans := e.importOPML(good+"</body></opml>", "Content-Type", "application/xml; charset=utf-8")
		if ans.Registered != 2 {
			t.Errorf("complete document: %+v, want 2 registered", ans)
		}
	})
}

// TestOPMLAuthorization checks that importing needs the admin token and
// exporting, a read, does not.
func TestOPMLAuthorization(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t), withToken("s3cret"))
	doc := `<opml version="2.0"><body><outline text="A" type="rss" xmlUrl="http://example.org/a.xml"/></body></opml>`
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}} {
		r, _ := e.importOPML(doc, h...)
		r.must(t, http.StatusUnauthorized, "import with "+strings.Join(h, ": "))
	}
	if n := len(e.sources()); n != 0 {
		t.Fatalf("%d sources registered without the token", n)
	}
	_, ans := e.importOPML(doc, "Authorization", "Bearer s3cret")
	if ans.Registered != 1 {
		t.Fatalf("import with the token: %+v", ans)
	}
	entries, err := opml.Parse(strings.NewReader(string(e.get("/api/sources.opml").must(t, http.StatusOK, "export without the token").body)))
	if err != nil || len(entries) != 1 || entries[0].Extra["url"] != "http://example.org/a.xml" {
		t.Errorf("export: %+v, %v", entries, err)
	}
	e.do(http.MethodGet, "/api/sources/import", nil).must(t, http.StatusNotFound, "GET on the import URL")
}

// BenchmarkImportOPML measures registering the entries of a reader's file
// (ids derived from the URLs, as for a file from another reader) against
// the baseline of storing the same sources with CreateSource alone; the
// import adds the duplicate and id checks.
func BenchmarkImportOPML(b *testing.B) {
	const n = 200
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			store := st.open(b)
			ctx := context.Background()
			round := 0
			b.Run("import", func(b *testing.B) {
				im := &sources.Service{Store: store}
				for b.Loop() {
					round++
					entries := make([]opml.Entry, n)
					for i := range entries {
						entries[i] = opml.Entry{Title: "F", XMLURL: fmt.Sprintf("http://example.org/import/%d/%d.xml", round, i), Category: "Bench"}
					}
					res, err := im.Import(ctx, entries, nil)
					if err != nil || res[n-1].Outcome != sources.ImportRegistered {
						b.Fatalf("import: %v, %+v", err, res[n-1])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/entry")
			})
			b.Run("create-source", func(b *testing.B) {
				for b.Loop() {
					round++
					for i := range n {
						src := &dynamo.Source{ID: fmt.Sprintf("direct-%d-%d", round, i), URL: fmt.Sprintf("http://example.org/direct/%d/%d.xml", round, i),
							Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval, Category: "Bench"}
						if err := store.CreateSource(ctx, src); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/entry")
			})
		})
	}
}

// xmlSafe is s as an XML document can carry it: characters XML 1.0 has no
// place for, and invalid UTF-8, become U+FFFD (what opml.Write writes).
func xmlSafe(s string) string {
	var b strings.Builder
	for _, r := range s { // each byte of invalid UTF-8 is a U+FFFD
		ok := r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
		if !ok {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzOPMLImportExport imports an entry with arbitrary settings (and an
// outline title, the user's title when no setting is given), exports
// the source it became, and imports that into another store: the second
// source must be the first (an import's normal form is a fixed point of
// export and import), but for characters XML cannot carry.
func FuzzOPMLImportExport(f *testing.F) {
	f.Add("http://example.org/feed", "", "", "", "", "", "", "", "", "")
	f.Add("http://example.org/news.html", "news", "html", "15m", "Local/ Town /", "TOWN:\t<&>", "Europe/Paris", "3", "true", "My  news\n")
	f.Add("HTTPS://Example.ORG/a#frag", "a.b_c-d", "auto", "90", " / ", "\x01\xff", "UTC", "-1", "maybe", "\x01")
	f.Add("http://0", "", "", "", "0\xe6\xde", "", "", "", "", "Caf\xe9 \uFFFE")
	first, second := stores[0].open(f), stores[0].open(f)
	policies := []string{"flat", "smart"}
	f.Fuzz(func(t *testing.T, xmlURL, id, kind, interval, category, prefix, tz, subscribers, paused, title string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		extra := map[string]string{}
		for k, v := range map[string]string{"id": id, "kind": kind, "interval": interval, "category": category,
			"title_prefix": prefix, "timezone": tz, "subscribers": subscribers, "paused": paused} {
			if v != "" {
				extra[k] = v
			}
		}
		im := &sources.Service{Store: first, Policies: policies}
		if len(extra) == 0 {
			extra = nil // another reader's outline
		}
		res, err := im.Import(ctx, []opml.Entry{{Title: title, XMLURL: xmlURL, Extra: extra}}, nil)
		if err != nil || len(res) != 1 {
			t.Fatalf("import: %v, %+v", err, res)
		}
		if res[0].Outcome != sources.ImportRegistered {
			if res[0].Reason == "" {
				t.Fatalf("%s without a reason: %+v", res[0].Outcome, res[0])
			}
			return
		}
		src, err := first.Source(ctx, res[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		var doc strings.Builder
		if err := opml.WriteSources(&doc, []dynamo.Source{*src}, "http://dynamo.example"); err != nil {
			t.Fatalf("export %+v: %v", src, err)
		}
		entries, err := opml.Parse(strings.NewReader(doc.String()))
		if err != nil || len(entries) != 1 {
			t.Fatalf("the export reads back as %d entries, %v:\n%s", len(entries), err, doc.String())
		}
		im.Store = second
		again, err := im.Import(ctx, entries, nil)
		if err != nil || len(again) != 1 || again[0].Outcome != sources.ImportRegistered {
			t.Fatalf("import of the export: %v, %+v\n%s", err, again, doc.String())
		}
		copied, err := second.Source(ctx, again[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		want := config(*src)
		want.TitlePrefix, want.Category, want.Title = xmlSafe(want.TitlePrefix), xmlSafe(want.Category), xmlSafe(want.Title)
		if got := config(*copied); !reflect.DeepEqual(got, want) {
			t.Fatalf("after export and import:\n%+v\nwant\n%+v\n%s", got, want, doc.String())
		}
	})
}
