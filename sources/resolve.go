package sources

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/nativefeed"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// NewResolver returns the Resolver every entry point uses (dynamo serve's
// API, web interface and sources file, `dynamo sources import`), written
// here so that their tests, the web interface's included, run the one the
// program runs. It refuses, for every kind, a URL that polling would
// refuse (a private destination, unless allowed), with polling's message,
// and resolves kind "auto" when a source is registered (docs/DISCOVERY.md
// "`kind: auto`"): a page with annotations is html, a feed is feed, and
// any other page is searched for its feed, which the source then polls.
// The page is fetched once: discovery starts from the copy already read.
// Guessed paths are asked of robotsTxt first.
//
// Errors that are the registration's (the URL cannot be read, no feed was
// found) wrap dynamo.ErrInvalid; the one for "no feed" also wraps
// ErrUnresolvable and lists every URL requested and why each candidate
// was not a feed. When discovery chose the feed, its result is returned.
func NewResolver(client *fetch.Client, robotsTxt *robots.Checker, memory discovery.DomainMemory) Resolver {
	return func(ctx context.Context, src *dynamo.Source) (*discovery.Result, error) {
		if err := client.CheckURL(src.URL); err != nil {
			return nil, Refused(err)
		}
		if src.Kind != dynamo.KindAuto && src.Kind != "" {
			return nil, nil
		}
		resp, err := client.Get(ctx, fetch.Request{URL: src.URL})
		if err != nil {
			var fe *fetch.Error
			if errors.As(err, &fe) && fe.Kind == fetch.KindRefused {
				return nil, Refused(err) // a redirect or a name to a private address
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("kind auto: read %s: %w", src.URL, ctx.Err())
			}
			return nil, fmt.Errorf("kind auto: cannot read %s: %v: %w", src.URL, err, dynamo.ErrInvalid)
		}
		switch {
		case nativefeed.Detect(resp.Body, resp.ContentType):
			src.Kind = dynamo.KindFeed
			return nil, nil
		case wrapper.HasAnnotations(resp.Body):
			src.Kind = dynamo.KindHTML
			return nil, nil
		}
		d := &discovery.Discoverer{
			Fetch: &prefetched{
				url:  discoveryURL(src.URL),
				page: &discovery.Page{URL: resp.URL, ContentType: resp.ContentType, Body: resp.Body},
				next: ClientFetcher{client},
			},
			IsFeed:  ReadsAsFeed,
			Memory:  memory,
			Allowed: RobotsAllowed(robotsTxt),
		}
		res, err := d.Discover(ctx, src.URL)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("kind auto: discovery on %s: %w", src.URL, ctx.Err())
		case errors.Is(err, discovery.ErrNoFeed):
			return nil, unresolvable(fmt.Sprintf("kind auto: %s has no annotations and no feed was found; tried %s. %s",
				src.URL, triedText(res), unresolvableHint))
		case err != nil:
			return nil, fmt.Errorf("kind auto: discovery on %s: %v: %w", src.URL, err, dynamo.ErrInvalid)
		}
		src.URL, src.Kind = res.Chosen.URL, dynamo.KindFeed
		return res, nil
	}
}

// unresolvableHint tells whoever registered a page with nothing to poll
// how it can be followed: most such pages are a webmaster's own, not yet
// annotated.
const unresolvableHint = "To follow this page, annotate it (dynamo annotate, or Suggest annotations in the playground) " +
	"and register it with kind html, or follow it as it is with kind selectors (dynamo annotate --selectors prints them)"

// unresolvable is the error of a page with nothing to poll: its message
// is the sentence for the person who registered it, without the text of
// the sentinels it wraps (ErrUnresolvable, dynamo.ErrInvalid).
type unresolvable string

func (u unresolvable) Error() string   { return string(u) }
func (u unresolvable) Unwrap() []error { return []error{ErrUnresolvable, dynamo.ErrInvalid} }

// triedText lists the URLs a discovery requested, each candidate with how
// it was found and why it is not a feed: "http://a/ (the page),
// http://a/feed (common-path: 404 Not Found), …".
func triedText(res *discovery.Result) string {
	why := map[string]string{}
	for _, c := range res.Candidates {
		u := c.URL
		if c.Requested != "" {
			u = c.Requested
		}
		if c.Verified {
			why[u] = c.How + ": a feed"
		} else {
			why[u] = c.How + ": " + c.Err
		}
	}
	parts := make([]string, len(res.Tried))
	for i, u := range res.Tried {
		w, ok := why[u]
		if !ok {
			w = "the page"
		}
		parts[i] = u + " (" + w + ")"
	}
	return strings.Join(parts, ", ")
}

// discoveryURL is the form in which Discover requests a site's URL: trimmed,
// without its fragment.
func discoveryURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// prefetched answers the first request for url with a page already read,
// and every other request through next.
type prefetched struct {
	url  string
	page *discovery.Page
	next discovery.Fetcher
}

// Fetch implements discovery.Fetcher.
func (p *prefetched) Fetch(ctx context.Context, u string) (*discovery.Page, error) {
	if p.page != nil && u == p.url {
		page := p.page
		p.page = nil
		return page, nil
	}
	return p.next.Fetch(ctx, u)
}

// RobotsAllowed is discovery's question to robots.txt before it probes a
// guessed path; a host that cannot be asked is not probed either.
func RobotsAllowed(c *robots.Checker) func(ctx context.Context, url string) (bool, string) {
	return func(ctx context.Context, url string) (bool, string) {
		v, err := c.Check(ctx, url)
		if err != nil {
			return false, err.Error()
		}
		return v.Allowed, v.Reason
	}
}

// ClientFetcher lets discovery fetch through the poller's HTTP client, with
// its limits, redirect rules and private-address guard.
type ClientFetcher struct {
	Client *fetch.Client
}

// Fetch implements discovery.Fetcher.
func (f ClientFetcher) Fetch(ctx context.Context, url string) (*discovery.Page, error) {
	resp, err := f.Client.Get(ctx, fetch.Request{URL: url})
	if err != nil {
		return nil, err
	}
	return &discovery.Page{URL: resp.URL, ContentType: resp.ContentType, Body: resp.Body}, nil
}

// ReadsAsFeed accepts what the poller would read as a feed.
func ReadsAsFeed(body []byte, contentType string) bool {
	_, err := nativefeed.Parse(body, contentType, nativefeed.Options{})
	return err == nil
}
