package transform_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// counted hands the items of a slice, counting the walks over them.
func counted(items []dynamo.Item, walks *int) transform.Items {
	return func(yield func(*dynamo.Item) error) error {
		*walks++
		for i := range items {
			if err := yield(&items[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// streamOf makes the stream of r's items, with r's items left out of the head.
func streamOf(t *testing.T, r *dynamo.Resource, f transform.Format, walks *int, opts ...transform.Option) *transform.Stream {
	t.Helper()
	head := *r
	head.Items = nil
	s, err := transform.NewStream(&head, counted(r.Items, walks), f, opts...)
	if err != nil {
		t.Fatalf("NewStream %s: %v", f, err)
	}
	return s
}

// TestStreamMatchesRender: a streamed document is Render's bytes for the
// same resource, in every format, for every fixture (rich extensions,
// hostile text, duplicate links, huge items, none), reading the items once
// to begin and once to write (twice for RSS 1.0's rdf:Seq).
func TestStreamMatchesRender(t *testing.T) {
	opts := []transform.Option{transform.SelfURL(selfURL), transform.HubURL("https://hub.example.org/"),
		transform.SchemaURL("https://dynamo.example.org/schema/xmldata.xsd")}
	fixtures := []struct {
		name string
		r    *dynamo.Resource
	}{
		{"rich", richResource()}, {"minimal", minimalResource()}, {"empty items", emptyItemsResource()},
		{"hostile", hostileResource()}, {"huge", hugeResource()}, {"bench", benchResource()},
	}
	for _, fx := range fixtures {
		for _, f := range transform.Formats() {
			t.Run(fx.name+"/"+string(f), func(t *testing.T) {
				want := render(t, fx.r, f, opts...)
				walks := 0
				s := streamOf(t, fx.r, f, &walks, opts...)
				var got bytes.Buffer
				if err := s.Write(&got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("streamed %d bytes differ from Render's %d:\n%s\nwant:\n%s", got.Len(), len(want), head(got.Bytes()), head(want))
				}
				wantWalks := 2
				if f == transform.RSS1 {
					wantWalks = 3
				}
				if walks != wantWalks {
					t.Errorf("the items were read %d times, want %d", walks, wantWalks)
				}
			})
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 2000)] }

// TestStreamSum: the digest is the same for the same document and
// options, and moves with the format, an option, the head (its timestamp,
// set after the items were read) and any field of any item.
func TestStreamSum(t *testing.T) {
	walks := 0
	base := streamOf(t, richResource(), transform.Atom, &walks, transform.SelfURL(selfURL)).Sum()
	if again := streamOf(t, richResource(), transform.Atom, &walks, transform.SelfURL(selfURL)).Sum(); again != base {
		t.Fatal("two streams of one document differ in Sum")
	}
	changes := map[string]func() *transform.Stream{
		"format": func() *transform.Stream {
			return streamOf(t, richResource(), transform.RSS2, &walks, transform.SelfURL(selfURL))
		},
		"self URL": func() *transform.Stream {
			return streamOf(t, richResource(), transform.Atom, &walks, transform.SelfURL(selfURL+"&x=1"))
		},
		"hub": func() *transform.Stream {
			return streamOf(t, richResource(), transform.Atom, &walks, transform.SelfURL(selfURL), transform.HubURL("https://hub.example.org/"))
		},
		"an item's title": func() *transform.Stream {
			r := richResource()
			r.Items[len(r.Items)-1].Title += "!"
			return streamOf(t, r, transform.Atom, &walks, transform.SelfURL(selfURL))
		},
		"an item's extension": func() *transform.Stream {
			r := richResource()
			r.Items[0].Extensions = append(r.Items[0].Extensions, dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "subject", Value: "x"})
			return streamOf(t, r, transform.Atom, &walks, transform.SelfURL(selfURL))
		},
		"an item less": func() *transform.Stream {
			r := richResource()
			r.Items = r.Items[:len(r.Items)-1]
			return streamOf(t, r, transform.Atom, &walks, transform.SelfURL(selfURL))
		},
	}
	for name, make := range changes {
		if make().Sum() == base {
			t.Errorf("%s changed and Sum did not", name)
		}
	}
	// The head is read when Sum is called: a listing dated by its items.
	r := richResource()
	head := *r
	head.Items = nil
	s, err := transform.NewStream(&head, counted(r.Items, &walks), transform.Atom, transform.SelfURL(selfURL))
	if err != nil {
		t.Fatal(err)
	}
	before := s.Sum()
	head.Timestamp = head.Timestamp.Add(time.Hour)
	if s.Sum() == before {
		t.Error("the head's timestamp changed after NewStream and Sum did not")
	}
}

// TestStreamItemsChanged: items that change between the two readings are
// written as they are then, an undeclared extension namespace declared on
// its element; an item needing a namespace of the format that the root
// element lacks (a picture where none had one) stops the writing with an
// error rather than writing a document that is not well-formed.
func TestStreamItemsChanged(t *testing.T) {
	item := dynamo.Item{Index: 1, ID: "a", Title: "A", Link: "https://example.com/a"}
	newcomer := dynamo.Extension{URI: "https://ns.example.org/x", Prefix: "x", LocalName: "note", Value: "late"}
	for _, tc := range []struct {
		name    string
		change  func(*dynamo.Item)
		wantErr bool
		want    string
	}{
		{"extension", func(it *dynamo.Item) { it.Extensions = append(it.Extensions, newcomer) }, false,
			`<x:note xmlns:x="https://ns.example.org/x">late</x:note>`},
		{"picture", func(it *dynamo.Item) { it.Image = &dynamo.Image{URL: "https://example.com/a.png"} }, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walks := 0
			items := func(yield func(*dynamo.Item) error) error {
				walks++
				it := item
				if walks > 1 {
					tc.change(&it)
				}
				return yield(&it)
			}
			head := &dynamo.Resource{URL: "https://example.com/", RSSID: "c", Channel: dynamo.Channel{Title: "C"}}
			s, err := transform.NewStream(head, items, transform.RSS2)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = s.Write(&out)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error; wrote:\n%s", out.Bytes())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("no %s in:\n%s", tc.want, out.Bytes())
			}
		})
	}
}

// TestStreamItemsError: an error reading the items is NewStream's or
// Write's, wrapped.
func TestStreamItemsError(t *testing.T) {
	boom := errors.New("store gone")
	walks := 0
	items := func(yield func(*dynamo.Item) error) error {
		walks++
		if walks == 2 {
			return boom
		}
		return yield(&dynamo.Item{Index: 1, ID: "a", Title: "A"})
	}
	head := &dynamo.Resource{RSSID: "c"}
	for _, f := range transform.Formats() {
		walks = 0
		s, err := transform.NewStream(head, items, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(&bytes.Buffer{}); !errors.Is(err, boom) {
			t.Errorf("%s: Write: %v, want the items' error", f, err)
		}
	}
	if _, err := transform.NewStream(head, func(func(*dynamo.Item) error) error { return boom }, transform.Atom); !errors.Is(err, boom) {
		t.Errorf("NewStream: %v, want the items' error", err)
	}
	if _, err := transform.NewStream(head, items, "rss3"); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("NewStream of an unknown format: %v, want ErrInvalid", err)
	}
}
