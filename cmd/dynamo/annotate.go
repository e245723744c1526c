package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

func init() {
	register("annotate", "suggest the annotations of a page that has none (prints the annotated page)", runAnnotate)
}

const annotateUsage = `usage: dynamo annotate [--base URL] [--tz ZONE] [--timeout DURATION] [--explain] [--selectors] FILE|URL|-

Finds the list of items on an HTML page (a list, a table, cards, a
definition list, a legacy table layout), chooses each item's title, link,
description and date, and prints the page with the annotations inserted as
comments. Every byte outside the inserted comments is the page's own, so
the result can be diffed and deployed; "dynamo wrap" of it gives the items.
With --selectors it prints instead the same choice as a selectors source
(JSON, as POST /api/sources takes it): for pages one cannot edit.
What was chosen, and the page's other lists, are noted on standard error;
--explain says why, with the other candidates and why they lost. The exit
code is 1 when the page cannot be read or holds no list, 2 for a mistake on
the command line.

flags:
`

type annotateConfig struct {
	wrapConfig
	explain, selectors bool
}

func runAnnotate(ctx context.Context, args []string, s stdio) int {
	cfg, code, ok := parseAnnotateArgs(args, s.err)
	if !ok {
		return code
	}
	defer collectLater()()
	in, err := readInput(ctx, cfg.wrapConfig, s.in)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo annotate: %v\n", err)
		return 1
	}
	base := cfg.base
	if base == "" {
		base = in.url
	}
	opts := annotate.Options{URL: base, ContentType: in.contentType, Location: cfg.loc, MaxBytes: dynamo.MaxAnnotatedPageBytes}
	if cfg.selectors {
		opts.MaxBytes = 0 // selectors read the page as it is: no annotation is written
	}
	res, err := annotate.Suggest(in.page, opts)
	if err != nil { // no list, an encoding that cannot be edited in place, or too many items for their size
		fmt.Fprintf(s.err, "dynamo annotate: %s: %v\n", in.name, err)
		return 1
	}
	if cfg.explain {
		if err := res.Explain(prefixWriter{w: s.err, prefix: in.name + ": "}); err != nil {
			return 1
		}
	} else {
		fmt.Fprintf(s.err, "%s: %d items in %s\n", in.name, res.List.Records, res.List.Path)
		for _, n := range res.Notes {
			fmt.Fprintf(s.err, "%s: %s\n", in.name, n)
		}
	}
	for _, w := range in.warnings {
		fmt.Fprintf(s.err, "%s: %s\n", in.name, w)
	}
	out := res.Page
	if cfg.selectors {
		if out, err = selectorsSource(res, base, in.name, s.err); err != nil {
			fmt.Fprintf(s.err, "dynamo annotate: %s: %v\n", in.name, err)
			return 1
		}
	}
	if _, err := s.out.Write(out); err != nil {
		fmt.Fprintf(s.err, "dynamo annotate: writing the output: %v\n", err)
		return 1
	}
	return 0
}

// suggestionMemoryLimit bounds the heap while collectLater has the
// collector off: a suggestion of a page of dynamo.MaxPageBytes peaks near
// 220 MB without collection, so the limit is only a backstop.
const suggestionMemoryLimit = 1 << 30

// collectLater turns the garbage collector off for one command (reading
// the page, the suggestion, the output) and returns the function that
// turns it back on when the command is done. A suggestion builds the
// page's tree, about twenty bytes of heap a byte of page, and all of it
// stays live until the annotated page is written, so the collector's
// cycles meanwhile free little and cost about a fifth of the command's
// CPU on a 10 MiB page (docs/benchmarks/annotate.md). The memory limit
// makes the runtime collect anyway should the heap ever approach it; a
// GOGC or GOMEMLIMIT the user set is left as it is. Commands run side by
// side (the tests run several in one process) share one setting: the
// first to start turns the collector off, the last to finish restores it.
func collectLater() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	collecting.Lock()
	defer collecting.Unlock()
	if collecting.commands == 0 {
		collecting.limit = debug.SetMemoryLimit(-1)
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(suggestionMemoryLimit)
		}
		collecting.percent = debug.SetGCPercent(-1)
	}
	collecting.commands++
	return func() {
		collecting.Lock()
		defer collecting.Unlock()
		collecting.commands--
		if collecting.commands == 0 {
			debug.SetGCPercent(collecting.percent)
			debug.SetMemoryLimit(collecting.limit)
		}
	}
}

// collecting is the collector's setting from before the first of the
// commands that collectLater turned it off for.
var collecting struct {
	sync.Mutex
	commands int
	percent  int
	limit    int64
}

// selectorsSource writes the suggester's choice as a selectors source, in
// the JSON the admin API takes: its settings as dynamo.ConfigFields names
// them, with its url and a derived id when the page's URL is known.
func selectorsSource(res *annotate.Result, base, name string, errOut io.Writer) ([]byte, error) {
	sel, note, err := res.Selectors()
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintf(errOut, "%s: %s\n", name, note)
	}
	src := dynamo.NewSource("", "")
	if u, err := url.Parse(base); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		src.URL, src.ID = base, dynamo.DeriveSourceID(base)
	}
	sel.SetOn(src)
	fields := map[string]string{}
	for _, f := range dynamo.ConfigFields() {
		if text, set := src.ConfigText(f); set {
			fields[f] = text
		}
	}
	out, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// prefixWriter starts every line with a prefix, as warnings are printed.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	text := strings.TrimSuffix(string(b), "\n")
	for _, line := range strings.Split(text, "\n") {
		if _, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, line); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

func parseAnnotateArgs(args []string, errOut io.Writer) (cfg annotateConfig, code int, ok bool) {
	fs := flag.NewFlagSet("annotate", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, annotateUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.base, "base", "", "page `URL` that relative links resolve against (default: the URL read, or file:// of the file)")
	tz := fs.String("tz", "UTC", "IANA time `zone` of dates written on the page without one")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "time allowed to fetch a URL, redirects and body included")
	fs.BoolVar(&cfg.explain, "explain", false, "say on standard error which structure was chosen, the other candidates and why they lost")
	fs.BoolVar(&cfg.selectors, "selectors", false, "print the choice as a selectors source (JSON for POST /api/sources) instead of the annotated page")
	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return cfg, code, false
	}
	if len(positional) != 1 {
		fmt.Fprintf(errOut, "dynamo annotate: want one FILE, URL or -, got %d arguments\n", len(positional))
		fs.Usage()
		return cfg, 2, false
	}
	cfg.input = positional[0]
	cfg.limit = annotateCap
	var err error
	if cfg.loc, err = time.LoadLocation(strings.TrimSpace(*tz)); err != nil || strings.TrimSpace(*tz) == "" {
		fmt.Fprintf(errOut, "dynamo annotate: --tz: %q is not a time zone; use an IANA name such as Europe/Paris, or UTC\n", *tz)
		return cfg, 2, false
	}
	if cfg.timeout <= 0 {
		fmt.Fprintf(errOut, "dynamo annotate: --timeout must be positive, got %v\n", cfg.timeout)
		return cfg, 2, false
	}
	if cfg.base != "" {
		if u, err := url.Parse(strings.TrimSpace(cfg.base)); err != nil || !u.IsAbs() {
			fmt.Fprintf(errOut, "dynamo annotate: --base: %q is not an absolute URL\n", cfg.base)
			return cfg, 2, false
		}
	}
	return cfg, 0, true
}
