// Package discovery finds the feed of a web site (docs/DISCOVERY.md): the feeds a page
// declares with <link rel="alternate">, the links on it that point at
// feeds, then the paths where blog and CMS platforms publish theirs, trying
// first those of the platform the page reveals. Every candidate is fetched
// and checked before it is believed, and the pattern that found a domain's
// feed is remembered for the next URL of that domain.
//
// The package fetches nothing itself: a Fetcher does (the poller's client,
// with its redirect, size and private-address rules), and a FeedChecker
// says whether a body is a feed, so discovery accepts exactly what the
// poller can read. docs/DISCOVERY.md describes the order and the limits.
package discovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/dynamo-feeds/dynamo"
)

// Page is a document a Fetcher read.
type Page struct {
	URL         string // the final URL, after redirects
	ContentType string // the Content-Type header, "" if none
	Body        []byte
}

// Fetcher reads a URL. It follows redirects and fails on anything but a
// successful answer; it is where time, size and address limits apply.
type Fetcher interface {
	Fetch(ctx context.Context, url string) (*Page, error)
}

// FeedChecker reports whether body, served with contentType, is a feed that
// Dynamo can read. Discovery trusts nothing else: an HTML page served as
// application/rss+xml is not a feed.
type FeedChecker func(body []byte, contentType string) bool

// How a candidate was found: Candidate.How holds one of these, or
// HowPlatformPath followed by ":" and the platform's name
// ("platform-path:wordpress").
const (
	HowGiven         = "given"          // the URL asked about is itself a feed
	HowLinkAlternate = "link-alternate" // <link rel="alternate" type="application/rss+xml" …>
	HowAnchor        = "anchor"         // an <a> on the page that looks like a feed link
	HowRemembered    = "remembered"     // the path that found a feed on the same domain before
	HowPlatformPath  = "platform-path"  // a path the recognized platform publishes its feed at
	HowCommonPath    = "common-path"    // a path where many sites publish theirs
)

// Limits applied when the Discoverer's fields are zero.
const (
	DefaultMaxCandidates = 10 // links found on the page that are checked
	DefaultMaxFetches    = 32 // requests for one discovery, the page included
)

// ErrNoFeed is returned, with the Result saying what was tried, when no
// candidate turned out to be a feed.
var ErrNoFeed = errors.New("no feed found")

// errFetchLimit stops a discovery that has used its requests.
var errFetchLimit = errors.New("fetch limit reached")

// Discoverer finds feeds. Its fields are read only, so one Discoverer may
// serve concurrent discoveries.
type Discoverer struct {
	Fetch  Fetcher
	IsFeed FeedChecker
	// Memory remembers which pattern found each domain's feed; nil
	// remembers nothing.
	Memory DomainMemory
	// MaxCandidates bounds the links found on the page that are checked;
	// the platform and common paths are tried only until one is a feed.
	MaxCandidates int
	// MaxFetches bounds the requests of one discovery, the page included.
	MaxFetches int
	// Allowed, when set, is asked before each guessed path (remembered,
	// platform, common) is probed, with the host's robots.txt: a guess it
	// refuses is listed with the reason and never requested. The page
	// given and the feeds it links to are not guesses and are not asked
	// (docs/DISCOVERY.md).
	Allowed func(ctx context.Context, url string) (ok bool, reason string)
}

// Candidate is a URL that might be the site's feed.
type Candidate struct {
	// URL is the candidate's address after redirects: what to poll.
	URL string `json:"url"`
	// Requested is the address as found, when redirects led elsewhere.
	Requested string `json:"requested,omitempty"`
	Title     string `json:"title,omitempty"` // the link's title or text
	Type      string `json:"type,omitempty"`  // rss, atom or json: from the body once fetched, else as announced
	How       string `json:"how"`
	Verified  bool   `json:"verified"`        // fetched and found to be a feed
	Err       string `json:"error,omitempty"` // why it is not, when it was checked and is not

	// pattern is what domain memory keeps when this candidate is chosen.
	pattern string
}

// Result is what a discovery found and did.
type Result struct {
	URL        string      `json:"url"`                  // the page's URL after redirects
	Platform   string      `json:"platform,omitempty"`   // the software the page was recognized as
	Remembered string      `json:"remembered,omitempty"` // the domain's pattern from memory
	Candidates []Candidate `json:"candidates"`           // in the order checked
	Chosen     *Candidate  `json:"chosen,omitempty"`     // the feed to use, nil if none
	Tried      []string    `json:"tried"`                // every URL requested, in order
	// Warnings report what limited the search or could not be remembered;
	// none of them stops it.
	Warnings []string `json:"warnings,omitempty"`
}

// Discover finds the feed of the site at siteURL. The page is fetched
// first: if it is a feed, it is the answer. Otherwise the feeds the page
// links to are checked, then the domain's remembered path, then the
// paths of the platform the page reveals, then common paths, until one is
// a feed other than a comment feed. Chosen is the first feed found in that
// order, except that comment feeds come after the others.
//
// The error is ErrNoFeed when nothing was found, the fetch's error when the
// page itself cannot be read, dynamo.ErrInvalid for a URL that is not
// absolute http(s), and the context's when it ends first. The Result is
// never nil and always says what was tried.
func (d *Discoverer) Discover(ctx context.Context, siteURL string) (*Result, error) {
	res := &Result{URL: siteURL, Tried: []string{}, Candidates: []Candidate{}}
	u, err := url.Parse(strings.TrimSpace(siteURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return res, fmt.Errorf("discover %q: %w: want an absolute http or https URL", siteURL, dynamo.ErrInvalid)
	}
	u.Fragment = ""
	r := &run{d: d, ctx: ctx, res: res, seen: map[string]bool{}}
	page, err := r.fetch(u.String())
	if err != nil {
		return res, fmt.Errorf("discover %s: %w", u, err)
	}
	res.URL = page.URL
	if d.IsFeed(page.Body, page.ContentType) {
		c := Candidate{URL: page.URL, How: HowGiven, Verified: true, Type: detectType(page.Body)}
		if page.URL != u.String() {
			c.Requested = u.String()
		}
		res.Candidates = append(res.Candidates, c)
		res.Chosen = &res.Candidates[0]
		return res, nil
	}
	pageURL, err := url.Parse(page.URL)
	if err != nil || !pageURL.IsAbs() {
		pageURL = u
	}
	r.seen[pageURL.String()] = true
	if err := r.search(pageURL, page.Body); err != nil {
		return res, fmt.Errorf("discover %s: %w", u, err)
	}
	if res.Chosen == nil {
		return res, fmt.Errorf("discover %s: %w (%d URLs tried)", u, ErrNoFeed, len(res.Tried))
	}
	return res, nil
}

// run is the state of one discovery.
type run struct {
	d       *Discoverer
	ctx     context.Context
	res     *Result
	seen    map[string]bool // URLs requested or queued, so none is fetched twice
	fetches int
}

// search looks for the feed of the HTML page at pageURL, in order, and
// records the choice in memory.
func (r *run) search(pageURL *url.URL, body []byte) error {
	info := scanPage(body, pageURL)
	plat := detectPlatform(info, pageURL.Hostname(), body)
	if plat != nil {
		r.res.Platform = plat.name
	}
	keys := memoryKeys(pageURL.Hostname(), plat)
	known := r.recall(keys)

	if err := r.probe(pageURL, info, plat, r.res.Remembered); err != nil && !errors.Is(err, errFetchLimit) {
		return err
	}
	r.finish(keys, known)
	return nil
}

// probe checks the page's links, then guessed paths. Every feed the page
// declares is checked, to list them all; anchors and guessed paths only
// until the site's feed is found. A comment feed alone is a poor answer:
// the posts feed may be at a usual path. The error is errFetchLimit, which
// ends the search normally (the Result says so), or the context's.
func (r *run) probe(pageURL *url.URL, info pageInfo, plat *platform, remembered string) error {
	for _, c := range r.inPage(info, remembered) {
		if c.How == HowAnchor && r.found() {
			continue
		}
		if err := r.check(c); err != nil {
			return err
		}
	}
	for _, c := range guesses(pageURL, info, plat, remembered) {
		if r.found() {
			break
		}
		if r.seen[c.URL] {
			continue
		}
		if r.d.Allowed != nil {
			if ok, why := r.d.Allowed(r.ctx, c.URL); !ok {
				r.seen[c.URL] = true
				c.Err = why
				r.res.Candidates = append(r.res.Candidates, c)
				continue
			}
		}
		if err := r.check(c); err != nil {
			return err
		}
	}
	return nil
}

// recall reads the patterns remembered under each key; the first one found
// (the most specific key's) is the one used. A memory that fails is
// reported and then ignored, since discovery works without it.
func (r *run) recall(keys []string) map[string]string {
	known := map[string]string{}
	if r.d.Memory == nil {
		return known
	}
	for _, k := range keys {
		p, ok, err := r.d.Memory.Pattern(r.ctx, k)
		if err != nil {
			r.warn("domain memory unavailable: %v", err)
			return known
		}
		if !ok {
			continue
		}
		known[k] = p
		if r.res.Remembered == "" {
			r.res.Remembered = p
		}
	}
	return known
}

// finish sets Chosen and remembers the pattern that found it under every
// key whose pattern it changes.
func (r *run) finish(keys []string, known map[string]string) {
	c := r.chosen()
	if c == nil {
		return
	}
	r.res.Chosen = c
	if r.d.Memory == nil || c.pattern == "" {
		return
	}
	for _, k := range keys {
		if known[k] == c.pattern {
			continue
		}
		if err := r.d.Memory.Remember(r.ctx, k, c.pattern); err != nil {
			r.warn("%v", err)
			return
		}
	}
}

// chosen returns the best verified candidate so far: the first that is not
// a comment feed, else the first.
func (r *run) chosen() *Candidate {
	var first *Candidate
	for i := range r.res.Candidates {
		c := &r.res.Candidates[i]
		if !c.Verified {
			continue
		}
		if !isCommentFeed(*c) {
			return c
		}
		if first == nil {
			first = c
		}
	}
	return first
}

// found reports whether a feed other than a comment feed was found.
func (r *run) found() bool {
	c := r.chosen()
	return c != nil && !isCommentFeed(*c)
}

// isCommentFeed reports whether a candidate is a feed of comments, which a
// site offers beside its feed of posts.
func isCommentFeed(c Candidate) bool {
	return strings.Contains(strings.ToLower(c.Title), "comment") ||
		strings.Contains(strings.ToLower(c.URL), "comment")
}

// inPage returns the page's own feed links to check, de-duplicated and
// capped: <link rel="alternate"> first, then anchors, or anchors first when
// they found the domain's feed before.
func (r *run) inPage(info pageInfo, remembered string) []Candidate {
	all := append(append([]Candidate{}, info.links...), info.anchors...)
	if remembered == HowAnchor {
		all = append(append([]Candidate{}, info.anchors...), info.links...)
	}
	limit := r.d.MaxCandidates
	if limit <= 0 {
		limit = DefaultMaxCandidates
	}
	var out []Candidate
	queued := map[string]bool{}
	for _, c := range all {
		if r.seen[c.URL] || queued[c.URL] {
			continue
		}
		if len(out) == limit {
			r.warn("the page links to more than %d possible feeds; only the first %d were checked", limit, limit)
			break
		}
		queued[c.URL] = true
		c.pattern = c.How
		out = append(out, c)
	}
	return out
}

// guesses returns the URLs to try when the page's links found nothing: the
// remembered path, the platform's paths, then the common ones. Paths are
// tried under each root the page may belong to (installRoots), nearest
// first; a remembered path only under the roots rememberedRoots allows.
func guesses(pageURL *url.URL, info pageInfo, plat *platform, remembered string) []Candidate {
	var out []Candidate
	add := func(template, root, how string) {
		u, ok := expand(template, pageURL, root)
		if !ok {
			return
		}
		for _, c := range out {
			if c.URL == u.String() {
				return
			}
		}
		out = append(out, Candidate{URL: u.String(), How: how, pattern: pathPattern(template, root)})
	}
	roots := installRoots(pageURL, info, plat)
	if t, root, ok := parsePathPattern(remembered); ok {
		for _, root := range rememberedRoots(root, pageURL, roots, ownRoot(info, plat, pageURL.Hostname())) {
			add(t, root, HowRemembered)
		}
	}
	if plat != nil {
		for _, root := range roots {
			for _, t := range plat.paths {
				add(t, root, HowPlatformPath+":"+plat.name)
			}
		}
	}
	for _, root := range roots {
		for _, t := range commonPaths {
			add(t, root, HowCommonPath)
		}
	}
	return out
}

// check fetches a candidate and records whether it is a feed. A candidate
// that redirects to a feed already found is not listed twice. The error is
// errFetchLimit or the context's.
func (r *run) check(c Candidate) error {
	page, err := r.fetch(c.URL)
	if r.ctx.Err() != nil {
		return r.ctx.Err() // whatever the fetch made of it, the discovery is over
	}
	if errors.Is(err, errFetchLimit) {
		return err
	}
	if err != nil {
		c.Err = err.Error()
		r.res.Candidates = append(r.res.Candidates, c)
		return nil
	}
	if page.URL != "" && page.URL != c.URL {
		c.Requested, c.URL = c.URL, page.URL
		for _, other := range r.res.Candidates {
			if other.Verified && other.URL == c.URL {
				return nil
			}
		}
	}
	if r.d.IsFeed(page.Body, page.ContentType) {
		c.Verified = true
		if t := detectType(page.Body); t != "" {
			c.Type = t
		}
	} else {
		c.Err = notAFeed(page.ContentType)
	}
	r.res.Candidates = append(r.res.Candidates, c)
	return nil
}

// fetch requests a URL within the discovery's budget, recording it in Tried.
func (r *run) fetch(u string) (*Page, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	limit := r.d.MaxFetches
	if limit <= 0 {
		limit = DefaultMaxFetches
	}
	if r.fetches >= limit {
		r.warn("stopped after %d requests, the limit for one discovery", limit)
		return nil, errFetchLimit
	}
	r.fetches++
	r.seen[u] = true
	r.res.Tried = append(r.res.Tried, u)
	page, err := r.d.Fetch.Fetch(r.ctx, u)
	if err != nil {
		return nil, err
	}
	if page == nil {
		return nil, fmt.Errorf("%s: the fetcher returned nothing", u)
	}
	if page.URL != "" {
		r.seen[page.URL] = true
	} else {
		page.URL = u
	}
	return page, nil
}

// warn adds a warning to the result, once.
func (r *run) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, w := range r.res.Warnings {
		if w == msg {
			return
		}
	}
	r.res.Warnings = append(r.res.Warnings, msg)
}

// detectType names a feed body's format: rss (0.9x, 1.0, 2.0), atom or
// json; "" when the body does not say.
func detectType(body []byte) string {
	switch gofeed.DetectFeedType(bytes.NewReader(body)) {
	case gofeed.FeedTypeRSS:
		return "rss"
	case gofeed.FeedTypeAtom:
		return "atom"
	case gofeed.FeedTypeJSON:
		return "json"
	}
	return ""
}

// notAFeed explains why a fetched candidate was rejected.
func notAFeed(contentType string) string {
	if mt := mediaType(contentType); mt != "" {
		return "not a feed (the body served as " + mt + " did not parse as one)"
	}
	return "not a feed (the body did not parse as one)"
}
