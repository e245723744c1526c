// Package robots reads hosts' robots.txt (RFC 9309) before Dynamo polls an
// HTML page or probes a site's paths during discovery: it says whether a
// URL may be fetched by Dynamo's User-Agent token (fetch.AgentToken) and
// with what Crawl-delay, which it sets on the fetcher as a floor on the
// host's gap. Each host's robots.txt is read once and kept for its own
// time (Options.TTL, shorter when the origin says so). Native feeds are
// not checked: they are polled as feed readers poll them (docs/FETCHING.md).
//
// The parsing and matching are github.com/temoto/robotstxt's, given a
// canonical file where it departs from RFC 9309 (rulesFor); what an
// answer means follows RFC 9309 §2.3.1: a 2xx is read, a 4xx means no rules, and a 5xx
// or a network failure means everything is disallowed until it is read
// again.
package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/dynamo-feeds/dynamo/poller/fetch"
)

// Defaults.
const (
	// DefaultTTL is how long a robots.txt read is kept at most: RFC 9309
	// §2.4 asks crawlers not to use a cached copy longer than 24 hours.
	DefaultTTL = 24 * time.Hour
	// DefaultMinTTL is the least time one is kept, whatever the origin's
	// Cache-Control says, so that no poll costs two requests.
	DefaultMinTTL = 10 * time.Minute
	// DefaultRetryTTL is how long an unreachable robots.txt (5xx, network
	// failure) counts as disallowing everything before it is tried again.
	DefaultRetryTTL = 5 * time.Minute
)

// Options configure a Checker; zero fields take the defaults.
type Options struct {
	// Agent is the product token whose group applies; default
	// fetch.AgentToken.
	Agent string
	// TTL, MinTTL and RetryTTL bound how long answers are kept (see the
	// defaults).
	TTL, MinTTL, RetryTTL time.Duration
	// Now is the clock that expires kept answers; default time.Now.
	Now func() time.Time
}

// Verdict is what a host's robots.txt says of one URL.
type Verdict struct {
	Allowed bool
	// Reason says why a URL is not allowed, for the source's error.
	Reason string
	// CrawlDelay is the Crawl-delay of Dynamo's group, zero for none.
	CrawlDelay time.Duration
}

// Checker answers for every host, keeping each host's robots.txt. It is
// safe for concurrent use; one per process shares the reads.
type Checker struct {
	client *fetch.Client
	opts   Options

	mu    sync.Mutex
	hosts map[string]*entry // by the robots.txt URL
}

// entry is one host's robots.txt as read, or being read (ready open).
type entry struct {
	ready   chan struct{}
	rules   *robotstxt.Group // nil: no rules apply (4xx, none for us)
	deny    string           // when set, everything is disallowed, for this reason
	expires time.Time
}

// maxKept bounds the kept answers: past it, expired ones are dropped.
const maxKept = 4096

// New returns a Checker reading through client, which spaces its requests
// and guards its destinations as for any other request.
func New(client *fetch.Client, opts Options) *Checker {
	if opts.Agent == "" {
		opts.Agent = fetch.AgentToken
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MinTTL <= 0 {
		opts.MinTTL = min(DefaultMinTTL, opts.TTL)
	}
	if opts.RetryTTL <= 0 {
		opts.RetryTTL = DefaultRetryTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Checker{client: client, opts: opts, hosts: map[string]*entry{}}
}

// Check says whether rawURL may be fetched, reading its host's robots.txt
// when no kept answer is fresh, and sets the host's Crawl-delay on the
// fetcher. An error is a failure to ask at all (a URL that does not parse,
// a destination the fetcher refuses, ctx ending): the page's own fetch
// would fail the same way.
func (c *Checker) Check(ctx context.Context, rawURL string) (Verdict, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return Verdict{}, fmt.Errorf("robots.txt for %s: not an http or https URL", rawURL)
	}
	robotsURL := u.Scheme + "://" + u.Host + "/robots.txt"
	e, err := c.entry(ctx, robotsURL)
	if err != nil {
		return Verdict{}, err
	}
	if e.deny != "" {
		return Verdict{Reason: e.deny}, nil
	}
	if e.rules == nil {
		c.client.SetCrawlDelay(rawURL, 0) // a Crawl-delay since dropped
		return Verdict{Allowed: true}, nil
	}
	c.client.SetCrawlDelay(rawURL, e.rules.CrawlDelay)
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	path = normalPath(path)
	v := Verdict{Allowed: e.rules.Test(anchor + path), CrawlDelay: e.rules.CrawlDelay}
	if !v.Allowed {
		v.Reason = fmt.Sprintf("disallowed by robots.txt: %s disallows %s for %s", robotsURL, path, c.opts.Agent)
	}
	return v, nil
}

// entry returns robotsURL's fresh kept answer, reading it when there is
// none; concurrent callers share one read.
func (c *Checker) entry(ctx context.Context, robotsURL string) (*entry, error) {
	for {
		now := c.opts.Now()
		c.mu.Lock()
		e := c.hosts[robotsURL]
		if e != nil {
			select {
			case <-e.ready:
				if now.Before(e.expires) {
					c.mu.Unlock()
					return e, nil
				}
			default: // another caller is reading it
				c.mu.Unlock()
				select {
				case <-e.ready:
					continue
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		}
		e = &entry{ready: make(chan struct{})}
		c.keep(robotsURL, e, now)
		c.mu.Unlock()

		err := c.read(ctx, robotsURL, e)
		if err != nil {
			c.mu.Lock()
			delete(c.hosts, robotsURL)
			c.mu.Unlock()
		}
		close(e.ready)
		return e, err
	}
}

// keep stores e, first dropping expired answers when there are too many.
// The caller holds c.mu.
func (c *Checker) keep(robotsURL string, e *entry, now time.Time) {
	if len(c.hosts) >= maxKept {
		for k, old := range c.hosts {
			select {
			case <-old.ready:
				if !now.Before(old.expires) {
					delete(c.hosts, k)
				}
			default:
			}
		}
	}
	c.hosts[robotsURL] = e
}

// read fetches robotsURL and fills e in as RFC 9309 §2.3.1 says.
func (c *Checker) read(ctx context.Context, robotsURL string, e *entry) error {
	now := c.opts.Now()
	resp, err := c.client.Get(ctx, fetch.Request{URL: robotsURL})
	var fe *fetch.Error
	switch {
	case err == nil:
		rules, ok := rulesFor(resp.Body, c.opts.Agent)
		if !ok {
			// Not a robots.txt at all (an HTML error page served as
			// 200, say): no rules can be read from it.
			e.expires = now.Add(c.opts.MinTTL)
			return nil
		}
		e.rules = rules
		e.expires = now.Add(c.opts.TTL)
		if !resp.Expires.IsZero() {
			// The origin's freshness, from the fetcher's (real) clock.
			e.expires = now.Add(min(max(time.Until(resp.Expires), c.opts.MinTTL), c.opts.TTL))
		}
		return nil
	case errors.As(err, &fe) && fe.Kind == fetch.KindStatus && fe.StatusCode >= 400 && fe.StatusCode < 500 && fe.StatusCode != 429:
		// Unavailable: no rules (§2.3.1.3).
		e.expires = now.Add(c.opts.TTL)
		return nil
	case errors.As(err, &fe) && (fe.Kind == fetch.KindStatus || fe.Kind == fetch.KindNetwork ||
		fe.Kind == fetch.KindTimeout || fe.Kind == fetch.KindTooLarge || fe.Kind == fetch.KindEncoding ||
		fe.Kind == fetch.KindRedirects):
		// Unreachable: complete disallow (§2.3.1.4), 429 included.
		e.deny = fmt.Sprintf("disallowed by robots.txt: %s could not be read (%v), which RFC 9309 counts as disallowing everything; tried again in %s",
			robotsURL, fe.Err, c.opts.RetryTTL)
		e.expires = now.Add(c.opts.RetryTTL)
		return nil
	}
	return fmt.Errorf("robots.txt: %w", err)
}

// rulesFor reads body as RFC 9309 has a crawler read it, for the product
// token agent, and returns the group that applies: nil when none does.
// ok is false when body holds text but not one robots.txt record (an HTML
// page served as robots.txt, say).
//
// robotstxt parses and matches, but on its own it departs from the RFC
// where this matters: it takes a group whose User-agent is a prefix of the
// token ("Dyn") for ours and misses "Dynamo/1.0"; it lets the first of an
// Allow and a Disallow of equal length win, where §2.2.2 has the Allow
// win; it compares paths without the percent-encoding §2.2.2 asks for
// ("/%7Ejoe" is "/~joe"); it matches a rule with a wildcard anywhere in
// the path rather than from its start ("/private*/" matched
// "/public/private1/", and an Allow could so open a disallowed page); and
// it refuses a whole file over one misplaced line, where §2.2 has
// crawlers use the lines they can. So it is given a file canonical
// written from body: the lines of every group naming our token (§2.2.1:
// matching groups are combined) under our token, those of every "*" group
// under "*", nothing else; in each, the Crawl-delays that are numbers,
// then the Allows, then the Disallows, paths percent-normalized and
// anchored (see anchor).
func rulesFor(body []byte, agent string) (group *robotstxt.Group, ok bool) {
	text, records, other := canonical(body, agent)
	if records == 0 {
		return nil, !other
	}
	if text == "" {
		return nil, true // no group for us or for "*"
	}
	data, err := robotstxt.FromString(text)
	if err != nil {
		// canonical writes only what the parser reads (FuzzParse).
		return nil, false
	}
	return data.FindGroup(agent), true
}

// canonical rewrites a robots.txt for agent as rulesFor says. It counts
// the records it recognized (groups' lines, sitemaps), and says whether
// there were other lines besides blank ones and comments.
func canonical(body []byte, agent string) (text string, records int, other bool) {
	type rules struct {
		named                   bool // a group names it, rules or none
		delays, allow, disallow []string
	}
	var ours, star rules
	var inOurs, inStar, agents, inGroup bool
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	// Lines end with CR, LF or both (§2.2).
	lines := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n")
	for line := range strings.Lines(lines) {
		line, _, _ = strings.Cut(line, "#")
		field, value, _ := strings.Cut(line, ":")
		field, value = strings.ToLower(strings.TrimSpace(field)), strings.TrimSpace(value)
		switch field {
		case "user-agent":
			records++
			if !agents { // a User-agent after rules starts a new group
				inOurs, inStar, agents = false, false, true
			}
			inGroup = true
			switch token := productToken(value); {
			case strings.HasPrefix(value, "*") && (len(value) == 1 || value[1] == ' ' || value[1] == '\t'):
				inStar, star.named = true, true
			case token != "" && strings.EqualFold(token, agent):
				inOurs, ours.named = true, true
			}
		case "allow", "disallow", "crawl-delay":
			records++
			agents = false
			if !inGroup {
				continue // a rule before any group applies to no one
			}
			for _, r := range []*rules{&ours, &star} {
				if r == &ours && !inOurs || r == &star && !inStar {
					continue
				}
				switch field {
				case "crawl-delay":
					// Seconds; the fetcher caps a delay at a day anyway.
					if d, err := strconv.ParseFloat(value, 64); err == nil && d >= 0 {
						r.delays = append(r.delays, strconv.FormatFloat(min(d, maxCrawlDelay), 'f', -1, 64))
					}
				case "allow":
					if value != "" { // an empty path matches nothing
						r.allow = append(r.allow, rulePath(value))
					}
				case "disallow":
					if value != "" {
						r.disallow = append(r.disallow, rulePath(value))
					}
				}
			}
		case "sitemap":
			records++
		default:
			other = other || strings.TrimSpace(line) != ""
		}
	}
	var b strings.Builder
	for _, g := range []struct {
		name string
		r    rules
	}{{agent, ours}, {"*", star}} {
		if !g.r.named {
			continue
		}
		fmt.Fprintf(&b, "User-agent: %s\n", g.name)
		for _, d := range g.r.delays {
			fmt.Fprintf(&b, "Crawl-delay: %s\n", d)
		}
		for _, p := range g.r.allow {
			fmt.Fprintf(&b, "Allow: %s%s\n", anchor, p)
		}
		for _, p := range g.r.disallow {
			fmt.Fprintf(&b, "Disallow: %s%s\n", anchor, p)
		}
		if len(g.r.allow)+len(g.r.disallow) == 0 {
			// A group with no path rules still applies (it allows
			// everything); the parser forgets a group without a rule.
			b.WriteString("Disallow:\n")
		}
		b.WriteString("\n")
	}
	return b.String(), records, other
}

// maxCrawlDelay bounds a Crawl-delay in seconds before the parser turns it
// into a time.Duration, which a larger one would overflow.
const maxCrawlDelay = 24 * 60 * 60

// productToken is the product token a User-agent line names: its leading
// letters, '_' and '-' (RFC 9309 §2.2.1), so "Dynamo/1.0" names Dynamo.
func productToken(value string) string {
	end := strings.IndexFunc(value, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '-')
	})
	if end < 0 {
		return value
	}
	return value[:end]
}

// anchor starts every rule the parser is given and every path it tests,
// so that a wildcard rule, which the parser matches anywhere in the path,
// matches only from the start: the parser escapes the '^', so a rule
// "/private*/" becomes the expression `/\^/private.*/`, and a '^' is
// found only there, normalPath having encoded any other. A rule without
// it still matches as a prefix, both sides carrying it.
const anchor = "/^"

// rulePath is an Allow or Disallow path as canonical writes it:
// normalized, and starting with "/" as the parser would make it (a rule
// may start with a wildcard instead).
func rulePath(value string) string {
	if !strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "*") {
		value = "/" + value
	}
	return normalPath(value)
}

// normalPath writes a path (of a rule or a URL) as RFC 9309 §2.2.2 has
// them compared: an octet outside printable ASCII percent-encoded, a
// percent-encoded unreserved character (RFC 3986 §2.3) decoded, any other
// percent-encoding with upper-case digits, and '^', which is no URI
// character and marks the start of a path for the parser (anchor),
// encoded. A rule's '*' and '$' stay.
func normalPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				fmt.Fprintf(&b, "%%%02X", v)
			}
			i += 2
		case c <= ' ' || c >= 0x7f || c == '^':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
