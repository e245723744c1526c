package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/metrics"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/websub"
)

// webSub is a serve process's part in WebSub (docs/WEBSUB.md): the
// subscriber in every role (the pollers discover hubs; the API processes
// answer the callbacks) and the hub in the API processes. It needs the
// public URL: hubs must reach the callbacks, and topics are public URLs.
// A nil *webSub is Dynamo without WebSub.
type webSub struct {
	cfg    serveConfig
	store  dynamo.Store
	client *http.Client
	m      *metrics.Metrics
	log    *slog.Logger
	sub    *websub.Subscriber // set by subscribe, before any poll
	hub    *websub.Hub
}

// newWebSub returns the process's WebSub part, nil without --public-url.
func newWebSub(cfg serveConfig, store dynamo.Store, fetcher *pollfetch.Client, m *metrics.Metrics, log *slog.Logger) *webSub {
	if cfg.publicURL == "" {
		return nil
	}
	return &webSub{cfg: cfg, store: store, m: m, log: log, client: &http.Client{
		// The fetcher's guarded dialer: hubs and callbacks reach only what
		// a fetch may (--allow-private).
		Transport: fetcher.Transport(),
		Timeout:   30 * time.Second,
		// §5.3.1 and §7: a 3xx is a failure; the subscriber follows a
		// hub's 307/308 itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// hubURL is the hub the feeds advertise, "" without WebSub.
func (w *webSub) hubURL() string {
	if w == nil {
		return ""
	}
	return w.cfg.publicURL + websub.HubPath
}

// observe is the poller's OnBody: discovery of the source's hub.
func (w *webSub) observe(ctx context.Context, src *dynamo.Source, resp *pollfetch.Response) {
	if w != nil && w.sub != nil {
		w.sub.Observe(ctx, src, resp.Links, resp.Body, resp.ContentType, resp.URL)
	}
}

// subscribe starts the subscriber, pushing through pusher; a push takes a
// slot of heavy before its body is read.
func (w *webSub) subscribe(ctx context.Context, pusher websub.Pusher, heavy *limits.Gate, wg *sync.WaitGroup) error {
	if w == nil {
		return nil
	}
	sub, err := websub.NewSubscriber(websub.SubscriberConfig{Store: w.store, Pusher: pusher, PublicURL: w.cfg.publicURL,
		Client: w.client, Observer: w.m, Logger: w.log, Heavy: heavy})
	if err != nil {
		return err
	}
	w.sub = sub
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := sub.Run(ctx); err != nil {
			w.log.Error("websub subscriber", "err", err)
		}
	}()
	return nil
}

// serveHub starts the hub over topics and mounts it and the subscriber's
// callbacks on mux.
func (w *webSub) serveHub(ctx context.Context, topics websub.Topics, mux *http.ServeMux, wg *sync.WaitGroup) error {
	if w == nil {
		return nil
	}
	hub, err := websub.NewHub(websub.HubConfig{Store: w.store, Topics: topics, PublicURL: w.cfg.publicURL, Client: w.client,
		AllowPrivate: w.cfg.allowPrivate, MinLease: w.cfg.websubMinLease, MaxLease: w.cfg.websubMaxLease,
		Observer: w.m, Logger: w.log})
	if err != nil {
		return fmt.Errorf("websub hub: %w", err)
	}
	w.hub = hub
	hub.Mount(mux)
	w.sub.Mount(mux)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := hub.Run(ctx); err != nil {
			w.log.Error("websub hub", "err", err)
		}
	}()
	return nil
}
