package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dynamo-feeds/dynamo/discovery"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
)

func init() {
	register("discover", "find the feed of a site: the candidates, how each was found, which is chosen", runDiscover)
}

const discoverUsage = `usage: dynamo discover [--allow-private] [--json] [--timeout DURATION] URL

Finds the feed of the site at URL (docs/DISCOVERY.md): the feeds its page declares,
the links on it that point at feeds, then the paths where its platform (or
most sites) publish one. Every candidate is fetched and read as a feed
before it is believed. Prints each candidate, how it was found and whether
it is a feed, the one that would be chosen, and every URL requested.

The exit code is 0 when a feed is found, 1 when none is or the page cannot
be read, and 2 for a mistake on the command line.

flags:
`

// discoverHostGap spaces the requests discovery sends to one site. It is
// shorter than the poller's gap: a discovery is one person's one-off
// command, a burst of at most discovery.DefaultMaxFetches requests sent one
// at a time, and waiting a second between each would make a site without
// a feed take half a minute to rule out.
const discoverHostGap = 250 * time.Millisecond

// discoverConfig is the parsed command line of discover.
type discoverConfig struct {
	url          string
	allowPrivate bool
	json         bool
	timeout      time.Duration
}

func runDiscover(ctx context.Context, args []string, s stdio) int {
	cfg, code, ok := parseDiscoverArgs(args, s.err)
	if !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	client := pollfetch.New(pollfetch.Options{AllowPrivate: cfg.allowPrivate, HostGap: discoverHostGap})
	d := &discovery.Discoverer{
		Fetch:   sources.ClientFetcher{Client: client},
		IsFeed:  sources.ReadsAsFeed,
		Allowed: sources.RobotsAllowed(robots.New(client, robots.Options{})),
	}
	res, err := d.Discover(ctx, cfg.url)
	if err != nil && len(res.Tried) == 0 {
		fmt.Fprintf(s.err, "dynamo discover: %v\n", err)
		return 1
	}
	if cfg.json {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(res); werr != nil {
			fmt.Fprintf(s.err, "dynamo discover: writing the output: %v\n", werr)
			return 1
		}
	} else if werr := printDiscovery(s.out, res); werr != nil {
		fmt.Fprintf(s.err, "dynamo discover: writing the output: %v\n", werr)
		return 1
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(s.err, "dynamo discover: %s\n", w)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: gave up after %v (--timeout)", err, cfg.timeout)
		}
		fmt.Fprintf(s.err, "dynamo discover: %v\n", err)
		return 1
	}
	return 0
}

// parseDiscoverArgs reads discover's flags and its URL; flags may follow
// the URL. ok is false when the command should stop with code: 0 for -h,
// 2 for a usage mistake (reported on errOut).
func parseDiscoverArgs(args []string, errOut io.Writer) (cfg discoverConfig, code int, ok bool) {
	fs := flag.NewFlagSet("discover", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, discoverUsage)
		fs.PrintDefaults()
	}
	fs.BoolVar(&cfg.allowPrivate, "allow-private", false, "allow loopback, private and link-local addresses (local sites and tests)")
	fs.BoolVar(&cfg.json, "json", false, "print the result as JSON")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "time allowed for the whole discovery")

	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return cfg, code, false
	}
	if len(positional) != 1 {
		fmt.Fprintf(errOut, "dynamo discover: want one URL, got %d arguments\n", len(positional))
		fs.Usage()
		return cfg, 2, false
	}
	cfg.url = strings.TrimSpace(positional[0])
	if !strings.HasPrefix(cfg.url, "http://") && !strings.HasPrefix(cfg.url, "https://") {
		fmt.Fprintf(errOut, "dynamo discover: %q is not an http or https URL\n", cfg.url)
		return cfg, 2, false
	}
	if cfg.timeout <= 0 {
		fmt.Fprintf(errOut, "dynamo discover: --timeout must be positive, got %v\n", cfg.timeout)
		return cfg, 2, false
	}
	return cfg, 0, true
}

// printDiscovery writes a discovery's result for people: the page, a table
// of the candidates in the order checked (the chosen one starred), the
// choice, and every URL requested.
func printDiscovery(w io.Writer, res *discovery.Result) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "page:       %s\n", res.URL)
	fmt.Fprintf(ew, "platform:   %s\n", orDash(res.Platform))
	if res.Remembered != "" {
		fmt.Fprintf(ew, "remembered: %s\n", res.Remembered)
	}
	fmt.Fprintf(ew, "\ncandidates (%d):\n", len(res.Candidates))
	if len(res.Candidates) > 0 {
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  \tURL\tTYPE\tFOUND BY\tCHECK\tTITLE")
		for i := range res.Candidates {
			c := &res.Candidates[i]
			mark := " "
			if res.Chosen != nil && c.URL == res.Chosen.URL && c.How == res.Chosen.How {
				mark = "*"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", mark, c.URL, orDash(c.Type), c.How, checkText(c), c.Title)
		}
		tw.Flush()
		// A candidate without a title would end its line in padding.
		for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
			io.WriteString(ew, strings.TrimRight(line, " ")+"\n")
		}
	}
	if res.Chosen != nil {
		fmt.Fprintf(ew, "\nchosen:     %s (%s, found by %s)\n", res.Chosen.URL, orDash(res.Chosen.Type), res.Chosen.How)
	} else {
		fmt.Fprintln(ew, "\nchosen:     none")
	}
	fmt.Fprintf(ew, "\ntried (%d):\n", len(res.Tried))
	for _, u := range res.Tried {
		fmt.Fprintf(ew, "  %s\n", u)
	}
	return ew.err
}

// checkText says what fetching a candidate showed.
func checkText(c *discovery.Candidate) string {
	text := "feed"
	if !c.Verified {
		text = c.Err
	}
	if c.Requested != "" {
		text += " (redirected from " + c.Requested + ")"
	}
	return text
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errWriter remembers the first write error, so that printing many lines
// checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
