package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/web"
)

// withAPI serves the pages and the API's feeds on one mux, as dynamo
// serve does, over the env's store.
func withAPI(t *testing.T, e *env, cfg web.Config) *httptest.Server {
	t.Helper()
	a, err := api.New(api.Config{Store: e.store})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = e.store
	h, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	h.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// alternates lists a page's <link rel="alternate"> as type → href.
func alternates(t *testing.T, page string) map[string]string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "link" && attr(n, "rel") == "alternate" {
			out[attr(n, "type")] = attr(n, "href")
		}
	}
	return out
}

// feedparserVersion is what feedparser calls each announced type.
var feedparserVersion = map[string]string{
	"application/rdf+xml":  "rss10",
	"application/rss+xml":  "rss20",
	"application/atom+xml": "atom10",
}

// TestAlternateLinksLeadToFeeds fetches pages and follows the feeds they
// announce with feedparser, which fetches and reads each: a source page's
// archive, the sources list's aggregate, a category's, a search's, the
// categories page's.
func TestAlternateLinksLeadToFeeds(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	srv := withAPI(t, e, web.Config{})
	c := client(t)
	for _, tc := range []struct {
		page  string
		items bool // the feed has entries
	}{
		{"/ui/sources/news", true},
		{"/ui/", true},
		{"/ui/?category=", false},
		{"/ui/search?title=bridge", true},
		{"/ui/categories", true},
	} {
		_, page := get(t, c, srv.URL+tc.page)
		alts := alternates(t, page)
		if len(alts) != 4 {
			t.Errorf("%s announces %d feeds, want 4: %v", tc.page, len(alts), alts)
		}
		for typ, href := range alts {
			u, err := url.Parse(href)
			if err != nil || u.IsAbs() {
				t.Errorf("%s: href %q", tc.page, href)
				continue
			}
			var p verify.Parsed
			if typ == "application/feed+json" {
				// Debian's feedparser reads no JSON Feed: the JSON Feed checker reads it.
				resp, err := c.Get(srv.URL + href)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s → %s: %d", tc.page, href, resp.StatusCode)
					continue
				}
				p = verify.JSONFeed(t, body)
			} else {
				// feedparser fetches the feed itself, with its own Accept
				// header, as a reader following the link would.
				p = verify.FeedURL(t, srv.URL+href, feedparserVersion[typ])
			}
			if tc.items && len(p.Entries) == 0 {
				t.Errorf("%s → %s (%s): no entries", tc.page, href, typ)
			}
		}
	}
}

// TestTimesInTheViewersZone checks the server's display zone, a viewer's
// choice kept in a cookie, the UTC time on hover and items' own dates.
func TestTimesInTheViewersZone(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	paris, _ := time.LoadLocation("Europe/Paris")
	srv := withAPI(t, e, web.Config{DisplayTimezone: paris})
	c := client(t)
	_, page := get(t, c, srv.URL+"/ui/sources/news")
	if !strings.Contains(page, " CET</time>") && !strings.Contains(page, " CEST</time>") {
		t.Errorf("the server's display zone is not used:\n%.3000s", page)
	}
	if !strings.Contains(page, `title="20`) || !strings.Contains(page, ` UTC">`) {
		t.Error("times carry no UTC time on hover")
	}
	if !strings.Contains(page, "posted <time") {
		t.Error("items do not show their own date")
	}
	token := formToken(t, page)
	resp, _ := post(t, c, srv.URL+"/ui/timezone", url.Values{"csrf": {token}, "tz": {"Asia/Tokyo"}, "back": {"/ui/sources/news"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/sources/news" {
		t.Fatalf("choose a zone: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page = get(t, c, srv.URL+"/ui/sources/news")
	if !strings.Contains(page, " JST</time>") || strings.Contains(page, " CET</time>") {
		t.Error("the chosen zone is not used")
	}
	for _, bad := range []url.Values{{"tz": {"Mars/Olympus"}}, {"tz": {"Local"}}} {
		bad.Set("csrf", token)
		if resp, _ := post(t, c, srv.URL+"/ui/timezone", bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("zone %q: %d, want 400", bad.Get("tz"), resp.StatusCode)
		}
	}
	resp, _ = post(t, c, srv.URL+"/ui/timezone", url.Values{"csrf": {token}, "tz": {"UTC"}, "back": {"https://evil.example/"}})
	if resp.Header.Get("Location") != "/ui/" {
		t.Errorf("a foreign back address led to %q", resp.Header.Get("Location"))
	}
}

// TestSearchAcrossSources searches every source by default, the sources
// of one category, and offers the aggregate feed that answers the same.
func TestSearchAcrossSources(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := context.Background()
	blog, err := e.store.Source(ctx, "blog")
	if err != nil {
		t.Fatal(err)
	}
	blog.Category = "personal"
	if err := e.store.UpdateSource(ctx, blog); err != nil {
		t.Fatal(err)
	}
	c := client(t)
	resp, _ := get(t, c, e.srv.URL+"/ui/search?id=&category=&field=link&value=http")
	if resp != http.StatusSeeOther {
		t.Fatalf("the form's search: %d, want a redirect to its address", resp)
	}
	_, page := get(t, c, e.srv.URL+"/ui/search?link=http")
	checkSafe(t, page)
	in := map[string]bool{}
	for _, m := range texts(t, page, "p", "meta") {
		f := strings.Fields(m)
		if len(f) > 1 && f[0] == "in" {
			in[f[1]] = true
		}
	}
	if !in["news"] || !in["blog"] {
		t.Errorf("a search of every source found items in %v, want news and blog", in)
	}
	if rest := texts(t, page, "a", "rest"); len(rest) != 1 || rest[0] != "/aggregate?link=http&max=100&type=rss2" {
		t.Errorf("the search's feed is %q", rest)
	}
	_, page = get(t, c, e.srv.URL+"/ui/search?category=personal&link=http")
	in = map[string]bool{}
	for _, m := range texts(t, page, "p", "meta") {
		if f := strings.Fields(m); len(f) > 1 && f[0] == "in" {
			in[f[1]] = true
		}
	}
	if len(in) != 1 || !in["blog"] {
		t.Errorf("a search of category personal found items in %v, want blog only", in)
	}
	if rest := texts(t, page, "a", "rest"); len(rest) != 1 || rest[0] != "/aggregate?category=personal&link=http&max=100&type=rss2" {
		t.Errorf("the category search's feed is %q", rest)
	}
}

// TestSearchDateRange bounds a search by when items were first seen; the
// feed offered keeps the range, and a bad date is a 400 naming it.
func TestSearchDateRange(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	c := client(t)
	status, _ := get(t, c, e.srv.URL+"/ui/search?id=&category=&field=link&value=http&since=&until=2999-12-31")
	if status != http.StatusSeeOther {
		t.Fatalf("the form's search: %d", status)
	}
	_, page := get(t, c, e.srv.URL+"/ui/search?link=http&until=2999-12-31")
	if n := len(texts(t, page, "p", "meta")); n == 0 {
		t.Error("a range ending in 2999 finds nothing")
	}
	if rest := texts(t, page, "a", "rest"); len(rest) != 1 || rest[0] != "/aggregate?link=http&until=2999-12-31&max=100&type=rss2" {
		t.Errorf("the ranged search's feed is %q", rest)
	}
	_, page = get(t, c, e.srv.URL+"/ui/search?id=news&link=http&since=2999-01-01")
	if h := texts(t, page, "h2", ""); len(h) == 0 || h[0] != "0 items found" {
		t.Errorf("a range starting in 2999 finds %q", h)
	}
	status, page = get(t, c, e.srv.URL+"/ui/search?link=http&since=yesterday")
	if status != http.StatusBadRequest || !strings.Contains(page, "since must be a date") {
		t.Errorf("since=yesterday: %d", status)
	}
}
