package discovery_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/dynamo-feeds/dynamo/discovery"
)

// resource is what a test site serves at one host and path.
type resource struct {
	contentType string
	body        string
	redirect    string // a Location to answer 301 with, instead of a body
}

// site is an origin server for tests that answers for any host name, the
// way several sites would: resources are keyed by host and request URI
// ("www.example.org/feed/"). It counts the requests it receives.
type site struct {
	srv *httptest.Server

	mu        sync.Mutex
	resources map[string]resource
	requests  []string
}

// newSite starts a site serving resources; it stops when the test ends.
func newSite(t *testing.T, resources map[string]resource) *site {
	t.Helper()
	s := &site{resources: resources}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Host + r.URL.RequestURI()
	s.mu.Lock()
	s.requests = append(s.requests, key)
	res, ok := s.resources[key]
	s.mu.Unlock()
	switch {
	case !ok:
		http.NotFound(w, r)
	case res.redirect != "":
		http.Redirect(w, r, res.redirect, http.StatusMovedPermanently)
	default:
		w.Header().Set("Content-Type", res.contentType)
		io.WriteString(w, res.body)
	}
}

// requestCount returns how many requests the site has answered.
func (s *site) requestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// fetcher is a discovery.Fetcher over real HTTP whose every connection, for
// any host name, goes to the test site on loopback, so tests use real host
// names and never reach anything else.
type fetcher struct {
	client *http.Client
}

func newFetcher(s *site) *fetcher {
	addr := s.srv.Listener.Addr().String()
	dialer := &net.Dialer{}
	return &fetcher{client: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
	}}}
}

// Fetch implements discovery.Fetcher: redirects followed, 2xx only, body
// capped.
func (f *fetcher) Fetch(ctx context.Context, url string) (*discovery.Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return &discovery.Page{URL: resp.Request.URL.String(), ContentType: resp.Header.Get("Content-Type"), Body: body}, nil
}

// isFeed is a real feed check: the body parses with gofeed.
func isFeed(body []byte, _ string) bool {
	_, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	return err == nil
}

// newDiscoverer returns a Discoverer reading s, with memory m (nil for none).
func newDiscoverer(s *site, m discovery.DomainMemory) *discovery.Discoverer {
	return &discovery.Discoverer{Fetch: newFetcher(s), IsFeed: isFeed, Memory: m}
}

// Documents the test sites serve.

func rss(title string) resource {
	return resource{contentType: "application/rss+xml; charset=utf-8", body: `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>` + title + `</title><link>http://example.org/</link><description>d</description>
<item><title>Hello</title><link>http://example.org/hello</link><guid>http://example.org/hello</guid></item>
</channel></rss>`}
}

func atom(title string) resource {
	return resource{contentType: "application/atom+xml", body: `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>` + title + `</title><id>urn:x</id><updated>2026-01-02T03:04:05Z</updated>
<entry><title>Hello</title><id>urn:x:1</id><updated>2026-01-02T03:04:05Z</updated><link href="http://example.org/hello"/></entry>
</feed>`}
}

func jsonFeed(title string) resource {
	return resource{contentType: "application/feed+json", body: `{"version":"https://jsonfeed.org/version/1.1","title":"` + title +
		`","items":[{"id":"1","url":"http://example.org/hello","content_text":"hi"}]}`}
}

func html(body string) resource {
	return resource{contentType: "text/html; charset=utf-8", body: "<!DOCTYPE html>\n<html>" + body + "</html>"}
}
