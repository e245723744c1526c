package dynamo_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
)

func sampleResource() *dynamo.Resource {
	return &dynamo.Resource{
		URL:       "http://example.com/news.html",
		RSSID:     "news",
		Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Channel: dynamo.Channel{
			Title:       "Example <News> & \"more\"",
			Link:        "http://example.com/",
			Description: "All the news\x01 that fits",
			Image:       &dynamo.Image{URL: "http://example.com/logo.png", Link: "http://example.com/", Title: "Logo"},
			Extensions: []dynamo.Extension{
				{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "language", Value: "en-us"},
				{URI: "", Prefix: "bad", LocalName: "nouri", Value: "dropped"},
			},
		},
		Items: []dynamo.Item{
			{
				Index: 1, ID: "a1", Title: "First", Link: "http://example.com/1",
				Description: "<p>Hello <b>world</b></p>",
				Extensions: []dynamo.Extension{
					{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2005-12-08T08:25:00-05:00"},
				},
			},
			{Index: 2, ID: "b2", Title: "Second", Link: "http://example.com/news.html#item-2"},
		},
	}
}

func TestResourceXMLIsValidAndRoundTrips(t *testing.T) {
	r := sampleResource()
	doc := r.XML()
	verify.XMLData(t, doc)

	got, err := dynamo.DecodeResource(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleResource()
	want.Channel.Description = "All the news\uFFFD that fits" // XML 1.0 cannot carry U+0001
	want.Channel.Extensions = want.Channel.Extensions[:1]     // the extension without a namespace is left out
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if d, ok := got.Items[0].Date(); !ok || !d.Equal(time.Date(2005, 12, 8, 13, 25, 0, 0, time.UTC)) {
		t.Errorf("item date = %v, %v", d, ok)
	}
	if _, ok := got.Items[1].Date(); ok {
		t.Error("an item without a date extension has a date")
	}
}

func TestDecodeResourceRejectsGarbage(t *testing.T) {
	for _, doc := range []string{"", "<resource", "<feed/>", `<resource timestamp="yesterday"><channel/></resource>`} {
		if _, err := dynamo.DecodeResource([]byte(doc)); err == nil {
			t.Errorf("DecodeResource(%q) succeeded", doc)
		}
	}
}

func TestExtensionValid(t *testing.T) {
	tests := []struct {
		ext  dynamo.Extension
		want string // substring of the error, "" for valid
	}{
		{dynamo.Extension{URI: "u", Prefix: "dc", LocalName: "date"}, ""},
		{dynamo.Extension{URI: "u", Prefix: "my-ns.x", LocalName: "a_b"}, ""},
		{dynamo.Extension{Prefix: "dc", LocalName: "date"}, "no namespace"},
		{dynamo.Extension{URI: "u", Prefix: "1dc", LocalName: "date"}, "prefix"},
		{dynamo.Extension{URI: "u", Prefix: "xmlfoo", LocalName: "date"}, "reserved"},
		{dynamo.Extension{URI: "u", Prefix: "dc", LocalName: "da te"}, "localName"},
		{dynamo.Extension{URI: "u", Prefix: "dc", LocalName: ""}, "localName"},
	}
	for _, tt := range tests {
		err := tt.ext.Valid()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v.Valid() = %v, want %q", tt.ext, err, tt.want)
		}
	}
}

func TestItemIDStableAndDistinct(t *testing.T) {
	own := dynamo.ItemID("http://x/1", true, "Title", "Desc")
	if own != dynamo.ItemID(" http://x/1 ", true, "Other title", "Other") {
		t.Error("an item with its own link changed id when its title changed")
	}
	content := dynamo.ItemID("http://page#item-1", false, "Title  here", "Desc")
	if content != dynamo.ItemID("http://page#item-2", false, "Title here", " Desc") {
		t.Error("an item without its own link changed id with whitespace or its default link")
	}
	if content == dynamo.ItemID("", false, "Title here", "Desc 2") {
		t.Error("different descriptions gave one id")
	}
	if dynamo.ItemID("ab", false, "c", "") == dynamo.ItemID("a", false, "bc", "") {
		t.Error("field boundaries are ambiguous")
	}
}

func TestContentHashCountsOnlyInformationalContent(t *testing.T) {
	base := dynamo.ContentHash(sampleResource())
	same := sampleResource()
	same.Timestamp = time.Now()
	same.Channel.Extensions = nil
	same.Items[0].Extensions = nil
	same.Channel.Image = nil
	if dynamo.ContentHash(same) != base {
		t.Error("timestamp, image or extensions changed the content hash")
	}
	for name, change := range map[string]func(r *dynamo.Resource){
		"channel title": func(r *dynamo.Resource) { r.Channel.Title += "!" },
		"item link":     func(r *dynamo.Resource) { r.Items[1].Link = "http://example.com/2" },
		"description":   func(r *dynamo.Resource) { r.Items[0].Description = "" },
		"item order":    func(r *dynamo.Resource) { r.Items[0], r.Items[1] = r.Items[1], r.Items[0] },
		"item added":    func(r *dynamo.Resource) { r.Items = append(r.Items, dynamo.Item{Title: "x"}) },
	} {
		r := sampleResource()
		change(r)
		if dynamo.ContentHash(r) == base {
			t.Errorf("changing the %s left the content hash alone", name)
		}
	}
}
