package websub_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/websub"
)

func TestDiscover(t *testing.T) {
	const base = "https://site.example/blog/feed"
	cases := []struct {
		name        string
		headers     []string
		body        string
		contentType string
		want        websub.Links
	}{
		{"link headers", []string{`<https://hub.example/>; rel="hub", <https://site.example/feed>; rel="self"`}, "", "text/html",
			websub.Links{Hub: "https://hub.example/", Self: "https://site.example/feed"}},
		{"link headers apart, rel list, relative", []string{`<https://hub.example/a>; rel="hub"`, `</feed.xml>; title="x, y"; rel="alternate self"`}, "", "",
			websub.Links{Hub: "https://hub.example/a", Self: "https://site.example/feed.xml"}},
		{"headers win over the document", []string{`<https://hub1.example/>; rel=hub`},
			`<feed xmlns="http://www.w3.org/2005/Atom"><link rel="hub" href="https://hub2.example/"/><link rel="self" href="https://site.example/atom"/></feed>`, "application/atom+xml",
			websub.Links{Hub: "https://hub1.example/", Self: "https://site.example/atom"}},
		{"atom", nil, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link rel="self" href="/atom"/><link rel="hub" href="https://pubsubhubbub.appspot.com/"/><entry><link rel="hub" href="https://evil.example/"/></entry></feed>`, "application/atom+xml",
			websub.Links{Hub: "https://pubsubhubbub.appspot.com/", Self: "https://site.example/atom"}},
		{"rss atom:link", nil, `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title><atom:link rel="hub" href="https://hub.example/"/><atom:link href="https://site.example/rss" rel="self" type="application/rss+xml"/></channel></rss>`, "application/rss+xml",
			websub.Links{Hub: "https://hub.example/", Self: "https://site.example/rss"}},
		{"rss item links ignored", nil, `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><item><atom:link rel="hub" href="https://evil.example/"/></item></channel></rss>`, "application/rss+xml",
			websub.Links{}},
		{"plain link elements are not atom", nil, `<rss version="2.0"><channel><link rel="hub" href="https://hub.example/"/></channel></rss>`, "text/xml", websub.Links{}},
		{"html head", nil, `<!doctype html><html><head><title>x</title><link rel="hub" href="https://hub.example/"><link rel=self href="/blog/"></head><body></body></html>`, "text/html",
			websub.Links{Hub: "https://hub.example/", Self: "https://site.example/blog/"}},
		{"html body ignored (§8.1)", nil, `<html><head><title>x</title></head><body><link rel="hub" href="https://evil.example/"></body></html>`, "text/html; charset=utf-8",
			websub.Links{}},
		{"json feed", nil, `{"version":"https://jsonfeed.org/version/1.1","feed_url":"https://site.example/feed.json","hubs":[{"type":"rssCloud","url":"https://cloud.example/"},{"type":"WebSub","url":"https://hub.example/"}]}`, "application/feed+json",
			websub.Links{Hub: "https://hub.example/", Self: "https://site.example/feed.json"}},
		{"non-http hub ignored", []string{`<javascript:alert(1)>; rel="hub"`, `<ftp://hub.example/>; rel=hub`}, "", "", websub.Links{}},
		{"broken xml", nil, `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="hub" href="https://hub.example/"/><oops`, "", websub.Links{Hub: "https://hub.example/"}},
	}
	for _, c := range cases {
		if got := websub.Discover(c.headers, []byte(c.body), c.contentType, base); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestParseLinkHeader(t *testing.T) {
	got := websub.ParseLinkHeader(`<https://a.example/x,y>; rel="hub self"; title="a; b, c", <https://b.example/>;rel=next,<c>`)
	want := []websub.Link{
		{URL: "https://a.example/x,y", Rels: []string{"hub", "self"}},
		{URL: "https://b.example/", Rels: []string{"next"}},
		{URL: "c"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestVerify(t *testing.T) {
	body := []byte("<feed/>")
	mac := func(h func() interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}) string {
		m := h()
		m.Write(body)
		return hex.EncodeToString(m.Sum(nil))
	}
	sha512sig := mac(func() interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	} {
		return hmac.New(sha512.New, []byte("k"))
	})
	sha1sig := mac(func() interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	} {
		return hmac.New(sha1.New, []byte("k"))
	})
	cases := []struct {
		header string
		want   error
	}{
		{websub.Sign("k", body), nil},
		{"SHA512=" + sha512sig, nil},
		{"sha1=" + sha1sig, websub.ErrBadSignature}, // §8.3: SHA-256 at least
		{"", websub.ErrNoSignature},
		{websub.Sign("other", body), websub.ErrBadSignature},
		{"sha256=zz", websub.ErrBadSignature},
		{"sha256", websub.ErrBadSignature},
		{"md5=" + sha1sig, websub.ErrBadSignature},
	}
	for _, c := range cases {
		if err := websub.Verify("k", c.header, body); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Verify(%q) = %v, want %v", c.header, err, c.want)
		}
	}
}

// FuzzDiscover: no input crashes discovery, and what it finds are absolute
// http(s) URLs.
func FuzzDiscover(f *testing.F) {
	f.Add(`<https://hub.example/>; rel="hub"`, `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="hub" href="/h"/></feed>`, "application/atom+xml")
	f.Add(`<a>;rel="self, <b>; rel=hub`, `<html><head><link rel="hub" href="//x.example/"></head></html>`, "text/html")
	f.Add(``, `{"hubs":[{"type":"WebSub","url":"https://h.example/"}],"feed_url":"x"}`, "application/json")
	f.Fuzz(func(t *testing.T, header, body, contentType string) {
		links := websub.Discover([]string{header}, []byte(body), contentType, "https://site.example/feed")
		for _, u := range []string{links.Hub, links.Self} {
			if u == "" {
				continue
			}
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				t.Fatalf("found %q", u)
			}
		}
		for _, l := range websub.ParseLinkHeader(header) {
			if strings.Contains(l.URL, ">") {
				t.Fatalf("link URL %q holds the closing bracket", l.URL)
			}
		}
	})
}
