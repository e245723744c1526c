package reliability_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/nativefeed"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// longRun reports whether DYNAMO_RELIABILITY_LONG asks for the long
// version of the tests that have one.
func longRun() bool { return os.Getenv("DYNAMO_RELIABILITY_LONG") != "" }

// corpusSeed fixes the corpus: the same documents every run, so a failure
// is reproduced by its number.
const corpusSeed = 20261123

// corpusBases are the documents the corpus mutates: the example pages, the
// native feeds of nativefeed's tests, and generated pages and feeds.
func corpusBases(t *testing.T) (pages, feeds [][]byte) {
	t.Helper()
	for _, p := range examples.List {
		b, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	pages = append(pages, []byte(generationPage(12)), []byte(paddedPage(3, 20000)))
	files, err := filepath.Glob("../nativefeed/testdata/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no feeds in ../nativefeed/testdata: %v", err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		feeds = append(feeds, b)
	}
	var rss, atom strings.Builder
	rss.WriteString(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Wire &amp; co</title><link>http://wire.example/</link><description>d</description><ttl>60</ttl>`)
	atom.WriteString(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://atom.example/x/"><title type="html">A &lt;b&gt;feed&lt;/b&gt;</title><id>urn:x</id><updated>2026-11-23T10:00:00Z</updated>`)
	for i := range 20 {
		fmt.Fprintf(&rss, `<item><title>Story %d</title><link>/s/%d</link><guid isPermaLink="false">g%d</guid><pubDate>Mon, 23 Nov 2026 %02d:00:00 GMT</pubDate><dc:creator>A</dc:creator><description><![CDATA[<p>Story <b>%d</b> <img src="/i.png"></p>]]></description><content:encoded>&lt;p&gt;more&lt;/p&gt;</content:encoded></item>`, i, i, i, i, i)
		fmt.Fprintf(&atom, `<entry><title>E%d</title><id>urn:e%d</id><link href="e/%d"/><updated>2026-11-23T%02d:00:00Z</updated><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>x<b>%d</b></p></div></content></entry>`, i, i, i, i, i)
	}
	rss.WriteString(`</channel></rss>`)
	atom.WriteString(`</feed>`)
	feeds = append(feeds, []byte(rss.String()), []byte(atom.String()),
		[]byte(`{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"1","content_html":"<p>a</p>","url":"/a","date_published":"2026-11-23T10:00:00Z"},{"id":2,"content_text":"b","tags":["x"]}]}`))
	return pages, feeds
}

// snippets are what the mutations inject: markup that opens, closes or
// confuses annotations, comments, CDATA sections, scripts and entities.
var snippets = []string{
	"<", ">", "&", `"`, "'", "<!--", "-->", "<!-- <item:title> -->", "<!-- </item:title> -->",
	`<!-- <item:description index="99999999999999999999"> -->`, `<!-- <item:link index="1"> -->`, "<!-- <channel:title> -->",
	`<!-- <item:extension index="1" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"> -->`,
	"<script>", "</script>", "<style>", "<textarea>", "<title>", "<![CDATA[", "]]>", "<?xml version='1.0'?>",
	`<!DOCTYPE rss [<!ENTITY a "&b;&b;"><!ENTITY b "&c;&c;"><!ENTITY c "x">]>`, "&a;", "&nbsp;", "&#0;", "&#x10FFFF;", "&#99999999;",
	"&#xD800;", "</channel>", "<item>", "</item>", "<entry>", "</feed>", "</rss>", `<a href="javascript:alert(1)">`,
	`<img src=x onerror=alert(1)>`, `<base href="//evil.example/">`, `<meta charset="utf-16">`, `<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">`,
	`<?xml version="1.0" encoding="koi8-r"?>`, "\xef\xbb\xbf", "\xfe\xff", "\xff\xfe", `xmlns:dc="x"`, `xmlns=""`, `{"`, `":`, "[", "]", "{", "}", `\u0000`, `\ud800`,
}

// mutation changes a document; name says which, for the report.
type mutation struct {
	name string
	fn   func(r *rand.Rand, doc []byte) []byte
}

func at(r *rand.Rand, doc []byte) int {
	if len(doc) == 0 {
		return 0
	}
	return r.IntN(len(doc) + 1)
}

func insert(doc []byte, pos int, s string) []byte {
	out := make([]byte, 0, len(doc)+len(s))
	out = append(out, doc[:pos]...)
	out = append(out, s...)
	return append(out, doc[pos:]...)
}

var mutations = []mutation{
	{"truncate", func(r *rand.Rand, doc []byte) []byte { return slices.Clone(doc[:at(r, doc)]) }},
	{"flip bytes", func(r *rand.Rand, doc []byte) []byte {
		out := slices.Clone(doc)
		for range 1 + r.IntN(16) {
			if len(out) > 0 {
				out[r.IntN(len(out))] = byte(r.IntN(256))
			}
		}
		return out
	}},
	{"inject snippets", func(r *rand.Rand, doc []byte) []byte {
		for range 1 + r.IntN(8) {
			doc = insert(doc, at(r, doc), snippets[r.IntN(len(snippets))])
		}
		return doc
	}},
	{"delete a span", func(r *rand.Rand, doc []byte) []byte {
		i := at(r, doc)
		j := min(len(doc), i+r.IntN(200))
		return append(slices.Clone(doc[:i]), doc[j:]...)
	}},
	{"repeat a span", func(r *rand.Rand, doc []byte) []byte {
		i := at(r, doc)
		j := min(len(doc), i+1+r.IntN(100))
		return insert(doc, j, strings.Repeat(string(doc[i:j]), 1+r.IntN(2000)))
	}},
	{"huge attribute", func(r *rand.Rand, doc []byte) []byte {
		attr := fmt.Sprintf(` x%d="%s" href="%s"`, r.IntN(9), strings.Repeat("a", 1+r.IntN(200_000)), strings.Repeat("/%zz", r.IntN(10_000)))
		from := at(r, doc)
		if i := bytes.IndexByte(doc[from:], '>'); i >= 0 {
			return insert(doc, from+i, attr)
		}
		return append(doc, "<a"+attr+">"...)
	}},
	{"deep nesting", func(r *rand.Rand, doc []byte) []byte {
		n := 1 + r.IntN(20_000)
		open, closeTag := []string{"<div>", "<b>", "<item>", "<entry>", "<content type=\"xhtml\">", "[", `{"a":`}[r.IntN(7)], ""
		if r.IntN(2) == 0 {
			closeTag = map[string]string{"<div>": "</div>", "<b>": "</b>", "<item>": "</item>", "<entry>": "</entry>",
				"<content type=\"xhtml\">": "</content>", "[": "]", `{"a":`: "}"}[open]
		}
		pos := at(r, doc)
		return insert(doc, pos, strings.Repeat(open, n)+"x"+strings.Repeat(closeTag, n))
	}},
	{"invalid UTF-8", func(r *rand.Rand, doc []byte) []byte {
		bad := []string{"\xff", "\xfe\xfe", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\x80\x80\x80"}
		for range 1 + r.IntN(10) {
			doc = insert(doc, at(r, doc), bad[r.IntN(len(bad))])
		}
		return doc
	}},
	{"control characters", func(r *rand.Rand, doc []byte) []byte {
		for range 1 + r.IntN(20) {
			c := byte(r.IntN(32))
			if r.IntN(4) == 0 {
				c = 0x7f
			}
			doc = insert(doc, at(r, doc), string([]byte{c}))
		}
		return doc
	}},
	{"entity bomb", func(r *rand.Rand, doc []byte) []byte {
		bombs := []string{
			`<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>`,
			`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd"><!ENTITY f SYSTEM "http://127.0.0.1:1/">]>`,
		}
		doc = insert(doc, 0, bombs[r.IntN(len(bombs))])
		refs := []string{"&lol9;", "&e;", "&f;", strings.Repeat("&amp;", 50_000), strings.Repeat("&#x41;", 50_000), strings.Repeat("&lol9;", 100)}
		for range 1 + r.IntN(4) {
			doc = insert(doc, at(r, doc), refs[r.IntN(len(refs))])
		}
		return doc
	}},
	{"splice", func(r *rand.Rand, doc []byte) []byte {
		i := at(r, doc)
		return append(slices.Clone(doc[i:]), doc[:i]...)
	}},
}

// contentTypes are what the origin claims to send.
var contentTypes = []string{"", "text/html", "text/html; charset=utf-8", "text/html; charset=iso-8859-1", "text/html; charset=utf-16",
	"text/html; charset=shift_jis", "text/html; charset=bogus", "application/rss+xml", "application/atom+xml; charset=koi8-r",
	"application/feed+json", "application/json", "text/xml; charset=utf-8", "image/png"}

// corpusDoc is one generated document.
type corpusDoc struct {
	n    int
	base string
	muts []string
	ct   string
	body []byte
}

func (d corpusDoc) String() string {
	return fmt.Sprintf("document %d (%s, %s, Content-Type %q, %d bytes)", d.n, d.base, strings.Join(d.muts, " + "), d.ct, len(d.body))
}

// generateCorpus makes n documents from the bases, each with one to three
// mutations.
func generateCorpus(pages, feeds [][]byte, n int) func(i int) corpusDoc {
	return func(i int) corpusDoc {
		r := rand.New(rand.NewPCG(corpusSeed, uint64(i)))
		d := corpusDoc{n: i, ct: contentTypes[r.IntN(len(contentTypes))]}
		if i%2 == 0 {
			k := r.IntN(len(pages))
			d.base, d.body = fmt.Sprintf("page %d", k), slices.Clone(pages[k])
		} else {
			k := r.IntN(len(feeds))
			d.base, d.body = fmt.Sprintf("feed %d", k), slices.Clone(feeds[k])
		}
		for range 1 + r.IntN(3) {
			m := mutations[r.IntN(len(mutations))]
			d.muts = append(d.muts, m.name)
			d.body = m.fn(r, d.body)
		}
		return d
	}
}

// corpusOutputs is what one document produced, for the external check.
type corpusOutputs map[string][]byte

// processDoc runs one document through the wrapper, the feed parser and
// every format, checking each output; it returns the outputs or the first
// problem.
func processDoc(d corpusDoc) (out corpusOutputs, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	out = corpusOutputs{}
	const pageURL = "http://corpus.example/dir/page.html?q=1"
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	res := wrapper.Wrap(d.body, wrapper.Options{URL: pageURL, RSSID: "corpus", ContentType: d.ct, Now: now})
	if res == nil || res.Resource == nil {
		return nil, errors.New("wrapper.Wrap returned no resource")
	}
	if err := renderAll(res.Resource, "wrap", out); err != nil {
		return nil, err
	}
	if fr, ferr := nativefeed.Parse(d.body, d.ct, nativefeed.Options{URL: pageURL, RSSID: "corpus", Now: now}); ferr == nil {
		if err := renderAll(fr.Resource, "feed", out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// renderAll renders r in every format and checks each document.
func renderAll(r *dynamo.Resource, from string, out corpusOutputs) error {
	for _, f := range transform.Formats() {
		var buf bytes.Buffer
		if err := transform.Render(&buf, r, f, transform.SelfURL("http://dynamo.example/resources/corpus?type="+string(f))); err != nil {
			return fmt.Errorf("%s → %s: %v", from, f, err)
		}
		doc := buf.Bytes()
		if f == transform.JSON {
			if err := validJSONFeed(doc); err != nil {
				return fmt.Errorf("%s → %s: %v", from, f, err)
			}
		} else if err := wellFormed(doc); err != nil {
			return fmt.Errorf("%s → %s: %v", from, f, err)
		}
		out[from+"."+string(f)] = doc
	}
	return nil
}

// wellFormed reads every token of doc with encoding/xml (nesting, syntax,
// characters) and checks that every prefix used is declared.
func wellFormed(doc []byte) error {
	if !utf8.Valid(doc) {
		return errors.New("not UTF-8")
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	var scopes []map[string]bool
	declared := func(prefix string) bool {
		if prefix == "" || prefix == "xml" || prefix == "xmlns" {
			return true
		}
		for i := len(scopes) - 1; i >= 0; i-- {
			if scopes[i][prefix] {
				return true
			}
		}
		return false
	}
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			if len(scopes) != 0 {
				return errors.New("unclosed elements at the end")
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			scope := map[string]bool{}
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" {
					scope[a.Name.Local] = true
				}
			}
			scopes = append(scopes, scope)
			if !declared(tok.Name.Space) {
				return fmt.Errorf("element prefix %q undeclared", tok.Name.Space)
			}
			for _, a := range tok.Attr {
				if !declared(a.Name.Space) {
					return fmt.Errorf("attribute prefix %q undeclared", a.Name.Space)
				}
			}
		case xml.EndElement:
			if len(scopes) == 0 {
				return errors.New("end tag without start")
			}
			scopes = scopes[:len(scopes)-1]
		}
	}
}

// validJSONFeed checks that doc is JSON with what JSON Feed 1.1 requires.
func validJSONFeed(doc []byte) error {
	var feed struct {
		Version string `json:"version"`
		Title   string `json:"title"`
		Items   []struct {
			ID          string `json:"id"`
			ContentHTML string `json:"content_html"`
			ContentText string `json:"content_text"`
		} `json:"items"`
	}
	if !utf8.Valid(doc) {
		return errors.New("not UTF-8")
	}
	if err := json.Unmarshal(doc, &feed); err != nil {
		return fmt.Errorf("not JSON Feed: %v", err)
	}
	if feed.Version != "https://jsonfeed.org/version/1.1" || feed.Title == "" || feed.Items == nil {
		return fmt.Errorf("version %q, title %q, items %v", feed.Version, feed.Title, feed.Items != nil)
	}
	for i, it := range feed.Items {
		if it.ID == "" || it.ContentHTML == "" && it.ContentText == "" {
			return fmt.Errorf("item %d has no id or no content", i)
		}
	}
	return nil
}

// TestHostileCorpus runs thousands of mutated annotated pages and feeds,
// the same ones every run (fixed seed), through the wrapper, the feed
// parser and every output format. Nothing may panic, each document must be
// done within a generous deadline, and every output must be well-formed
// XML or valid JSON Feed; a sample of the XML outputs is also checked by
// xmllint. The slowest documents are reported.
func TestHostileCorpus(t *testing.T) {
	n, deadline := 2000, 10*time.Second
	if longRun() {
		n = 30000
	}
	pages, feeds := corpusBases(t)
	gen := generateCorpus(pages, feeds, n)
	sampleDir := t.TempDir()
	var sampled []string
	type timing struct {
		took time.Duration
		doc  string
	}
	var slowest []timing
	var total time.Duration
	var bytesIn int64
	failures, asFeeds := 0, 0
	for i := range n {
		d := gen(i)
		bytesIn += int64(len(d.body))
		type result struct {
			out corpusOutputs
			err error
		}
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			out, err := processDoc(d)
			done <- result{out, err}
		}()
		var res result
		select {
		case res = <-done:
		case <-time.After(deadline):
			t.Fatalf("%v: not done within %s", d, deadline)
		}
		took := time.Since(start)
		total += took
		slowest = append(slowest, timing{took, d.String()})
		slices.SortFunc(slowest, func(a, b timing) int { return int(b.took - a.took) })
		slowest = slowest[:min(len(slowest), 5)]
		if res.err != nil {
			failures++
			t.Errorf("%v: %v", d, res.err)
			if failures >= 10 {
				t.Fatal("too many failures")
			}
			continue
		}
		if _, ok := res.out["feed.rss2"]; ok {
			asFeeds++
		}
		if i%15 == 0 {
			for name, doc := range res.out {
				if strings.HasSuffix(name, ".json") {
					continue
				}
				path := filepath.Join(sampleDir, fmt.Sprintf("%05d.%s.xml", i, name))
				if err := os.WriteFile(path, doc, 0o644); err != nil {
					t.Fatal(err)
				}
				sampled = append(sampled, path)
			}
		}
	}
	t.Logf("%d documents (%.1f MB; %d still read as feeds) in %s, %.2f ms each on average; slowest:", n, float64(bytesIn)/1e6,
		asFeeds, total.Round(time.Millisecond), float64(total.Microseconds())/float64(n)/1000)
	for _, s := range slowest {
		t.Logf("  %8s  %s", s.took.Round(time.Millisecond), s.doc)
	}
	// The external check: xmllint reads a sample of every XML output.
	for len(sampled) > 0 {
		batch := sampled[:min(len(sampled), 200)]
		sampled = sampled[len(batch):]
		out, err := exec.Command("/usr/bin/xmllint", append([]string{"--noout", "--nonet"}, batch...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("xmllint on the sampled outputs: %v\n%.4000s", err, out)
		}
	}
}
