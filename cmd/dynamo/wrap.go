package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

func init() {
	register("wrap", "print the feed extracted from an annotated page (a file, a URL or -)", runWrap)
}

// pageCap bounds what a command reads, from a file, a URL or standard
// input (docs/WRAPPER.md, "Size cap"): a bound keeps a mistaken argument (a
// disk image, an endless response) from exhausting memory.
type pageCap struct {
	bytes int
	what  string // what the bound is, for the error past it
}

// wrap reads any page Dynamo reads; annotate reads pages whose annotated
// copy wrap, the poller and the API still read.
var (
	wrapCap     = pageCap{dynamo.MaxAnnotatedPageBytes, "the most Dynamo reads of a page, annotations included"}
	annotateCap = pageCap{dynamo.MaxPageBytes, "the most a page may have for its annotations to be suggested"}
)

// maxRedirects bounds the redirects followed when fetching a URL.
const maxRedirects = 10

// wrapUsage names the formats transform writes, so that a new one shows
// up here by itself.
var wrapUsage = `usage: dynamo wrap [--base URL] [--id ID] [--type ` + formatNames("|") + `]
                  [--tz ZONE] [--timeout DURATION] FILE|URL|-

Extracts the annotated channel and items of an HTML page (docs/WRAPPER.md) and
prints them as XMLData or a feed. The page is a file, an http or https URL,
or - for standard input. Problems with the page are printed to standard
error as NAME:LINE: message, and the exit code is still 0; it is 1 only when
the page cannot be read, and 2 for a mistake on the command line.

flags:
`

// formatNames lists the formats transform writes, joined by sep.
func formatNames(sep string) string {
	var names []string
	for _, f := range transform.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, sep)
}

// wrapConfig is the parsed command line of wrap.
type wrapConfig struct {
	base    string
	id      string
	format  transform.Format
	loc     *time.Location
	timeout time.Duration
	input   string
	limit   pageCap
}

// runWrap reads the page, wraps it, and prints the document and then the
// warnings; the document is rendered in full before anything is printed,
// so a failure leaves no half document on standard output.
func runWrap(ctx context.Context, args []string, s stdio) int {
	cfg, code, ok := parseWrapArgs(args, s.err)
	if !ok {
		return code
	}
	in, err := readInput(ctx, cfg, s.in)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo wrap: %v\n", err)
		return 1
	}
	base, id := cfg.base, cfg.id
	if base == "" {
		base = in.url
	}
	if id == "" {
		id = defaultID(cfg.input, in.url)
	}
	res := wrapper.Wrap(in.page, wrapper.Options{URL: base, RSSID: id, ContentType: in.contentType, Location: cfg.loc})
	var out bytes.Buffer
	if err := transform.Render(&out, res.Resource, cfg.format); err != nil {
		fmt.Fprintf(s.err, "dynamo wrap: %v\n", err)
		return 1
	}
	for _, w := range in.warnings {
		fmt.Fprintf(s.err, "%s: %s\n", in.name, w)
	}
	printWarnings(s.err, in.name, res.Warnings)
	if _, err := s.out.Write(out.Bytes()); err != nil {
		fmt.Fprintf(s.err, "dynamo wrap: writing the output: %v\n", err)
		return 1
	}
	return 0
}

// parseWrapArgs reads wrap's flags and its one argument. Flags may come
// after the argument too ("dynamo wrap page.html --type atom"), as people
// type them. ok is false when the command should stop with code: 0 for
// -h, 2 for a usage mistake (reported on errOut).
func parseWrapArgs(args []string, errOut io.Writer) (cfg wrapConfig, code int, ok bool) {
	fs := flag.NewFlagSet("wrap", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, wrapUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.base, "base", "", "page `URL` that relative links resolve against (default: the URL read, or file:// of the file)")
	fs.StringVar(&cfg.id, "id", "", "rssId of the document: the collection it belongs to (default: the page's name, e.g. news for news.html)")
	typ := fs.String("type", "rss2", "output `format`: "+formatNames(", "))
	tz := fs.String("tz", "UTC", "IANA time `zone` of dates written on the page without one, e.g. America/New_York")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "time allowed to fetch a URL, redirects and body included")

	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return cfg, code, false
	}
	if len(positional) != 1 {
		fmt.Fprintf(errOut, "dynamo wrap: want one FILE, URL or -, got %d arguments\n", len(positional))
		fs.Usage()
		return cfg, 2, false
	}
	cfg.input = positional[0]
	cfg.limit = wrapCap

	var err error
	if cfg.format, err = transform.ParseFormat(*typ); err != nil {
		fmt.Fprintf(errOut, "dynamo wrap: --type: %v\n", strings.TrimPrefix(err.Error(), dynamo.ErrInvalid.Error()+": "))
		return cfg, 2, false
	}
	if cfg.loc, err = time.LoadLocation(strings.TrimSpace(*tz)); err != nil || strings.TrimSpace(*tz) == "" {
		fmt.Fprintf(errOut, "dynamo wrap: --tz: %q is not a time zone; use an IANA name such as Europe/Paris, or UTC\n", *tz)
		return cfg, 2, false
	}
	if cfg.timeout <= 0 {
		fmt.Fprintf(errOut, "dynamo wrap: --timeout must be positive, got %v\n", cfg.timeout)
		return cfg, 2, false
	}
	if cfg.base != "" {
		if u, err := url.Parse(strings.TrimSpace(cfg.base)); err != nil || !u.IsAbs() {
			fmt.Fprintf(errOut, "dynamo wrap: --base: %q is not an absolute URL\n", cfg.base)
			return cfg, 2, false
		}
	}
	return cfg, 0, true
}

// input is a page read, with what is known of where it came from.
type input struct {
	page        []byte
	name        string // how warnings name it: the path, the URL, or <stdin>
	url         string // the page's URL: the final URL fetched, file:// of a file, "" for stdin
	contentType string // the HTTP Content-Type, "" for files and stdin
	warnings    []string
}

// readInput reads the page named by cfg.input: "-" is standard input, an
// http or https URL is fetched, a file: URL or anything else is a file.
func readInput(ctx context.Context, cfg wrapConfig, stdin io.Reader) (*input, error) {
	arg := cfg.input
	if arg == "-" {
		page, err := readCapped(stdin, "standard input", cfg.limit, 0)
		if err != nil {
			return nil, err
		}
		in := &input{page: page, name: "<stdin>"}
		if cfg.base == "" {
			in.warnings = append(in.warnings, "read from standard input without --base: relative links stay relative, and feeds leave them out")
		}
		return in, nil
	}
	if u, err := url.Parse(arg); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			return fetch(ctx, u, cfg.timeout, cfg.limit)
		case "file":
			if u.Host != "" && u.Host != "localhost" {
				return nil, fmt.Errorf("%s: a file: URL must name a local file", arg)
			}
			return readFile(u.Path, cfg.limit)
		default:
			if strings.Contains(arg, "://") {
				return nil, fmt.Errorf("%s: cannot read %s: URLs; give an http or https URL, a file or -", arg, u.Scheme)
			}
		}
	}
	return readFile(arg, cfg.limit)
}

// readFile reads a page from a file; its URL is file:// of its absolute
// path, so relative links resolve to the files beside it.
func readFile(path string, limit pageCap) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError says which file and why
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a page", path)
	} else if err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	page, err := readCapped(f, path, limit, size)
	if err != nil {
		return nil, err
	}
	in := &input{page: page, name: path}
	if abs, err := filepath.Abs(path); err == nil {
		in.url = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	return in, nil
}

// readCapped reads all of r, failing beyond limit. size is what r should
// hold (a file's size, from stat), 0 when unknown. Read into one buffer of
// that size, a 10 MiB page is written to memory once, where io.ReadAll's
// growing chunks and its final copy write it twice and clear it once:
// each first write of memory is a page fault, and dynamo annotate, with
// the collector off, never reuses memory.
func readCapped(r io.Reader, name string, limit pageCap, size int64) ([]byte, error) {
	var page []byte
	var err error
	if size > 0 && size <= int64(limit.bytes) {
		// MinRead more, so that reading to the end (or past the limit,
		// should the file have grown) needs no larger buffer.
		buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
		_, err = buf.ReadFrom(io.LimitReader(r, int64(limit.bytes)+1))
		page = buf.Bytes()
	} else {
		page, err = io.ReadAll(io.LimitReader(r, int64(limit.bytes)+1))
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(page) > limit.bytes {
		return nil, fmt.Errorf("%s is larger than %d MiB (%d bytes), %s; not read", name, limit.bytes>>20, limit.bytes, limit.what)
	}
	return page, nil
}

// fetch gets a page over HTTP. The whole exchange, redirects and body
// included, is bounded by timeout, and the body (decompressed) by
// limit. Only a 2xx answer is a page.
func fetch(ctx context.Context, u *url.URL, timeout time.Duration, limit pageCap) (*input, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	req.Header.Set("User-Agent", "Dynamo-wrap/"+buildinfo.Read().Short()+" (+https://github.com/dynamo-feeds/dynamo)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	client := &http.Client{
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return nil
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%s: no answer within %v", u, timeout)
		}
		var uerr *url.Error // its message repeats the method and URL: keep the cause
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%s: the server answered %s", final, resp.Status)
	}
	if resp.ContentLength > int64(limit.bytes) {
		return nil, fmt.Errorf("%s is larger than %d MiB (Content-Length %d), %s; not read", final, limit.bytes>>20, resp.ContentLength, limit.what)
	}
	page, err := readCapped(resp.Body, final, limit, 0)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%s: the page did not arrive within %v", final, timeout)
		}
		return nil, err
	}
	return &input{page: page, name: u.String(), url: final, contentType: resp.Header.Get("Content-Type")}, nil
}

// defaultID names the document's collection after the page: its file name
// without extension ("news" for news.html), the folder of an index page
// ("news" for /news/index.html), or the host of a URL without a path;
// "stdin" for standard input.
func defaultID(arg, pageURL string) string {
	if arg == "-" {
		return "stdin"
	}
	path, host := filepath.ToSlash(arg), ""
	if u, err := url.Parse(pageURL); err == nil && pageURL != "" {
		path, host = u.Path, u.Hostname()
	}
	segments := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	for i := len(segments) - 1; i >= 0; i-- {
		name := strings.TrimSuffix(segments[i], filepath.Ext(segments[i]))
		if name != "" && !(i == len(segments)-1 && (name == "index" || name == "default")) {
			return name
		}
	}
	if host != "" {
		return host
	}
	return "page"
}

// printWarnings writes the wrapper's warnings as compilers write theirs,
// NAME:LINE: message, which editors can jump to; page-wide ones have no
// line.
func printWarnings(w io.Writer, name string, warnings []dynamo.Warning) {
	for _, warn := range warnings {
		if warn.Line > 0 {
			fmt.Fprintf(w, "%s:%d: %s\n", name, warn.Line, warn.Message)
		} else {
			fmt.Fprintf(w, "%s: %s\n", name, warn.Message)
		}
	}
}
