// Package verify checks Dynamo's output with validators the project did not
// write: xmllint against schema/xmldata.xsd, jing against RFC 4287's Atom
// schema, and Debian's python3-feedparser for every feed format. Tests call
// it; the test command (scripts/test.sh) installs the tools. A missing tool
// fails the test rather than skipping it, so a green run means checked.
package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/schema"
)

func tool(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run scripts/test.sh, which installs the validators (%v)", path, err)
	}
	return path
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// XMLData fails the test unless doc is valid against schema/xmldata.xsd.
func XMLData(t testing.TB, doc []byte) {
	t.Helper()
	xsd := writeTemp(t, "xmldata.xsd", schema.XMLData)
	file := writeTemp(t, "doc.xml", doc)
	out, err := exec.Command(tool(t, "/usr/bin/xmllint"), "--noout", "--schema", xsd, file).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint --schema xmldata.xsd: %v\n%s\ndocument:\n%s", err, out, doc)
	}
}

// Atom fails the test unless doc is valid against RFC 4287's schema
// (schema/atom.rnc), checked with jing.
func Atom(t testing.TB, doc []byte) {
	t.Helper()
	rnc := writeTemp(t, "atom.rnc", schema.Atom)
	file := writeTemp(t, "feed.xml", doc)
	out, err := exec.Command(tool(t, "/usr/bin/jing"), "-c", rnc, file).CombinedOutput()
	if err != nil {
		t.Fatalf("jing -c atom.rnc: %v\n%s\ndocument:\n%s", err, out, doc)
	}
}

// WellFormed fails the test unless doc is well-formed XML (xmllint).
func WellFormed(t testing.TB, doc []byte) {
	t.Helper()
	file := writeTemp(t, "doc.xml", doc)
	out, err := exec.Command(tool(t, "/usr/bin/xmllint"), "--noout", file).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s\ndocument:\n%s", err, out, doc)
	}
}

// Parsed is what python3-feedparser made of a feed.
type Parsed struct {
	Bozo          bool    `json:"bozo"`
	BozoException string  `json:"bozo_exception"`
	Version       string  `json:"version"` // rss10, rss20, atom10, json11, …
	Title         string  `json:"title"`
	Link          string  `json:"link"`
	Subtitle      string  `json:"subtitle"`
	Language      string  `json:"language"`
	Updated       string  `json:"updated"` // as "YYYY-MM-DDTHH:MM:SSZ" in UTC, "" if none parsed
	Entries       []Entry `json:"entries"`
	// ContentEncoding is the Content-Encoding of the answer feedparser
	// fetched (FeedURL; "" for a file), which it decoded itself.
	ContentEncoding string `json:"content_encoding"`
}

// Entry is one parsed feed entry.
type Entry struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Link      string `json:"link"`
	Summary   string `json:"summary"`
	Published string `json:"published"` // as "YYYY-MM-DDTHH:MM:SSZ" in UTC, "" if none parsed
	Updated   string `json:"updated"`
	// Enclosures as the reader lists them (feedparser's enclosures,
	// gofeed's JSON Feed attachments).
	Enclosures []Enclosure `json:"enclosures"`
}

// Enclosure is one enclosure as read; Length is text, as readers give it.
type Enclosure struct {
	Href   string `json:"href"`
	Type   string `json:"type"`
	Length string `json:"length"`
}

const feedparserScript = `
import calendar, json, sys, time
import feedparser

def ts(st):
    if not st:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(calendar.timegm(st)))

d = feedparser.parse(sys.argv[1])
f = d.feed
out = {
    "bozo": bool(d.bozo),
    "bozo_exception": str(d.get("bozo_exception", "")),
    "version": d.version,
    "title": f.get("title", ""),
    "link": f.get("link", ""),
    "subtitle": f.get("subtitle", ""),
    "language": f.get("language", ""),
    "updated": ts(f.get("updated_parsed")),
    "entries": [{
        "id": e.get("id", ""),
        "title": e.get("title", ""),
        "link": e.get("link", ""),
        "summary": e.get("summary", ""),
        "published": ts(e.get("published_parsed")),
        "updated": ts(e.get("updated_parsed")),
        "enclosures": [{"href": x.get("href", ""), "type": x.get("type", ""), "length": str(x.get("length", ""))}
                       for x in e.get("enclosures", [])],
    } for e in d.entries],
    "content_encoding": d.get("headers", {}).get("content-encoding", ""),
}
json.dump(out, sys.stdout)
`

var feedparserMissing = sync.OnceValue(func() error {
	return exec.Command("/usr/bin/python3", "-c", "import feedparser").Run()
})

// Feed parses doc with Debian's python3-feedparser (/usr/bin/python3, which
// sees Debian's packages) and fails the test if the parser flags it as
// malformed (bozo) or reads a version other than wantVersion ("rss10",
// "rss20", "atom10", "json11").
func Feed(t testing.TB, doc []byte, wantVersion string) Parsed {
	t.Helper()
	return feedparser(t, writeTemp(t, "feed", doc), doc, wantVersion)
}

// FeedURL is Feed for a feed that feedparser fetches itself over HTTP, as
// a reader would: it sends Accept-Encoding: gzip, deflate and decodes the
// answer, whose Content-Encoding the result reports.
func FeedURL(t testing.TB, url, wantVersion string) Parsed {
	t.Helper()
	return feedparser(t, url, []byte(url), wantVersion)
}

// feedparser runs the script on a file or URL; shown is what a failure
// shows of the feed.
func feedparser(t testing.TB, fileOrURL string, shown []byte, wantVersion string) Parsed {
	t.Helper()
	if err := feedparserMissing(); err != nil {
		t.Fatalf("python3-feedparser is missing: run scripts/test.sh, which installs it (%v)", err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", feedparserScript, fileOrURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("feedparser: %v\n%s", err, stderr.String())
	}
	var p Parsed
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("feedparser output: %v\n%s", err, out)
	}
	if p.Bozo {
		t.Fatalf("feedparser flags the feed as malformed: %s\nfeed:\n%s", p.BozoException, excerpt(shown))
	}
	if p.Version != wantVersion {
		t.Fatalf("feedparser reads version %q, want %q\nfeed:\n%s", p.Version, wantVersion, excerpt(shown))
	}
	return p
}

func excerpt(doc []byte) string {
	const max = 4000
	s := string(doc)
	if len(s) > max {
		return s[:max] + fmt.Sprintf("\n… (%d more bytes)", len(s)-max)
	}
	return strings.TrimSpace(s)
}

// ArchivePage is one document of an archived feed as feedparser read it.
type ArchivePage struct {
	URL     string   `json:"url"`
	Archive bool     `json:"archive"` // it carries fh:archive
	IDs     []string `json:"ids"`     // its entries' ids, in order
}

const archiveWalkScript = `
import json, sys
import feedparser

url, want = sys.argv[1], sys.argv[2]
pages = []
while url and len(pages) < 100000:
    d = feedparser.parse(url)
    if d.bozo or d.version != want:
        sys.exit("%s: version %r, bozo %r (%s)" % (url, d.version, d.bozo, d.get("bozo_exception", "")))
    pages.append({"url": url, "archive": "fh_archive" in d.feed,
                  "ids": [e.get("id", "") for e in d.entries]})
    url = next((l["href"] for l in d.feed.get("links", []) if l.get("rel") == "prev-archive"), None)
json.dump(pages, sys.stdout)
`

// WalkArchive reads an archived feed (RFC 5005 §4) with python3-feedparser
// as a reader would: from the subscription document at url, following each
// document's prev-archive link until one has none, failing the test if
// feedparser flags a document as malformed or reads a version other than
// wantVersion. It returns the documents in the order read.
func WalkArchive(t testing.TB, url, wantVersion string) []ArchivePage {
	t.Helper()
	if err := feedparserMissing(); err != nil {
		t.Fatalf("python3-feedparser is missing: run scripts/test.sh, which installs it (%v)", err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", archiveWalkScript, url, wantVersion)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("feedparser walking %s: %v\n%s", url, err, stderr.String())
	}
	var pages []ArchivePage
	if err := json.Unmarshal(out, &pages); err != nil {
		t.Fatalf("feedparser walk output: %v", err)
	}
	return pages
}
