package opml_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/opml"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []opml.Entry
	}{
		{
			name: "OPML 2.0 with folders, as feed readers export",
			file: `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>My subscriptions</title><dateCreated>Mon, 02 Mar 2026 10:00:00 GMT</dateCreated></head>
  <body>
    <outline text="Tech" title="Tech">
      <outline type="rss" text="Go Blog" title="The Go Blog" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog/"/>
      <outline text="Databases">
        <outline type="rss" text="PG" xmlUrl="https://www.postgresql.org/news.rss"/>
      </outline>
    </outline>
    <outline type="rss" text="Top level" xmlUrl="https://example.org/feed"/>
    <outline text="A note, not a feed"/>
  </body>
</opml>`,
			want: []opml.Entry{
				{Title: "The Go Blog", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Tech"},
				{Title: "PG", XMLURL: "https://www.postgresql.org/news.rss", Category: "Tech/Databases"},
				{Title: "Top level", XMLURL: "https://example.org/feed"},
			},
		},
		{
			name: "OPML 1.0, no head, names in any case",
			file: `<OPML VERSION="1.0"><BODY>
				<Outline TITLE="News"><OUTLINE TEXT="A" XMLURL="http://a.example/rss" HTMLURL="http://a.example/"></OUTLINE></Outline>
				<outline text="B" xmlurl=" http://b.example/atom "/>
			</BODY></OPML>`,
			want: []opml.Entry{
				{Title: "A", XMLURL: "http://a.example/rss", HTMLURL: "http://a.example/", Category: "News"},
				{Title: "B", XMLURL: "http://b.example/atom"},
			},
		},
		{
			name: "HTML entities, character references, a stray ampersand",
			file: `<opml version="2.0"><body>
				<outline text="Caf&eacute; &amp; Bar&nbsp;News &#8212; &#x263A;" xmlUrl="http://c.example/feed?a=1&b=2"/>
			</body></opml>`,
			want: []opml.Entry{
				{Title: "Café & Bar\u00a0News — ☺", XMLURL: "http://c.example/feed?a=1&b=2"},
			},
		},
		{
			name: "ISO-8859-1 with a byte order mark and a DOCTYPE",
			file: "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!DOCTYPE opml>\n" +
				"<opml version=\"1.1\"><body><outline text=\"Z\xfcrich \xe9t\xe9\" xmlUrl=\"http://z.example/rss\"/></body></opml>",
			want: []opml.Entry{{Title: "Zürich été", XMLURL: "http://z.example/rss"}},
		},
		{
			name: "old url attribute, category attribute, feed with children",
			file: `<opml version="2.0"><body>
				<outline type="rss" text="Old" url="http://old.example/rss.xml"/>
				<outline type="link" text="A web page" url="http://page.example/"/>
				<outline text="Tagged" xmlUrl="http://t.example/feed" category="/Sports/Baseball, /Boston"/>
				<outline text="Folder">
					<outline text="Parent feed" xmlUrl="http://p.example/feed">
						<outline text="Child feed" xmlUrl="http://p.example/child"/>
					</outline>
				</outline>
			</body></opml>`,
			want: []opml.Entry{
				{Title: "Old", XMLURL: "http://old.example/rss.xml"},
				{Title: "Tagged", XMLURL: "http://t.example/feed", Category: "Sports/Baseball"},
				{Title: "Parent feed", XMLURL: "http://p.example/feed", Category: "Folder"},
				{Title: "Child feed", XMLURL: "http://p.example/child", Category: "Folder"},
			},
		},
		{
			name: "outlines left open, as hand-written files do",
			file: `<opml><body><outline text="Cat"><outline text="A" xmlUrl="http://a.example/f"></body></opml>`,
			want: []opml.Entry{{Title: "A", XMLURL: "http://a.example/f", Category: "Cat"}},
		},
		{
			name: "Dynamo attributes, declared or not",
			file: `<opml version="2.0" xmlns:dynamo="` + opml.Namespace + `"><body>
				<outline text="S" xmlUrl="http://s.example/" dynamo:id="s1" dynamo:kind="html" dynamo:interval="15m"/>
				<outline text="T" xmlUrl="http://t.example/" other:x="ignored"/>
			</body></opml>`,
			want: []opml.Entry{
				{Title: "S", XMLURL: "http://s.example/", Extra: map[string]string{"id": "s1", "kind": "html", "interval": "15m"}},
				{Title: "T", XMLURL: "http://t.example/"},
			},
		},
		{
			name: "no subscriptions",
			file: `<opml version="2.0"><head/><body/></opml>`,
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := opml.Parse(strings.NewReader(tt.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("<outline text='x'>", 100)
	tests := []struct {
		name string
		r    io.Reader
		want string // in the error message
	}{
		{"empty", strings.NewReader(""), "empty"},
		{"white space", strings.NewReader(" \n "), "empty"},
		{"plain text", strings.NewReader("http://example.org/feed\n"), "not an OPML document"},
		{"an RSS feed", strings.NewReader(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), "root element is <rss>"},
		{"an HTML page", strings.NewReader(`<!DOCTYPE html><html><body><a href="x.opml">x</a></body></html>`), "root element is <html>"},
		{"truncated", strings.NewReader(`<opml version="2.0"><body><outline text="A" xmlUrl="http://a.example/"/><outline text="B" xml`), "unexpected EOF"},
		{"cut after an outline", strings.NewReader(`<opml version="2.0"><body><outline text="A" xmlUrl="http://a.example/"/>`), "unexpected EOF"},
		{"nested too deep", strings.NewReader("<opml><body>" + deep), "nested more than"},
		{"too large", io.MultiReader(strings.NewReader("<opml><body>"), strings.NewReader(strings.Repeat(" ", opml.MaxSize))), "larger than"},
		{"too many feeds", io.MultiReader(strings.NewReader("<opml><body>"),
			strings.NewReader(strings.Repeat(`<outline xmlUrl="http://x/"/>`, opml.MaxEntries+1)),
			strings.NewReader("</body></opml>")), "more than 100000 feeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := opml.Parse(tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if got != nil {
				t.Errorf("a failed parse returned %d entries", len(got))
			}
		})
	}
}

// readErr is a reader that fails after its data.
type readErr struct{ data io.Reader }

func (r readErr) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("disk on fire")
	}
	return n, err
}

func TestParseReadError(t *testing.T) {
	_, err := opml.Parse(readErr{strings.NewReader(`<opml><body><outline xmlUrl="http://x/"/>`)})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("error %v, want the reader's", err)
	}
}

func TestRoundTrip(t *testing.T) {
	in := []opml.Entry{
		{Title: "Uncategorized & <odd> \"quoted\"", XMLURL: "http://a.example/feed?x=1&y=2"},
		{Title: "Go", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Tech"},
		{Title: "PG", XMLURL: "https://pg.example/rss", Category: " Tech / Databases/ "},
		{Title: "Later top level", XMLURL: "http://b.example/", Extra: map[string]string{"id": "b", "interval": "2h", "title_prefix": "B:\t"}},
		{Title: "Tabs\tand\nnewlines", XMLURL: "http://c.example/", Category: "Tech"},
		{Title: "", XMLURL: "http://untitled.example/", Category: "Ünïcödé/日本"},
	}
	var buf bytes.Buffer
	if err := opml.Write(&buf, in); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got, err := opml.Parse(&buf)
	if err != nil {
		t.Fatalf("Parse of Write's output: %v\n%s", err, buf.String())
	}
	// Write groups by folder: top-level entries, then each folder's.
	want := []opml.Entry{in[0], in[3], in[1], in[4], in[2], in[5]}
	want[4].Category = "Tech/Databases"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip\ngot  %#v\nwant %#v", got, want)
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name  string
		entry opml.Entry
		want  string
	}{
		{"no feed URL", opml.Entry{Title: "x", XMLURL: " "}, "has no xmlUrl"},
		{"bad attribute name", opml.Entry{XMLURL: "http://x/", Extra: map[string]string{"a b": "c"}}, "not an XML attribute name"},
		{"attribute name starting with a digit", opml.Entry{XMLURL: "http://x/", Extra: map[string]string{"1a": "c"}}, "not an XML attribute name"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		err := opml.Write(&buf, []opml.Entry{{XMLURL: "http://ok/"}, tt.entry})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "entry 2") {
			t.Errorf("%s: error %v, want one about entry 2 saying %q", tt.name, err, tt.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: a failed Write wrote %d bytes", tt.name, buf.Len())
		}
	}
}

// sortEntries orders entries by every field, to compare lists whose order
// Write changes.
func sortEntries(es []opml.Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		return fmt.Sprint(es[i]) < fmt.Sprint(es[j])
	})
}

// FuzzParse checks that no input crashes or hangs Parse, and that whatever
// it reads is written and read back unchanged.
func FuzzParse(f *testing.F) {
	f.Add(`<opml version="2.0"><head><title>t</title></head><body><outline text="c"><outline text="a" xmlUrl="http://a/" htmlUrl="http://h/"/></outline></body></opml>`)
	f.Add(`<OPML><BODY><OUTLINE TEXT="Caf&eacute;" XMLURL="x" dynamo:id="i"/></BODY></OPML>`)
	f.Add("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><opml><body><outline text=\"\xe9\" type=\"rss\" url=\"u\" category=\"/a/b,c\"/></body></opml>")
	f.Add(`<opml xmlns:dynamo="` + opml.Namespace + `"><body><outline text="a" xmlUrl="u" dynamo:kind="feed"><outline xmlUrl="v"></body>`)
	f.Add(`<rss><channel/></rss>`)
	f.Fuzz(func(t *testing.T, file string) {
		first, err := opml.Parse(strings.NewReader(file))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := opml.Write(&buf, first); err != nil {
			if strings.Contains(err.Error(), "not an XML attribute name") {
				return // a namespaced attribute with a non-ASCII name
			}
			t.Fatalf("Write of parsed entries: %v", err)
		}
		second, err := opml.Parse(&buf)
		if err != nil {
			t.Fatalf("Parse of Write's output: %v\n%s", err, buf.String())
		}
		sortEntries(first)
		sortEntries(second)
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("round trip changed the entries\nfirst  %#v\nsecond %#v\nwritten\n%s", first, second, buf.String())
		}
	})
}

func ExampleWrite() {
	err := opml.Write(os.Stdout, []opml.Entry{
		{Title: "The Go Blog", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Tech"},
		{Title: "Example", XMLURL: "https://example.org/feed", Extra: map[string]string{"interval": "1h"}},
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <opml version="2.0" xmlns:dynamo="https://github.com/dynamo-feeds/dynamo/ns/opml">
	//   <head>
	//     <title>Dynamo sources</title>
	//   </head>
	//   <body>
	//     <outline type="rss" text="Example" title="Example" xmlUrl="https://example.org/feed" dynamo:interval="1h"/>
	//     <outline type="category" text="Tech" title="Tech">
	//       <outline type="rss" text="The Go Blog" title="The Go Blog" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog/"/>
	//     </outline>
	//   </body>
	// </opml>
}

func ExampleParse() {
	entries, err := opml.Parse(strings.NewReader(`<opml version="1.0"><body>
		<outline text="News"><outline text="Example" xmlUrl="https://example.org/rss"/></outline>
	</body></opml>`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Printf("%s: %s (%s)\n", e.Category, e.Title, e.XMLURL)
	}
	// Output:
	// News: Example (https://example.org/rss)
}
