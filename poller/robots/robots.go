// Package robots reads hosts' robots.txt (RFC 9309) before Dynamo polls an
// HTML page or probes a site's paths during discovery: it says whether a
// URL may be fetched by Dynamo's User-Agent token (fetch.AgentToken) and
// with what Crawl-delay, which it sets on the fetcher as a floor on the
// host's gap. Each host's robots.txt is read once and kept for its own
// time (Options.TTL, shorter when the origin says so). Native feeds are
// not checked: they are polled as feed readers poll them (docs/FETCHING.md).
//
// The parsing is github.com/temoto/robotstxt's; what an answer means
// follows RFC 9309 §2.3.1: a 2xx is read, a 4xx means no rules, and a 5xx
// or a network failure means everything is disallowed until it is read
// again.
package robots

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
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
	v := Verdict{Allowed: e.rules.Test(path), CrawlDelay: e.rules.CrawlDelay}
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
		rules, perr := parse(resp.Body)
		if perr != nil {
			// Not a robots.txt at all (an HTML error page served as
			// 200, say): no rules can be read from it.
			e.expires = now.Add(c.opts.MinTTL)
			return nil
		}
		e.rules = rules.FindGroup(c.opts.Agent)
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

// parse reads a robots.txt. The parser refuses a whole file over one
// misplaced line (a rule before any User-agent, a Crawl-delay that is not
// a number), where RFC 9309 §2.2 has crawlers use the lines they can:
// such lines are dropped and the rest read again.
func parse(body []byte) (*robotstxt.RobotsData, error) {
	data, err := robotstxt.FromBytes(body)
	if err == nil {
		return data, nil
	}
	var kept bytes.Buffer
	group := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), len(body)+1)
	for sc.Scan() {
		line := sc.Text()
		field, value, _ := strings.Cut(line, ":")
		field = strings.ToLower(strings.TrimSpace(field))
		switch field {
		case "user-agent":
			group = true
		case "allow", "disallow", "crawl-delay":
			if !group {
				continue
			}
			if field == "crawl-delay" {
				if _, err := robotstxt.FromString("User-agent: *\ncrawl-delay:" + value); err != nil {
					continue
				}
			}
		}
		kept.WriteString(line)
		kept.WriteByte('\n')
	}
	return robotstxt.FromBytes(kept.Bytes())
}
