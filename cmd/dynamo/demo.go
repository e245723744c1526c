package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// startDemoSite serves the example pages, and a native RSS feed made from
// one of them, from a web site on loopback, and registers each as a source
// (or points the existing source at this run's site), so a first run has
// something to poll and show within seconds.
func startDemoSite(ctx context.Context, store dynamo.Store, resolve func(context.Context, *dynamo.Source) error) (*httptest.Server, error) {
	mux := http.NewServeMux()
	for _, p := range examples.List {
		body, err := examples.Read(p.File)
		if err != nil {
			return nil, err
		}
		mux.HandleFunc("GET "+p.Path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", p.ContentType)
			w.Write(body)
		})
	}
	site := httptest.NewServer(mux)
	feed, err := demoFeed(site.URL)
	if err != nil {
		site.Close()
		return nil, err
	}
	mux.HandleFunc("GET /wire/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(feed)
	})

	sources := []dynamo.Source{{ID: "wire", URL: site.URL + "/wire/feed.xml", Kind: dynamo.KindAuto, Category: "news"}}
	for _, p := range examples.List {
		id := strings.TrimSuffix(p.File, ".html")
		sources = append(sources, dynamo.Source{ID: id, URL: site.URL + p.Path, Kind: dynamo.KindAuto, Timezone: p.TimeZone, Category: "examples"})
	}
	for i := range sources {
		src := &sources[i]
		src.Interval = dynamo.Duration(15 * time.Minute)
		if err := upsertSource(ctx, store, src, resolve); err != nil {
			site.Close()
			return nil, fmt.Errorf("demo source %s: %w", src.ID, err)
		}
	}
	return site, nil
}

// demoFeed is the news example as an RSS 2.0 feed, standing in for a
// native feed.
func demoFeed(siteURL string) ([]byte, error) {
	page, err := examples.Read("news.html")
	if err != nil {
		return nil, err
	}
	res := wrapper.Wrap(page, wrapper.Options{URL: siteURL + "/wire/", RSSID: "wire"})
	var b strings.Builder
	if err := transform.Render(&b, res.Resource, transform.RSS2); err != nil {
		return nil, fmt.Errorf("demo feed: %w", err)
	}
	return []byte(b.String()), nil
}

// upsertSource registers src, or updates the registered source of that id
// to src's configuration; its archive and polling state are kept.
func upsertSource(ctx context.Context, store dynamo.Store, src *dynamo.Source, resolve func(context.Context, *dynamo.Source) error) error {
	if err := resolve(ctx, src); err != nil {
		return err
	}
	err := store.CreateSource(ctx, src)
	if !errors.Is(err, dynamo.ErrConflict) {
		return err
	}
	return store.UpdateSource(ctx, src)
}
