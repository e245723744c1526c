package transform

import (
	"net/url"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

func TestAbsoluteURL(t *testing.T) {
	base, _ := url.Parse("https://example.com/news/index.html")
	tests := []struct {
		in   string
		base *url.URL
		want string
	}{
		{"https://example.com/a", nil, "https://example.com/a"},
		{"  HTTP://Example.com/a  ", nil, "http://Example.com/a"},
		{"2.html?a=1&b=2", base, "https://example.com/news/2.html?a=1&b=2"},
		{"/root#frag", base, "https://example.com/root#frag"},
		{"//cdn.example.net/x.png", base, "https://cdn.example.net/x.png"},
		{"relative.html", nil, ""},
		{"", base, ""},
		{" \t\n", base, ""},
		{"http://exa mple.com/", nil, ""},
		{"http:no-host", nil, ""},
		{"javascript:alert(1)", base, ""},
		{"JavaScript:alert(1)", base, ""},
		{"vbscript:x", base, ""},
		{"data:text/html,<script>", base, ""},
		{"mailto:someone@example.com", nil, "mailto:someone@example.com"},
		{"urn:isbn:0451450523", nil, "urn:isbn:0451450523"},
		{"https://example.com/a b\"c<d>e", nil, "https://example.com/a%20b%22c%3Cd%3Ee"},
		{"https://example.com/%zz%41", nil, "https://example.com/%25zz%41"},
		{"https://example.com/x?q=a b&c=\x00d", nil, "https://example.com/x?q=a%20b&c=d"},
		{"http://bücher.example:8080/ö", nil, "http://xn--bcher-kva.example:8080/%C3%B6"},
		{"https://example.com/\xff", nil, "https://example.com/%EF%BF%BD"},
		{"https://[::1]:80/x", nil, "https://[::1]:80/x"},
		{"https://[::1/x", nil, ""},
	}
	for _, tt := range tests {
		if got := absoluteURL(tt.in, tt.base); got != tt.want {
			t.Errorf("absoluteURL(%q, %v) = %q, want %q", tt.in, tt.base, got, tt.want)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00 esc\x1b del\x7f", "nul esc del\x7f"},
		{"non\uFFFEchar\uFFFF", "nonchar"},
		{"bad \xff\xfe utf8", "bad \uFFFD\uFFFD utf8"},
		{"surrogate \xed\xa0\x80", "surrogate \uFFFD\uFFFD\uFFFD"},
		{"astral 𝄞 ok", "astral 𝄞 ok"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLanguageTag(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"en"}, "en"},
		{[]string{"en-US"}, "en-US"},
		{[]string{"en_us"}, "en-us"},
		{[]string{"zh-Hant-TW"}, "zh-Hant-TW"},
		{[]string{"English", "fr"}, "English"},
		{[]string{"not a tag", "de-CH"}, "de-CH"},
		{[]string{"1en"}, ""},
		{[]string{"toolonglanguage"}, ""},
		{[]string{"en-"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := languageTag(tt.in); got != tt.want {
			t.Errorf("languageTag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFeedDate(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		in   time.Time
		ok   bool
		want string // RFC 3339, "" for the zero time
	}{
		{time.Date(2005, 12, 8, 8, 25, 0, 999, cet), true, "2005-12-08T08:25:00+01:00"},
		{time.Date(2005, 12, 8, 8, 25, 0, 0, time.UTC), false, ""},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), true, ""},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), true, ""},
		{time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -5*3600)), true, ""}, // year 10000 in UTC
		{time.Date(1, 1, 1, 0, 30, 0, 0, cet), true, ""},                              // year 0 in UTC
		{time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), true, "0001-01-02T00:00:00Z"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), true, ""}, // Go's zero time: unknown
	}
	for _, tt := range tests {
		got := feedDate(tt.in, tt.ok)
		if s := got.Format(time.RFC3339); got.IsZero() && tt.want != "" || !got.IsZero() && s != tt.want {
			t.Errorf("feedDate(%v, %v) = %v, want %q", tt.in, tt.ok, got, tt.want)
		}
	}
}

// TestIDs checks the name-based UUIDs against Python's uuid module, an
// independent implementation of RFC 9562:
// uuid.uuid5(uuid.NAMESPACE_URL, "https://dynamo-feeds.github.io/ns/1.0") and
// uuid5 of that namespace with the names below.
func TestIDs(t *testing.T) {
	if got := uuidURN(idNamespace); got != "urn:uuid:c646a04f-08f1-5e63-b62a-7bff035dd240" {
		t.Errorf("namespace = %s", got)
	}
	r := &dynamo.Resource{RSSID: "example-news"}
	if got := feedID(r); got != "urn:uuid:5ff1785e-008d-5761-a5f4-a77b522102e2" {
		t.Errorf("feed id = %s", got)
	}
	it := &dynamo.Item{ID: "8d3f0c1e2b4a59687766554433221100"}
	if got := entryID("example-news", it); got != "urn:uuid:193f337d-cb0e-5f2a-b2bd-adab5c3f596e" {
		t.Errorf("entry id = %s", got)
	}
	// An item without an id is named as the wrapper would name it.
	noID := &dynamo.Item{Link: "https://example.com/1"}
	withID := &dynamo.Item{ID: dynamo.ItemID("https://example.com/1", true, "", "")}
	if entryID("c", noID) != entryID("c", withID) {
		t.Error("an item without an id is not named by its link")
	}
}

func TestEscapeIRIKeepsUnicode(t *testing.T) {
	if got := escapeIRI("http://bücher.example/a b"); got != "http://bücher.example/a%20b" {
		t.Errorf("escapeIRI = %q", got)
	}
	same := "https://example.com/ok?a=1#x"
	if got := escapeURI(same); got != same {
		t.Errorf("escapeURI changed a valid URI: %q", got)
	}
}

// FuzzPlainHTTPURL: a URL absoluteURL returns without parsing
// (isPlainHTTPURL) is what parsing and resolving it gives, with or without
// a base.
func FuzzPlainHTTPURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a/b.html?x=1&y=2", "http://127.0.0.1:8080/story/1", "http://a", "https://a:/",
		"http://a/./b/../c", "http://a//b", "http://a?b", "http://a/b;c=d@e:f", "http://A.B-c/~x_y", "http://a:0", "http:///x", "http://a:b"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://example.com/news/index.html")
	f.Fuzz(func(t *testing.T, s string) {
		if !isPlainHTTPURL(s) {
			return
		}
		for _, b := range []*url.URL{nil, base} {
			if got := resolveURL(s, b); got != s {
				t.Errorf("resolveURL(%q, %v) = %q, but isPlainHTTPURL says it is kept", s, b, got)
			}
		}
	})
}
