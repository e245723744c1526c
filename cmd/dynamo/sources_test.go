package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/storage"
)

// storedSources opens the store at db and returns its sources' settings
// by id.
func storedSources(t *testing.T, db string) map[string]dynamo.Source {
	t.Helper()
	store, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.Sources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dynamo.Source{}
	for _, s := range list {
		out[s.ID] = dynamo.Source{ID: s.ID, URL: s.URL, Kind: s.Kind, Interval: s.Interval, Policy: s.Policy, Category: s.Category,
			TitlePrefix: s.TitlePrefix, Subscribers: s.Subscribers, Timezone: s.Timezone, Paused: s.Paused}
	}
	return out
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSourcesImport imports a reader's file holding a feed in a folder, a
// page with Dynamo's settings, a site to discover, a duplicate and an
// invalid entry, and checks the progress lines, the exit code and the
// store.
func TestSourcesImport(t *testing.T) {
	site := newAutoSite(t)
	u := site.URL
	file := writeFile(t, "subscriptions.opml", `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0" xmlns:dynamo="https://github.com/dynamo-feeds/dynamo/ns/opml">
<head><title>Exported by a reader</title></head>
<body>
  <outline text="News">
    <outline text="Wire" type="rss" xmlUrl="`+u+`/wire.rss"/>
  </outline>
  <outline text="Town" type="rss" xmlUrl="https://feeds.example.org/resources/town?max=50" dynamo:id="town"
      dynamo:url="`+u+`/news.html" dynamo:kind="html" dynamo:interval="15m" dynamo:policy="hourly" dynamo:timezone="Europe/Paris"/>
  <outline text="A WordPress site" type="rss" xmlUrl="`+u+`/wp/" dynamo:kind="auto"/>
  <outline text="Wire again" type="rss" xmlUrl="`+u+`/wire.rss"/>
  <outline text="Gopher" type="rss" xmlUrl="gopher://example.org/1/feed"/>
</body>
</opml>
`)
	db := filepath.Join(t.TempDir(), "dynamo.db")
	code, stdout, stderr := run(t, "", "sources", "import", "--db", db, file, "--allow-private")
	if code != 1 {
		t.Errorf("exit code %d, want 1 (an entry failed); stderr:\n%s", code, stderr)
	}
	want := `[1/5] registered 127.0.0.1-wire.rss ` + u + `/wire.rss (feed)
[2/5] registered town ` + u + `/news.html (html)
[3/5] registered 127.0.0.1-wp ` + u + `/wp/feed/ (feed)
[4/5] skipped 127.0.0.1-wire.rss ` + u + `/wire.rss: duplicate: source "127.0.0.1-wire.rss" polls this URL
[5/5] failed gopher://example.org/1/feed: invalid: url "gopher://example.org/1/feed" must be an absolute http or https URL of at most 2048 bytes
5 entries: 3 registered, 1 skipped, 1 failed
`
	if normalizeSpace(stdout) != normalizeSpace(want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	hour := dynamo.Duration(time.Hour)
	wantStored := map[string]dynamo.Source{
		"127.0.0.1-wire.rss": {ID: "127.0.0.1-wire.rss", URL: u + "/wire.rss", Kind: dynamo.KindFeed, Interval: hour, Category: "News"},
		"town": {ID: "town", URL: u + "/news.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(15 * time.Minute),
			Policy: "hourly", Timezone: "Europe/Paris"},
		"127.0.0.1-wp": {ID: "127.0.0.1-wp", URL: u + "/wp/feed/", Kind: dynamo.KindFeed, Interval: hour},
	}
	if got := storedSources(t, db); !reflect.DeepEqual(got, wantStored) {
		t.Errorf("stored:\n%+v\nwant\n%+v", got, wantStored)
	}

	// The same file again: the valid entries are all there already.
	code, stdout, _ = run(t, "", "sources", "import", "--db", db, "--allow-private", file)
	if code != 1 || !strings.HasSuffix(stdout, "5 entries: 0 registered, 4 skipped, 1 failed\n") {
		t.Errorf("second import: exit %d\n%s", code, stdout)
	}

	// Without --allow-private, no entry on the loopback site is
	// registered, whatever its kind, each refused once with polling's
	// message.
	other := filepath.Join(t.TempDir(), "other.db")
	_, stdout, _ = run(t, "", "sources", "import", "--db", other, file)
	if !strings.Contains(normalizeSpace(stdout), "[3/5] failed "+u+"/wp/: fetch "+u+"/wp/: refused: 127.0.0.1 is loopback; private destinations are refused unless allowed (--allow-private)\n") ||
		!strings.Contains(normalizeSpace(stdout), "[2/5] failed town "+u+"/news.html: fetch "+u+"/news.html: refused") {
		t.Errorf("import without --allow-private:\n%s", stdout)
	}
}

// TestSourcesExportImport exports a store's sources with the command line
// and imports the file into a fresh store: the sources come out the same;
// a file without failures exits 0.
func TestSourcesExportImport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dynamo.db")
	store, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []dynamo.Source{
		{ID: "town", URL: "http://example.org/town.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(15 * time.Minute), Policy: "smart",
			Category: "Local/Town", TitlePrefix: "TOWN: ", Subscribers: 3, Timezone: "Europe/Paris", Paused: true},
		{ID: "wire", URL: "https://feeds.example.org/wire.xml?a=1&b=2", Kind: dynamo.KindFeed, Interval: dynamo.Duration(90 * time.Second)},
	} {
		if err := store.CreateSource(context.Background(), &s); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()

	code, stdout, stderr := run(t, "", "sources", "export", "--db", db, "--base", "https://dynamo.example.org/")
	if code != 0 || !strings.Contains(stderr, "sources exported: 2") {
		t.Fatalf("export: exit %d, stderr %s", code, stderr)
	}
	entries, err := opml.Parse(strings.NewReader(stdout))
	if err != nil || len(entries) != 2 {
		t.Fatalf("export reads back as %d entries, %v:\n%s", len(entries), err, stdout)
	}
	if entries[0].XMLURL != "https://dynamo.example.org/resources/wire?max=50" || entries[1].XMLURL != "https://dynamo.example.org/resources/town?max=50" {
		t.Errorf("xmlUrls %q, %q: want Dynamo's feeds under --base", entries[0].XMLURL, entries[1].XMLURL)
	}
	file := filepath.Join(t.TempDir(), "out.opml")
	if code, _, stderr := run(t, "", "sources", "export", "--db", db, file); code != 0 {
		t.Fatalf("export to a file: exit %d, %s", code, stderr)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	code, stdout, stderr = run(t, "", "sources", "import", "--db", fresh, file)
	if code != 0 || !strings.HasSuffix(stdout, "2 entries: 2 registered, 0 skipped, 0 failed\n") {
		t.Errorf("import of the export: exit %d\n%s%s", code, stdout, stderr)
	}
	if got, want := storedSources(t, fresh), storedSources(t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("after the round trip:\n%+v\nwant\n%+v", got, want)
	}
	// Standard input works too, and a second import skips everything.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, string(data), "sources", "import", "--db", fresh, "-")
	if code != 0 || !strings.HasSuffix(stdout, "2 entries: 0 registered, 2 skipped, 0 failed\n") {
		t.Errorf("import from standard input: exit %d\n%s", code, stdout)
	}
}

// TestSourcesImportRefusesUnreadable checks that a file that cannot be read
// whole registers nothing: the store is not even opened.
func TestSourcesImportRefusesUnreadable(t *testing.T) {
	truncated := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="A" type="rss" xmlUrl="http://example.org/a.xml"/>
<outline text="B" type="rss" xmlUrl="http://example.org/b.xml"/>`
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"truncated file", "", []string{writeFile(t, "cut.opml", truncated)}, 1, "cut.opml: opml: XML syntax error on line 3: unexpected EOF; nothing was registered"},
		{"truncated input", truncated, []string{"-"}, 1, "-: opml: XML syntax error on line 3: unexpected EOF; nothing was registered"},
		{"an RSS feed", "", []string{writeFile(t, "feed.opml", `<rss version="2.0"><channel/></rss>`)}, 1, "not an OPML document: the root element is <rss>"},
		{"missing file", "", []string{filepath.Join(t.TempDir(), "none.opml")}, 1, "no such file"},
		{"no file", "", nil, 2, "want one OPML file"},
		{"two files", "", []string{"a.opml", "b.opml"}, 2, "want one OPML file (or - for standard input), got 2"},
		{"unknown flag", "", []string{"--fast", "a.opml"}, 2, "flag provided but not defined: -fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "dynamo.db")
			code, stdout, stderr := run(t, tt.stdin, append([]string{"sources", "import", "--db", db}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %s", stdout)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the store was opened (%v)", err)
			}
		})
	}
}

func TestSourcesUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		output string // in stdout or stderr
	}{
		{[]string{"sources"}, 2, "usage: dynamo sources import"},
		{[]string{"sources", "-h"}, 0, "usage: dynamo sources import"},
		{[]string{"sources", "frob"}, 2, `unknown subcommand "frob": want import or export`},
		{[]string{"sources", "import", "-h"}, 0, "-allow-private"},
		{[]string{"sources", "export", "--base", "ftp://x/"}, 2, `--base "ftp://x/" is not an http or https URL`},
		{[]string{"sources", "export", "a.opml", "b.opml"}, 2, "want at most one output file"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, "", tt.args...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.output) {
			t.Errorf("%q: exit %d, output %q; want %d and %q", tt.args, code, stdout+stderr, tt.code, tt.output)
		}
	}
}
