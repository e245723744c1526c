package nativefeed

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/transform"
)

// TestFeedCorpus runs the feeds of testdata/corpus end to end: each is
// served by a loopback origin with its Content-Type (and Content-Encoding),
// fetched by the poller's client, read by Parse, checked against what its
// case says the XMLData holds, then rendered in every format and read back
// by feedparser and gofeed (roundTrip). The dev half is what the package
// was tuned on; the held-out half was run once, then fixed where it
// failed; heldout2, written after those fixes, was run once at the end
// (docs/NATIVE_FEEDS.md "Tests" gives each result).
func TestFeedCorpus(t *testing.T) {
	for _, half := range []struct {
		dir   string
		cases []feedCase
	}{{"dev", devFeeds}, {"heldout", heldoutFeeds}, {"heldout2", heldout2Feeds}} {
		t.Run(half.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "corpus", half.dir)
			origin := corpusOrigin(t, dir, half.cases)
			client := fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1})
			for _, c := range half.cases {
				t.Run(c.file, func(t *testing.T) {
					t.Parallel()
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					resp, err := client.Get(ctx, fetch.Request{URL: origin + "/feeds/" + c.file})
					if err != nil {
						t.Fatalf("fetch: %v", err)
					}
					res, err := Parse(resp.Body, resp.ContentType, Options{URL: resp.URL, RSSID: "corpus", Now: now})
					if err != nil {
						t.Fatalf("Parse: %v", err)
					}
					checkCase(t, withOrigin(c, origin), res)
					verify.XMLData(t, res.Resource.XML())
					roundTrip(t, res.Resource)
				})
			}
		})
	}
}

// corpusOrigin serves the files of dir at /feeds/<file> as their cases
// say, and checks that every file has a case and every case a file.
func corpusOrigin(t *testing.T, dir string, cases []feedCase) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		bodies[e.Name()] = b
	}
	byFile := map[string]feedCase{}
	for _, c := range cases {
		if bodies[c.file] == nil {
			t.Errorf("case %s has no file in %s", c.file, dir)
		}
		byFile[c.file] = c
	}
	for name := range bodies {
		if _, ok := byFile[name]; !ok {
			t.Errorf("%s/%s has no case", dir, name)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/feeds/")
		c, ok := byFile[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := bodies[name]
		switch c.encoding {
		case "gzip":
			body = gzipped(t, body)
		case "gzip2":
			body = gzipped(t, gzipped(t, body))
		}
		if c.encoding != "" {
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("Content-Type", c.contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if _, err := z.Write(b); err != nil {
		t.Error(err)
	}
	if err := z.Close(); err != nil {
		t.Error(err)
	}
	return buf.Bytes()
}

// withOrigin is c with "$ORIGIN" in its links replaced by origin.
func withOrigin(c feedCase, origin string) feedCase {
	o := func(s string) string { return strings.ReplaceAll(s, "$ORIGIN", origin) }
	c.link = o(c.link)
	c.items = slices.Clone(c.items)
	for i := range c.items {
		c.items[i].link, c.items[i].desc = o(c.items[i].link), o(c.items[i].desc)
	}
	return c
}

func checkCase(t *testing.T, c feedCase, res *Result) {
	t.Helper()
	ch := res.Resource.Channel
	if res.Format != c.format || ch.Title != c.title || ch.Link != c.link {
		t.Errorf("read as %s, channel %q %q; want %s, %q %q", res.Format, ch.Title, ch.Link, c.format, c.title, c.link)
	}
	checkItems(t, res.Resource.Items, c.items)
	wantWarnings(t, res.Warnings, c.warnings...)
	if c.check != nil && len(res.Resource.Items) == len(c.items) {
		c.check(t, res)
	}
}

// roundTrip renders doc in every format and reads each output back with
// the readers the project did not write: feedparser (RSS 1.0, RSS 2.0,
// Atom) and gofeed (all four; jing checks Atom against RFC 4287's schema
// too). Each reader must see the channel's title and link and, for every
// item, its title, link, date and enclosures.
func roundTrip(t *testing.T, doc *dynamo.Resource) {
	t.Helper()
	for _, f := range []transform.Format{transform.RSS1, transform.RSS2, transform.Atom, transform.JSON} {
		var buf bytes.Buffer
		if err := transform.Render(&buf, doc, f); err != nil {
			t.Fatalf("render %s: %v", f, err)
		}
		out := buf.Bytes()
		// gofeed reads no atom:link rel="enclosure" in RSS, which is
		// how RSS 1.0 carries every file and RSS 2.0 all but the first
		// (docs/TRANSFORM.md): it is asked for what RSS itself carries.
		type reading struct {
			verify.Parsed
			files int // how many of the item's enclosures it can see; -1 all
		}
		readings := map[string]reading{}
		switch f {
		case transform.RSS1:
			readings["feedparser"] = reading{verify.Feed(t, out, "rss10"), -1}
			readings["gofeed"] = reading{verify.Gofeed(t, out, "rss"), 0}
		case transform.RSS2:
			readings["feedparser"] = reading{verify.Feed(t, out, "rss20"), -1}
			readings["gofeed"] = reading{verify.Gofeed(t, out, "rss"), 1}
		case transform.Atom:
			verify.Atom(t, out)
			readings["feedparser"] = reading{verify.Feed(t, out, "atom10"), -1}
			readings["gofeed"] = reading{verify.Gofeed(t, out, "atom"), -1}
		case transform.JSON:
			readings["gofeed"] = reading{verify.JSONFeed(t, out), -1}
		}
		for reader, got := range readings {
			compareReading(t, string(f)+" by "+reader, doc, got.Parsed, got.files)
		}
	}
}

func compareReading(t *testing.T, what string, doc *dynamo.Resource, got verify.Parsed, files int) {
	t.Helper()
	if got.Title != doc.Channel.Title || got.Link != doc.Channel.Link {
		t.Errorf("%s: channel %q %q, want %q %q", what, got.Title, got.Link, doc.Channel.Title, doc.Channel.Link)
	}
	if len(got.Entries) != len(doc.Items) {
		t.Errorf("%s: %d entries, want %d", what, len(got.Entries), len(doc.Items))
		return
	}
	for i, e := range got.Entries {
		it := &doc.Items[i]
		if e.Title != it.Title || e.Link != it.Link {
			t.Errorf("%s: entry %d is %q %q, want %q %q", what, i+1, truncate(e.Title, 200), e.Link, truncate(it.Title, 200), it.Link)
		}
		if d, ok := it.Date(); ok {
			want := d.UTC().Format(time.RFC3339)
			read := e.Published
			if read == "" {
				// feedparser reads RSS 1.0's dc:date as the updated
				// time, and a later dcterms:modified replaces it.
				read = e.Updated
				if m, ok := it.Modified(); ok && m.After(d) && read == m.UTC().Format(time.RFC3339) {
					read = want
				}
			}
			if read != want {
				t.Errorf("%s: entry %d dated %q (updated %q), want %s", what, i+1, e.Published, e.Updated, want)
			}
		}
		want := it.AllEnclosures()
		if files >= 0 {
			want = want[:min(files, len(want))]
		}
		compareEnclosures(t, what, i, want, e.Enclosures)
	}
}

// compareEnclosures checks the files a reader lists against the item's:
// URL, and type and length where known (an output may write an unknown
// length as 0 and an unknown type as application/octet-stream, as RSS
// 2.0 requires both).
func compareEnclosures(t *testing.T, what string, i int, want []dynamo.Enclosure, got []verify.Enclosure) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: entry %d has %d enclosures %+v, want %+v", what, i+1, len(got), got, want)
		return
	}
	for j, w := range want {
		g := got[j]
		length := ""
		if w.Length > 0 {
			length = strconv.FormatInt(w.Length, 10)
		}
		typeOK := g.Type == w.Type || w.Type == "" && (g.Type == "" || g.Type == "application/octet-stream")
		lengthOK := g.Length == length || length == "" && g.Length == "0"
		if g.Href != w.URL || !typeOK || !lengthOK {
			t.Errorf("%s: entry %d file %d is %+v, want %+v", what, i+1, j+1, g, w)
		}
	}
}
