package robots_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
)

// site serves a robots.txt (status and body) and counts every request by
// path, with when each started.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	status   int
	body     string
	header   http.Header
	requests map[string][]time.Time
}

func newSite(t *testing.T, status int, body string) *site {
	t.Helper()
	s := &site{status: status, body: body, requests: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path] = append(s.requests[r.URL.Path], time.Now())
		status, body, header := s.status, s.body, s.header
		s.mu.Unlock()
		if r.URL.Path != "/robots.txt" {
			w.Write([]byte("<html><body>a page</body></html>"))
			return
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests[path])
}

func client() *fetch.Client {
	return fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 2 * time.Second})
}

func TestCheckReadsRobotsTxtAsRFC9309Says(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		path    string
		allowed bool
		reason  string
		delay   time.Duration
	}{
		{"no robots.txt (404): no rules", 404, "", "/news/", true, "", 0},
		{"forbidden (403) is unavailable too", 403, "User-agent: *\nDisallow: /", "/news/", true, "", 0},
		{"server error: complete disallow", 503, "", "/news/", false, "could not be read", 0},
		{"too many requests: complete disallow", 429, "", "/news/", false, "could not be read", 0},
		{"disallowed for everyone", 200, "User-agent: *\nDisallow: /news/\n", "/news/today.html", false, "disallows /news/today.html for Dynamo", 0},
		{"another path", 200, "User-agent: *\nDisallow: /news/\n", "/blog/", true, "", 0},
		{"our group wins over *", 200, "User-agent: *\nDisallow: /\n\nUser-agent: Dynamo\nAllow: /\nCrawl-delay: 2\n", "/news/", true, "", 2 * time.Second},
		{"only our group disallows", 200, "User-agent: OtherBot\nDisallow: /\n\nUser-agent: dynamo\nDisallow: /private\n", "/private/a", false, "disallowed by robots.txt", 0},
		{"another agent's rules are not ours", 200, "User-agent: OtherBot\nDisallow: /\n", "/news/", true, "", 0},
		{"longest match wins", 200, "User-agent: *\nDisallow: /news/\nAllow: /news/public/\n", "/news/public/a.html", true, "", 0},
		{"wildcards", 200, "User-agent: *\nDisallow: /*.php$\n", "/index.php", false, "disallowed", 0},
		{"the query counts", 200, "User-agent: *\nDisallow: /search?q=\n", "/search?q=x", false, "disallowed", 0},
		{"a rule before any group is dropped, the rest read", 200, "Disallow: /\nUser-agent: *\nDisallow: /private/\n", "/news/", true, "", 0},
		{"... and the rest still applies", 200, "Disallow: /\nUser-agent: *\nDisallow: /private/\n", "/private/x", false, "disallowed", 0},
		{"an HTML page served as robots.txt has no rules", 200, "<html><body>Not here</body></html>", "/news/", true, "", 0},
		{"empty: no rules", 200, "", "/news/", true, "", 0},
		{"comments only: no rules", 200, "# nothing to see\n", "/news/", true, "", 0},
		{"an Allow wins a Disallow of the same length", 200, "User-agent: *\nDisallow: /p\nAllow: /p\n", "/p", true, "", 0},
		{"... whichever comes first", 200, "User-agent: *\nAllow: /p\nDisallow: /p\n", "/p", true, "", 0},
		{"groups naming us are combined: the first's rules", 200, "User-agent: Dynamo\nDisallow: /a\n\nUser-agent: dynamo\nDisallow: /b\n", "/a", false, "disallowed", 0},
		{"groups naming us are combined: the second's rules", 200, "User-agent: Dynamo\nDisallow: /a\n\nUser-agent: dynamo\nDisallow: /b\n", "/b", false, "disallowed", 0},
		{"one group for several agents, us among them", 200, "User-agent: OtherBot\n\nUser-agent: Dynamo\nDisallow: /a\n", "/a", false, "disallowed", 0},
		{"a product token with a version names us", 200, "User-agent: *\nAllow: /\n\nUser-agent: Dynamo/2.0\nDisallow: /x\n", "/x", false, "disallowed", 0},
		{"a prefix of our token is not us", 200, "User-agent: *\nDisallow: /\n\nUser-agent: Dyn\nAllow: /\n", "/x", false, "disallowed", 0},
		{"a token that starts with ours is not us", 200, "User-agent: DynamoBot\nDisallow: /\n", "/x", true, "", 0},
		{"our group without rules allows everything", 200, "User-agent: *\nDisallow: /\n\nUser-agent: Dynamo\n", "/x", true, "", 0},
		{"%7E in a rule is ~", 200, "User-agent: *\nDisallow: /%7Ejoe/\n", "/~joe/a", false, "disallowed", 0},
		{"%7e in the URL is ~", 200, "User-agent: *\nDisallow: /~joe/\n", "/%7ejoe/a", false, "disallowed", 0},
		{"percent-encodings compare in any case", 200, "User-agent: *\nDisallow: /a%2fb\n", "/a%2Fb", false, "disallowed", 0},
		{"an encoded slash is no slash", 200, "User-agent: *\nDisallow: /a%2Fb\n", "/a/b", true, "", 0},
		{"UTF-8 in a rule compares encoded", 200, "User-agent: *\nDisallow: /caf\xc3\xa9\n", "/caf%C3%A9/menu", false, "disallowed", 0},
		{"lines ending with CR alone", 200, "User-agent: *\rDisallow: /x\rCrawl-delay: 1\r", "/x", false, "disallowed", time.Second},
		{"a wildcard rule matches from the path's start", 200, "User-agent: *\nDisallow: /private*/\n", "/public/private1/", true, "", 0},
		{"... and there", 200, "User-agent: *\nDisallow: /private*/\n", "/private1/a", false, "disallowed", 0},
		{"a wildcard Allow elsewhere in the path allows nothing", 200, "User-agent: *\nDisallow: /private\nAllow: /publ*cation\n", "/private/publication", false, "disallowed", 0},
		{"a rule may start with a wildcard", 200, "User-agent: *\nDisallow: *.php$\n", "/x/a.php", false, "disallowed", 0},
		{"a rule without its leading slash", 200, "User-agent: *\nDisallow: private/\n", "/private/a", false, "disallowed", 0},
		{"a caret in a rule is a character", 200, "User-agent: *\nDisallow: /a^b\n", "/a%5Eb", false, "disallowed", 0},
		{"a byte order mark and CRLF", 200, "\xef\xbb\xbfUser-agent: Dynamo\r\nDisallow: /x # not here\r\n", "/x", false, "disallowed", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, tc.status, tc.body)
			c := robots.New(client(), robots.Options{})
			v, err := c.Check(context.Background(), s.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if v.Allowed != tc.allowed || !strings.Contains(v.Reason, tc.reason) || v.CrawlDelay != tc.delay {
				t.Fatalf("Check(%s) = %+v, want allowed %v, reason with %q, crawl-delay %s", tc.path, v, tc.allowed, tc.reason, tc.delay)
			}
			if !tc.allowed && !strings.HasPrefix(v.Reason, "disallowed by robots.txt") {
				t.Errorf("reason %q does not start with \"disallowed by robots.txt\"", v.Reason)
			}
		})
	}
}

// One read per host, kept until its expiry on the Checker's clock, then
// read again; the origin's max-age shortens it, down to MinTTL.
func TestCheckKeepsEachHostsRobotsTxt(t *testing.T) {
	s := newSite(t, 200, "User-agent: *\nDisallow: /private/\n")
	other := newSite(t, 404, "")
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := robots.New(client(), robots.Options{TTL: time.Hour, MinTTL: time.Minute, Now: clock})
	ctx := context.Background()
	check := func(url string) robots.Verdict {
		t.Helper()
		v, err := c.Check(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var wg sync.WaitGroup
	for range 8 { // concurrent first checks share one read
		wg.Add(1)
		go func() { defer wg.Done(); check(s.URL + "/news/") }()
	}
	wg.Wait()
	check(s.URL + "/private/a")
	check(other.URL + "/x")
	if n := s.count("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt read %d times for 10 checks, want once", n)
	}
	advance(59 * time.Minute)
	check(s.URL + "/news/")
	if n := s.count("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt read again within its hour: %d reads", n)
	}
	advance(2 * time.Minute)
	if v := check(s.URL + "/private/a"); v.Allowed {
		t.Fatal("the rules were lost when read again")
	}
	if n := s.count("/robots.txt"); n != 2 {
		t.Fatalf("robots.txt read %d times after its hour, want twice", n)
	}
	if n := other.count("/robots.txt"); n != 1 {
		t.Fatalf("the other host's robots.txt read %d times, want once", n)
	}

	// max-age=1 is raised to MinTTL (a minute), not obeyed to the second.
	short := newSite(t, 200, "User-agent: *\nDisallow:\n")
	short.header = http.Header{"Cache-Control": {"max-age=1"}}
	check(short.URL + "/")
	advance(30 * time.Second)
	check(short.URL + "/")
	advance(31 * time.Second)
	check(short.URL + "/")
	if n := short.count("/robots.txt"); n != 2 {
		t.Fatalf("max-age=1: robots.txt read %d times over 61 s, want twice (kept MinTTL)", n)
	}

	// An HTML page served as robots.txt has no rules, and is kept only
	// MinTTL, not the hour a robots.txt is: it may be a passing error page.
	html := newSite(t, 200, "<html><body>\n<p>Not here: try again later</p>\n</body></html>")
	check(html.URL + "/")
	advance(59 * time.Second)
	check(html.URL + "/")
	advance(2 * time.Second)
	check(html.URL + "/")
	if n := html.count("/robots.txt"); n != 2 {
		t.Fatalf("an HTML robots.txt read %d times over 61 s, want twice (kept MinTTL)", n)
	}
	// A comment alone is a robots.txt, kept its hour.
	comment := newSite(t, 200, "# every robot welcome\n")
	check(comment.URL + "/")
	advance(2 * time.Minute)
	check(comment.URL + "/")
	if n := comment.count("/robots.txt"); n != 1 {
		t.Fatalf("a robots.txt of comments read %d times in 2 minutes, want once (kept its hour)", n)
	}
}

// An unreachable robots.txt disallows everything only until RetryTTL: then
// it is asked again, and a recovered one is read.
func TestUnreachableRobotsTxtIsTriedAgain(t *testing.T) {
	s := newSite(t, 503, "")
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	c := robots.New(client(), robots.Options{RetryTTL: time.Minute, Now: func() time.Time { return now }})
	if v, _ := c.Check(context.Background(), s.URL+"/a"); v.Allowed {
		t.Fatal("a 503 robots.txt allowed the page")
	}
	s.mu.Lock()
	s.status, s.body = 200, "User-agent: *\nAllow: /\n"
	s.mu.Unlock()
	if v, _ := c.Check(context.Background(), s.URL+"/a"); v.Allowed {
		t.Fatal("read again before RetryTTL")
	}
	now = now.Add(time.Minute)
	if v, _ := c.Check(context.Background(), s.URL+"/a"); !v.Allowed {
		t.Fatalf("not read again after RetryTTL: %+v", v)
	}
}

// Crawl-delay becomes the fetcher's gap to the host: the next request
// starts at least that long after the last one ended.
func TestCrawlDelayIsAFloorOnTheHostGap(t *testing.T) {
	s := newSite(t, 200, "User-agent: *\nCrawl-delay: 0.4\n")
	cl := client()
	c := robots.New(cl, robots.Options{})
	ctx := context.Background()
	if _, err := c.Check(ctx, s.URL+"/a"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/a", "/b"} {
		if _, err := cl.Get(ctx, fetch.Request{URL: s.URL + path}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	robotsAt, a, b := s.requests["/robots.txt"][0], s.requests["/a"][0], s.requests["/b"][0]
	s.mu.Unlock()
	if gap := a.Sub(robotsAt); gap < 400*time.Millisecond {
		t.Errorf("/a started %v after robots.txt, under its Crawl-delay of 0.4s", gap)
	}
	if gap := b.Sub(a); gap < 400*time.Millisecond {
		t.Errorf("/b started %v after /a, under the Crawl-delay of 0.4s", gap)
	}
}

func TestCheckRefusesWhatIsNotAWebURL(t *testing.T) {
	c := robots.New(client(), robots.Options{})
	for _, u := range []string{"ftp://example.org/x", "not a url", "http:///x"} {
		if _, err := c.Check(context.Background(), u); err == nil {
			t.Errorf("Check(%q) succeeded", u)
		}
	}
	// A destination the fetcher refuses is an error, not a verdict: the
	// page's own fetch says why.
	guarded := robots.New(fetch.New(fetch.Options{}), robots.Options{})
	s := newSite(t, 200, "")
	if _, err := guarded.Check(context.Background(), s.URL+"/a"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Check of a loopback URL through a guarded fetcher: %v, want the refusal", err)
	}
}
