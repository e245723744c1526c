package discovery_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/dynamo-feeds/dynamo/discovery"
)

// plainFetcher fetches with a plain http.Client. Dynamo's server and command
// use the poller's client instead, which refuses private addresses.
type plainFetcher struct{ client *http.Client }

func (f plainFetcher) Fetch(ctx context.Context, url string) (*discovery.Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	return &discovery.Page{URL: resp.Request.URL.String(), ContentType: resp.Header.Get("Content-Type"), Body: body}, err
}

func ExampleDiscoverer_Discover() {
	// A WordPress blog whose page does not link to its feed.
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><head><meta name="generator" content="WordPress 6.5"></head><body>Posts</body></html>`)
	})
	mux.HandleFunc("/feed/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<rss version="2.0"><channel><title>Blog</title><item><title>Hi</title></item></channel></rss>`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	d := &discovery.Discoverer{
		Fetch: plainFetcher{site.Client()},
		IsFeed: func(body []byte, _ string) bool {
			_, err := gofeed.NewParser().Parse(bytes.NewReader(body))
			return err == nil
		},
	}
	res, err := d.Discover(context.Background(), site.URL+"/")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("platform:", res.Platform)
	fmt.Println("feed:", strings.TrimPrefix(res.Chosen.URL, site.URL), res.Chosen.Type, "found by", res.Chosen.How)
	fmt.Println("requests:", len(res.Tried))
	// Output:
	// platform: wordpress
	// feed: /feed/ rss found by platform-path:wordpress
	// requests: 2
}
