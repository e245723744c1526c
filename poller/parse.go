package poller

import (
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/nativefeed"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// parse reads a fetched body as the source's kind says: an annotated page
// through the wrapper, a page through its selectors, a native feed through
// nativefeed; kind auto decides by the body. It returns the document, with
// each item's fingerprint set, the feed's own ttl (zero for pages), and
// the warnings of a page.
func (p *Poller) parse(src *dynamo.Source, resp *fetch.Response, at time.Time) (*dynamo.Resource, time.Duration, []dynamo.Warning, error) {
	loc := p.location(src)
	kind := src.Kind
	if kind == dynamo.KindAuto || kind == "" {
		kind = dynamo.KindHTML
		if nativefeed.Detect(resp.Body, resp.ContentType) {
			kind = dynamo.KindFeed
		}
	}
	var (
		doc      *dynamo.Resource
		ttl      time.Duration
		warnings []dynamo.Warning
	)
	switch kind {
	case dynamo.KindFeed:
		res, err := nativefeed.Parse(resp.Body, resp.ContentType, nativefeed.Options{
			URL: resp.URL, RSSID: src.ID, Location: loc, Now: at,
		})
		if err != nil {
			return nil, 0, nil, fmt.Errorf("read feed %s: %w", resp.URL, err)
		}
		doc, ttl, warnings = res.Resource, res.TTL, res.Warnings
	case dynamo.KindSelectors:
		c, err := annotate.SourceSelectors(src).Compile()
		if err != nil {
			return nil, 0, nil, fmt.Errorf("read page %s: %w", resp.URL, err)
		}
		res, err := annotate.Follow(resp.Body, c, annotate.Options{
			URL: resp.URL, RSSID: src.ID, ContentType: resp.ContentType, Location: loc, Now: at,
		})
		if err != nil {
			return nil, 0, nil, fmt.Errorf("read page %s: %w", resp.URL, err)
		}
		doc, warnings = res.Wrapped.Resource, res.Warnings
	default:
		if !wrapper.HasAnnotations(resp.Body) {
			return nil, 0, nil, fmt.Errorf("read page %s: no annotations found (docs/WRAPPER.md explains them); is it a feed? set kind to feed or auto", resp.URL)
		}
		res := wrapper.Wrap(resp.Body, wrapper.Options{
			URL: resp.URL, RSSID: src.ID, ContentType: resp.ContentType, Location: loc, Now: at,
		})
		doc, warnings = res.Resource, res.Warnings
	}
	if n := len(doc.Items); n > p.cfg.MaxItems {
		doc.Items = doc.Items[:p.cfg.MaxItems]
		warnings = append(warnings, dynamo.Warning{Message: fmt.Sprintf(
			"%d items: only the first %d are kept, %d dropped (a version holds at most %d items: serve --max-items)",
			n, p.cfg.MaxItems, n-p.cfg.MaxItems, p.cfg.MaxItems)})
	}
	return doc, ttl, warnings, nil
}

// DefaultMaxItems is the most items one version keeps by default: far more
// than any real page or feed shows, and few enough that storing a version
// stays short and reading one stays cheap (docs/RELIABILITY.md).
const DefaultMaxItems = 5000
