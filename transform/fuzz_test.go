package transform_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// FuzzRender renders resources built from random fields in every format: the
// XML must be well-formed with every prefix declared, the JSON valid with
// the members JSON Feed 1.1 requires, a Stream of the same items must write
// the same bytes, and nothing may panic.
func FuzzRender(f *testing.F) {
	f.Add("Title", "https://example.com/", "<p>desc</p>", "Item", "1.html", "<b>x</b>",
		"dc", "date", dynamo.NamespaceDC, "2005-12-08T08:25:00+01:00", "https://example.com/i.png", "https://dynamo.example/r", int64(1767225600))
	f.Add("<script>\x00", "javascript:x", "]]>\xff", "", "http://exa mple.com/ä", "\x1b]]>",
		"xml", "lang", "http://www.w3.org/XML/1998/namespace", "\uFFFE", "data:x", "relative", int64(-1<<62))
	f.Add("", "", "", "", "", "", "atom", "title", "http://www.w3.org/2005/Atom", "x", "", "", int64(0))
	f.Add("t", "%", "d", "i", "%zz", "d", "content", "encoded", dynamo.NamespaceContent, "<p>", "//x", "mailto:a@b", int64(253402300800))
	f.Fuzz(func(t *testing.T, title, link, desc, itemTitle, itemLink, itemDesc, prefix, localName, uri, value, imageURL, self string, ts int64) {
		ext := dynamo.Extension{URI: uri, Prefix: prefix, LocalName: localName, Value: value}
		date := dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: value}
		r := &dynamo.Resource{
			URL: link, RSSID: title, Timestamp: time.Unix(ts, 0),
			Channel: dynamo.Channel{
				Title: title, Link: link, Description: desc,
				Image:      &dynamo.Image{URL: imageURL, Link: link, Title: title},
				Extensions: []dynamo.Extension{ext, date},
			},
			Items: []dynamo.Item{
				{Index: 1, ID: "a", Title: itemTitle, Link: itemLink, Description: itemDesc,
					Image: &dynamo.Image{URL: imageURL}, Extensions: []dynamo.Extension{ext, date}},
				{Index: 2, ID: "b" + itemTitle, Description: desc},
			},
		}
		for _, format := range transform.Formats() {
			var buf bytes.Buffer
			if err := transform.Render(&buf, r, format, transform.SelfURL(self)); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			head := *r
			head.Items = nil
			stream, err := transform.NewStream(&head, func(yield func(*dynamo.Item) error) error {
				for i := range r.Items {
					if err := yield(&r.Items[i]); err != nil {
						return err
					}
				}
				return nil
			}, format, transform.SelfURL(self))
			if err != nil {
				t.Fatalf("%s: NewStream: %v", format, err)
			}
			var streamed bytes.Buffer
			if err := stream.Write(&streamed); err != nil {
				t.Fatalf("%s: Stream.Write: %v", format, err)
			}
			if !bytes.Equal(streamed.Bytes(), buf.Bytes()) {
				t.Fatalf("%s: the stream wrote other bytes than Render:\n%s\nwant:\n%s", format, streamed.Bytes(), buf.Bytes())
			}
			if format == transform.JSON {
				checkJSONFeed(t, buf.Bytes(), len(r.Items))
			} else {
				checkWellFormed(t, format, buf.Bytes())
			}
		}
	})
}

// checkWellFormed reads every token of doc with encoding/xml, which checks
// nesting, syntax and characters, then checks that every element and
// attribute prefix is declared and that no prefix is bound to the xml or
// xmlns namespaces, which encoding/xml does not.
func checkWellFormed(t *testing.T, format transform.Format, doc []byte) {
	t.Helper()
	if !utf8.Valid(doc) {
		t.Fatalf("%s: output is not UTF-8", format)
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed: %v\n%s", format, err, doc)
		}
	}
	raw := xml.NewDecoder(bytes.NewReader(doc))
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
		tok, err := raw.RawToken()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			scope := map[string]bool{}
			seen := map[xml.Name]bool{}
			for _, a := range tok.Attr {
				if seen[a.Name] {
					t.Fatalf("%s: attribute %s:%s repeated\n%s", format, a.Name.Space, a.Name.Local, doc)
				}
				seen[a.Name] = true
				if a.Name.Space == "xmlns" {
					if a.Value == "" || a.Value == "http://www.w3.org/XML/1998/namespace" || a.Value == "http://www.w3.org/2000/xmlns/" {
						t.Fatalf("%s: prefix %s bound to %q\n%s", format, a.Name.Local, a.Value, doc)
					}
					scope[a.Name.Local] = true
				}
			}
			scopes = append(scopes, scope)
			if !declared(tok.Name.Space) {
				t.Fatalf("%s: element prefix %q is not declared\n%s", format, tok.Name.Space, doc)
			}
			for _, a := range tok.Attr {
				if !declared(a.Name.Space) {
					t.Fatalf("%s: attribute prefix %q is not declared\n%s", format, a.Name.Space, doc)
				}
			}
		case xml.EndElement:
			scopes = scopes[:len(scopes)-1]
		}
	}
}

// checkJSONFeed checks what JSON Feed 1.1 requires: valid JSON, the version
// URL, a title, an items array, and items with string ids and content.
func checkJSONFeed(t *testing.T, doc []byte, items int) {
	t.Helper()
	if !utf8.Valid(doc) {
		t.Fatal("json: output is not UTF-8")
	}
	var feed struct {
		Version string `json:"version"`
		Title   string `json:"title"`
		Items   []struct {
			ID          string `json:"id"`
			ContentHTML string `json:"content_html"`
			ContentText string `json:"content_text"`
		} `json:"items"`
	}
	if err := json.Unmarshal(doc, &feed); err != nil {
		t.Fatalf("json: %v\n%s", err, doc)
	}
	if feed.Version != "https://jsonfeed.org/version/1.1" || feed.Title == "" || len(feed.Items) != items {
		t.Fatalf("json: version %q, title %q, %d items (want %d)\n%s", feed.Version, feed.Title, len(feed.Items), items, doc)
	}
	for i, it := range feed.Items {
		if it.ID == "" || it.ContentHTML == "" && it.ContentText == "" {
			t.Fatalf("json: item %d has no id or no content\n%s", i, doc)
		}
	}
}
