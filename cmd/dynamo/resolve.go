package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/nativefeed"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// sourceResolver resolves kind "auto" when a source is registered
// (SPEC §5, §9): a page with annotations is html, a feed is feed, and any
// other page is searched for its feed, which the source then polls.
func sourceResolver(client *pollfetch.Client, memory discovery.DomainMemory) func(context.Context, *dynamo.Source) error {
	d := &discovery.Discoverer{Fetch: clientFetcher{client}, IsFeed: readsAsFeed, Memory: memory}
	return func(ctx context.Context, src *dynamo.Source) error {
		if src.Kind != dynamo.KindAuto && src.Kind != "" {
			return nil
		}
		resp, err := client.Get(ctx, pollfetch.Request{URL: src.URL})
		if err != nil {
			return fmt.Errorf("kind auto: cannot read %s: %v: %w", src.URL, err, dynamo.ErrInvalid)
		}
		switch {
		case nativefeed.Detect(resp.Body, resp.ContentType):
			src.Kind = dynamo.KindFeed
			return nil
		case wrapper.HasAnnotations(resp.Body):
			src.Kind = dynamo.KindHTML
			return nil
		}
		res, err := d.Discover(ctx, src.URL)
		if err != nil {
			return fmt.Errorf("kind auto: discovery on %s: %v: %w", src.URL, err, dynamo.ErrInvalid)
		}
		if res.Chosen == nil {
			return fmt.Errorf("kind auto: %s has no annotations and no feed was found (tried %s): %w",
				src.URL, strings.Join(res.Tried, ", "), dynamo.ErrInvalid)
		}
		src.URL, src.Kind = res.Chosen.URL, dynamo.KindFeed
		return nil
	}
}
