package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/discovery"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
)

// Discovery asks robots.txt before probing a guessed path: a disallowed
// guess is listed with the reason and never requested (counted at the
// origin); with no robots.txt the same guess finds the feed.
func TestDiscoveryProbesRespectRobotsTxt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		robotsTxt string // "" answers 404
		found     bool
	}{
		{"disallowed", "User-agent: *\nDisallow: /feed\n", false},
		{"no robots.txt", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu    sync.Mutex
				asked = map[string]int{}
			)
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked[r.URL.Path]++
				mu.Unlock()
				switch r.URL.Path {
				case "/":
					fmt.Fprint(w, "<html><head><title>Town</title></head><body><p>News without a feed link.</p></body></html>")
				case "/robots.txt":
					if tc.robotsTxt == "" {
						http.NotFound(w, r)
						return
					}
					fmt.Fprint(w, tc.robotsTxt)
				case "/feed":
					w.Header().Set("Content-Type", "application/rss+xml")
					fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Town</title><link>http://town.example/</link><description>d</description><item><title>One</title><link>http://town.example/1</link></item></channel></rss>`)
				default:
					http.NotFound(w, r)
				}
			}))
			defer site.Close()
			client := pollfetch.New(pollfetch.Options{AllowPrivate: true, HostGap: -1})
			d := &discovery.Discoverer{Fetch: sources.ClientFetcher{Client: client}, IsFeed: sources.ReadsAsFeed, Allowed: sources.RobotsAllowed(robots.New(client, robots.Options{}))}
			res, err := d.Discover(context.Background(), site.URL+"/")
			mu.Lock()
			defer mu.Unlock()
			if !tc.found {
				if err == nil {
					t.Fatalf("found %+v at a disallowed path", res.Chosen)
				}
				if asked["/feed"] != 0 {
					t.Fatalf("/feed asked for %d times; robots.txt disallows it", asked["/feed"])
				}
				var listed bool
				for _, c := range res.Candidates {
					if strings.HasSuffix(c.URL, "/feed") && strings.HasPrefix(c.Err, "disallowed by robots.txt") {
						listed = true
					}
				}
				if !listed {
					t.Errorf("the disallowed guess is not listed with the reason: %+v", res.Candidates)
				}
				return
			}
			if err != nil || res.Chosen == nil || !strings.HasSuffix(res.Chosen.URL, "/feed") {
				t.Fatalf("without robots.txt: %+v, %v", res, err)
			}
			if asked["/robots.txt"] != 1 {
				t.Errorf("robots.txt asked for %d times, want once", asked["/robots.txt"])
			}
		})
	}
}
