package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/web"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// hostilePage is an annotated page whose every field tries to run script
// in whoever shows it: entities decode to markup in titles and text.
const hostilePage = `<html><head><title>x</title></head><body>
<!-- <channel:title> -->&lt;script&gt;alert('channel')&lt;/script&gt;<!-- </channel:title> -->
<!-- <item:title index="1"> -->&lt;script&gt;alert(1)&lt;/script&gt; Evil "title"<!-- </item:title> -->
<!-- <item:link index="1"> --><a href="javascript:alert(3)">x</a><!-- </item:link> -->
<!-- <item:description index="1"> -->&lt;img src=x onerror=alert(2)&gt; <img src=y onerror="alert(4)"><script>alert(5)</script>text<!-- </item:description> -->
<!-- <item:title index="2"> -->"><svg onload=alert(6)><!-- </item:title> -->
</body></html>
`

// site is a loopback origin serving the example pages at their paths,
// and pages that tests set.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string]sitePage
}

type sitePage struct {
	body        []byte
	contentType string
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{pages: map[string]sitePage{}}
	for _, p := range examples.List {
		body, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		s.pages[p.Path] = sitePage{body, p.ContentType}
	}
	s.pages["/hostile.html"] = sitePage{[]byte(hostilePage), "text/html; charset=utf-8"}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		p, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", p.contentType)
		w.Write(p.body)
	}))
	t.Cleanup(s.Close)
	return s
}

// fetchLoopback is the playground's fetcher in tests: a plain client, for
// a loopback origin only.
func fetchLoopback(ctx context.Context, raw string) ([]byte, string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "::1") {
		return nil, "", "", fmt.Errorf("tests fetch from loopback only, not %q", raw)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, "", "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", "", fmt.Errorf("status %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return body, resp.Header.Get("Content-Type"), resp.Request.URL.String(), err
}

// env is a store seeded with sources, a real poller and the interface.
type env struct {
	store  dynamo.Store
	site   *site
	poller *poller.Poller
	srv    *httptest.Server
	cfg    web.Config // the interface's configuration, for withAPI
}

type envOptions struct {
	token    string
	noPoller bool
	stories  bool // the poller records copies of other sources' stories
	// publicURL and proxies are web.Config's PublicURL and TrustedProxies.
	publicURL string
	proxies   []netip.Prefix
}

func newEnv(t testing.TB, opts envOptions) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{store: st, site: newSite(t)}
	var stories *dedup.Stories
	if opts.stories {
		if stories, err = dedup.NewStories(dedup.DefaultConfig()); err != nil {
			t.Fatal(err)
		}
	}
	e.poller, err = poller.New(poller.Config{
		Store:      st,
		Fetcher:    fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second}),
		Owner:      "web-test",
		Policy:     "smart",
		Duplicates: stories,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Kind auto is resolved as dynamo serve resolves it, through a client
	// allowed to read the loopback origin.
	resolver := fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second})
	cfg := web.Config{Store: st, Poller: e.poller, AdminToken: opts.token, Fetch: fetchLoopback, PublicURL: opts.publicURL, TrustedProxies: opts.proxies,
		Resolve: sources.NewResolver(resolver, robots.New(resolver, robots.Options{}), discovery.SettingMemory{Store: st})}
	if opts.noPoller {
		cfg.Poller = nil
	}
	e.cfg = cfg
	h, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

// seed registers a source and stores the given pages as its successive
// versions, an hour apart, as a poller would: leased, wrapped, recorded.
// With learn set, the source's schedule state is learnt as the poller
// learns it, so that its page draws the learnt rates.
func (e *env) seed(t testing.TB, id, path string, learn bool, pages ...string) {
	t.Helper()
	ctx := context.Background()
	src := &dynamo.Source{ID: id, URL: e.site.URL + path, Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
	if err := e.store.CreateSource(ctx, src); err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	var state policy.State
	start := time.Now().Add(-time.Duration(len(pages)+1) * time.Hour).Truncate(time.Second)
	for i, page := range pages {
		at := start.Add(time.Duration(i) * time.Hour)
		if _, err := e.store.LeaseSource(ctx, id, "seed", at, time.Minute); err != nil {
			t.Fatalf("lease %s: %v", id, err)
		}
		res := wrapper.Wrap([]byte(page), wrapper.Options{URL: src.URL, RSSID: id, Now: at, ContentType: "text/html; charset=utf-8"})
		_, err := e.store.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "seed", At: at, Document: res.Resource},
			func(r dynamo.PollResult) dynamo.PollUpdate {
				status := dynamo.StatusUnchanged
				if r.Version != nil {
					status = dynamo.StatusChanged
				}
				u := dynamo.PollUpdate{
					State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastStatus: status, LastChange: at},
					Log:   dynamo.PollLogEntry{At: at, Status: status, Duration: time.Second, NewItems: len(r.NewItems)},
				}
				if learn {
					state.Learn(policy.Observation{At: at, NewItems: len(r.NewItems), ItemsSeen: r.Seen, Changed: r.Version != nil})
					raw, err := policy.MarshalState(state)
					if err != nil {
						panic(err)
					}
					u.State.Schedule = raw
				}
				return u
			})
		if err != nil {
			t.Fatalf("record %s: %v", id, err)
		}
	}
}

// seedExamples stores the news example as two versions (the second one
// without its first item and with a new one), the blog example, and the
// hostile page.
func (e *env) seedExamples(t testing.TB) {
	t.Helper()
	news, err := examples.Read("news.html")
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.NewReplacer(
		"council-budget.html", "extra-edition.html",
		"Council Approves 2006 Budget After Late-Night Session", "Extra Edition: Snow Day Declared",
	).Replace(string(news))
	e.seed(t, "news", "/news/index.html", true, string(news), newer)
	blog, err := examples.Read("blog.html")
	if err != nil {
		t.Fatal(err)
	}
	e.seed(t, "blog", "/blog/index.html", false, string(blog))
	e.seed(t, "hostile", "/hostile.html", false, hostilePage)
}

// client is a browser-like client: it keeps cookies and does not follow
// redirects, so tests see them.
func client(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get fetches a page and returns its status and body.
func get(t testing.TB, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// post sends a form and returns the response, body read.
func post(t testing.TB, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	return postEncoded(t, c, u, form.Encode())
}

// postEncoded sends a form already encoded (application/x-www-form-urlencoded)
// and returns the response, body read.
func postEncoded(t testing.TB, c *http.Client, u, form string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Post(u, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// formToken finds the anti-forgery token in a page's forms.
func formToken(t testing.TB, page string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "input" && attr(n, "name") == "csrf" {
			return attr(n, "value")
		}
	}
	t.Fatal("the page has no form with an anti-forgery token")
	return ""
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// checkSafe fails when a page holds anything that could run script: a
// script element, an event handler attribute, a javascript: URL, or
// markup from outside the interface (every resource is embedded).
func checkSafe(t testing.TB, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "script" || n.Data == "iframe" || n.Data == "object" || n.Data == "embed" {
			t.Errorf("the page holds a <%s> element", n.Data)
		}
		if n.Data == "img" {
			t.Errorf("the page holds an <img> (src %q): sources' images must not be shown", attr(n, "src"))
		}
		for _, a := range n.Attr {
			v := strings.ToLower(strings.TrimSpace(a.Val))
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				t.Errorf("<%s> has an event handler %s=%q", n.Data, a.Key, a.Val)
			}
			if (a.Key == "href" || a.Key == "src" || a.Key == "action") && strings.HasPrefix(v, "javascript:") {
				t.Errorf("<%s %s=%q> is a javascript: URL", n.Data, a.Key, a.Val)
			}
		}
		// A feed announced to readers loads nothing; it must be Dynamo's own.
		if n.Data == "link" && attr(n, "rel") == "alternate" {
			if href := attr(n, "href"); !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") {
				t.Errorf("the page announces a feed elsewhere: %q", href)
			}
			continue
		}
		if n.Data == "link" && !strings.HasPrefix(attr(n, "href"), "/ui/static/") {
			t.Errorf("the page loads %q, which is not embedded", attr(n, "href"))
		}
	}
}

// texts returns the text of the elements matching a tag and class.
func texts(t testing.TB, page, tag, class string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == tag && (class == "" || strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")) {
			var b strings.Builder
			for c := range n.Descendants() {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			out = append(out, strings.Join(strings.Fields(b.String()), " "))
		}
	}
	return out
}
