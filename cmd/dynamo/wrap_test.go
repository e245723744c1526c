package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// run runs the command line in process, as main does.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// examplePath is the example page's file in the source tree, where the
// README's command reads it.
func examplePath(file string) string { return filepath.Join("..", "..", "examples", file) }

// wantFromWrapper is what the command must print for a page: what the
// wrapper extracts, rendered by transform, and the wrapper's warnings as
// NAME:LINE: lines.
func wantFromWrapper(t *testing.T, page []byte, opts wrapper.Options, name string) *wrapper.Result {
	t.Helper()
	r := wrapper.Wrap(page, opts)
	if len(r.Resource.Items) == 0 {
		t.Fatalf("%s: the wrapper finds no items; the test would check nothing", name)
	}
	return r
}

// TestWrapExamples runs "dynamo wrap" on every example page file in every
// format, and checks the output with the format's validators and with
// python3-feedparser: what a reader sees must be what the wrapper extracted.
func TestWrapExamples(t *testing.T) {
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		base := "http://127.0.0.1:8080" + p.Path
		loc, err := time.LoadLocation(p.TimeZone)
		if err != nil {
			t.Fatal(err)
		}
		want := wantFromWrapper(t, page, wrapper.Options{URL: base, Location: loc}, p.File)
		for _, f := range transform.Formats() {
			t.Run(p.File+"/"+string(f), func(t *testing.T) {
				t.Parallel()
				path := examplePath(p.File)
				code, out, stderr := run(t, "", "wrap", "--base", base, "--tz", p.TimeZone, "--type", string(f), path)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				checkStderr(t, stderr, path, want)
				got := readBack(t, []byte(out), f)
				if f == transform.XMLData {
					checkXMLData(t, []byte(out), want, strings.TrimSuffix(p.File, ".html"))
					return
				}
				checkEntries(t, f, got, want)
			})
		}
	}
}

// checkStderr checks that standard error holds exactly the wrapper's
// warnings, each as NAME:LINE: message.
func checkStderr(t *testing.T, stderr, name string, want *wrapper.Result) {
	t.Helper()
	var lines []string
	for _, w := range want.Warnings {
		if w.Line > 0 {
			lines = append(lines, fmt.Sprintf("%s:%d: %s", name, w.Line, w.Message))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s", name, w.Message))
		}
	}
	wantText := strings.Join(lines, "\n")
	if wantText != "" {
		wantText += "\n"
	}
	if stderr != wantText {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantText)
	}
}

func checkXMLData(t *testing.T, doc []byte, want *wrapper.Result, rssID string) {
	t.Helper()
	got := string(doc)
	if !strings.Contains(got, `rssId="`+rssID+`"`) {
		t.Errorf("the default rssId is not %q:\n%.300s", rssID, got)
	}
	for _, it := range want.Resource.Items {
		if !strings.Contains(got, `id="`+it.ID+`"`) {
			t.Errorf("item %d (id %s) missing from the XMLData", it.Index, it.ID)
		}
	}
}

// checkEntries compares what the feed reader read with what the wrapper
// extracted: titles, links and dates, item by item.
func checkEntries(t *testing.T, f transform.Format, got verify.Parsed, want *wrapper.Result) {
	t.Helper()
	if got.Title != want.Resource.Channel.Title {
		t.Errorf("feed title %q, want %q", got.Title, want.Resource.Channel.Title)
	}
	items := want.Resource.Items
	if len(got.Entries) != len(items) {
		t.Fatalf("%d entries, want %d", len(got.Entries), len(items))
	}
	for i, it := range items {
		e := got.Entries[i]
		if e.Title != it.Title || e.Link != it.Link {
			t.Errorf("entry %d: %q %q, want %q %q", i+1, e.Title, e.Link, it.Title, it.Link)
		}
		wantDate := ""
		if d, ok := it.Date(); ok {
			wantDate = d.UTC().Format(time.RFC3339)
		}
		gotDate := e.Published
		if f == transform.RSS1 {
			// feedparser reads RSS 1.0's dc:date as "updated", and an
			// atom:updated extension there too, whichever comes last.
			gotDate = e.Updated
			if dates := itemDates(it); dates[gotDate] {
				wantDate = gotDate
			}
		}
		if gotDate != wantDate {
			t.Errorf("entry %d: date %q, want %q", i+1, gotDate, wantDate)
		}
		if it.Text != "" && !strings.Contains(collapse(verifyText(e.Summary)), firstWords(it.Text)) {
			t.Errorf("entry %d: description %q does not start like %q", i+1, e.Summary, firstWords(it.Text))
		}
	}
}

// itemDates returns every date extension of the item, as feedparser
// reports them (UTC, RFC 3339).
func itemDates(it dynamo.Item) map[string]bool {
	dates := map[string]bool{}
	for _, e := range it.Extensions {
		if d, err := time.Parse(time.RFC3339, e.Value); err == nil && dynamo.IsDateName(e.LocalName) {
			dates[d.UTC().Format(time.RFC3339)] = true
		}
	}
	return dates
}

// verifyText strips the markup from a summary as read, for comparing text.
func verifyText(s string) string {
	var sb strings.Builder
	inTag := false
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
		case r == '>':
			inTag = false
		case !inTag:
			sb.WriteRune(r)
		}
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", "\u00a0").Replace(sb.String())
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstWords returns the first few words of a text.
func firstWords(s string) string {
	words := strings.Fields(s)
	return strings.Join(words[:min(4, len(words))], " ")
}

// readBack validates doc with the validators of format f and returns what
// the feed reader made of it.
func readBack(t *testing.T, doc []byte, f transform.Format) verify.Parsed {
	t.Helper()
	switch f {
	case transform.XMLData:
		verify.XMLData(t, doc)
		return verify.Parsed{}
	case transform.RSS1:
		return verify.Feed(t, doc, "rss10")
	case transform.RSS2:
		return verify.Feed(t, doc, "rss20")
	case transform.Atom:
		verify.Atom(t, doc)
		return verify.Feed(t, doc, "atom10")
	case transform.JSON:
		return verify.JSONFeed(gofeedVersionTolerant{t}, doc)
	}
	t.Fatalf("no validator for %s", f)
	return verify.Parsed{}
}

// gofeedVersionTolerant lets verify.JSONFeed run all its checks but one:
// gofeed 1.4.2 reports a JSON Feed's version as the version URL, not "1.1",
// so that one check fails on every valid JSON Feed 1.1. Only that exact
// failure is let through (transform's tests do the same).
type gofeedVersionTolerant struct{ testing.TB }

func (t gofeedVersionTolerant) Fatalf(format string, args ...any) {
	if format == "gofeed reads %s %s, want json 1.1" && len(args) == 2 &&
		args[0] == "json" && args[1] == "https://jsonfeed.org/version/1.1" {
		return
	}
	t.TB.Helper()
	t.TB.Fatalf(format, args...)
}

// The README's first command: a file, no flags but --type. Links resolve
// against file:// of the file, dates without a zone are UTC.
func TestWrapFileDefaults(t *testing.T) {
	path := examplePath("news.html")
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "", "wrap", "--type", "atom", path)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	verify.Atom(t, []byte(out))
	got := verify.Feed(t, []byte(out), "atom10")
	// feedparser reads file:///a as file://a, so the link is checked in the
	// document itself.
	dir := "file://" + filepath.ToSlash(filepath.Dir(abs))
	if len(got.Entries) != 9 || !strings.Contains(out, `href="`+dir+`/stories/2005/12/08/council-budget.html"`) {
		t.Fatalf("%d entries; links not under %s:\n%.2000s", len(got.Entries), dir, out)
	}
	if got.Entries[0].Published != "2005-12-08T08:25:00Z" { // "December 08, 2005 @ 08:25 AM" in UTC
		t.Errorf("first entry published %q", got.Entries[0].Published)
	}
	// rss2 is the default type.
	code, out, _ = run(t, "", "wrap", path)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	verify.Feed(t, []byte(out), "rss20")
}

// Flags may follow the argument; --id sets the rssId.
func TestWrapFlagsAfterArgument(t *testing.T) {
	code, out, stderr := run(t, "", "wrap", examplePath("blog.html"), "--type", "xmldata", "--id=workshop", "--base", "http://example.com/blog/")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	verify.XMLData(t, []byte(out))
	if !strings.Contains(out, `rssId="workshop"`) || !strings.Contains(out, `url="http://example.com/blog/"`) {
		t.Errorf("output:\n%.400s", out)
	}
}

func TestWrapStandardInput(t *testing.T) {
	page, err := examples.Read("koi8-r.html")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, string(page), "wrap", "--type", "rss2", "--base", "http://gazeta.example.ru/novosti.html", "--tz", "Europe/Moscow", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	got := verify.Feed(t, []byte(out), "rss20")
	if got.Title != "Вестник Заречья" || len(got.Entries) != 3 ||
		got.Entries[0].Link != "http://gazeta.example.ru/news/2005/12/08/tramvai.html" ||
		got.Entries[0].Published != "2005-12-08T05:25:00Z" {
		t.Errorf("feed = %+v", got)
	}

	// Without --base the links stay relative; the command says so.
	code, out, stderr = run(t, string(page), "wrap", "--type", "xmldata", "-")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	verify.XMLData(t, []byte(out))
	if !strings.Contains(stderr, "<stdin>: read from standard input without --base") || !strings.Contains(out, `rssId="stdin"`) {
		t.Errorf("stderr %q, output:\n%.300s", stderr, out)
	}
}

// Garbage is not an error: the command prints a valid, empty feed and
// warnings, and exits 0.
func TestWrapBadPageIsNotAnError(t *testing.T) {
	pages := map[string]string{
		"binary":              "\x00\x01\xff\xfe\x80garbage<<<<!--",
		"empty":               "",
		"broken annotations":  "<!-- <item:title index=\"1> -->x<!-- </item:title> --><!-- <item:link index=1>",
		"not html at all":     `{"json": true}`,
		"unclosed everything": "<script><!-- <item:title index=1>",
	}
	for name, page := range pages {
		for _, f := range transform.Formats() {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				code, out, stderr := run(t, page, "wrap", "--base", "http://example.com/p.html", "--type", string(f), "-")
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				readBack(t, []byte(out), f)
				for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
					if line != "" && !strings.HasPrefix(line, "<stdin>") {
						t.Errorf("stderr line %q does not name the input", line)
					}
				}
			})
		}
	}
}

// servedExamples serves every example page at its path with its content
// type, and a few misbehaving URLs.
func servedExamples(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc(p.Path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", p.ContentType)
			w.Write(page)
		})
	}
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/news/index.html", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>slow</title>"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never finishes the page
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>filler</p>\n"), 1<<12)
		for sent := 0; sent <= wrapCap.bytes; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		// 21 MiB of zeros, gzipped to about 21 KB: the cap must apply to
		// what is decompressed, not to what is sent.
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(make([]byte, wrapCap.bytes+1<<20))
		zw.Close()
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(buf.Bytes())
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Over loopback, a URL's page is decoded by its Content-Type and its links
// resolve against the URL (after redirects), with no --base.
func TestWrapURL(t *testing.T) {
	srv := servedExamples(t)
	for _, p := range examples.List {
		t.Run(p.File, func(t *testing.T) {
			url := srv.URL + p.Path
			page, _ := examples.Read(p.File)
			loc, _ := time.LoadLocation(p.TimeZone)
			want := wantFromWrapper(t, page, wrapper.Options{URL: url, ContentType: p.ContentType, Location: loc}, p.File)
			code, out, stderr := run(t, "", "wrap", "--type", "atom", "--tz", p.TimeZone, url)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkStderr(t, stderr, url, want)
			verify.Atom(t, []byte(out))
			checkEntries(t, transform.Atom, verify.Feed(t, []byte(out), "atom10"), want)
		})
	}

	t.Run("the header's charset wins over the page's meta", func(t *testing.T) {
		code, out, _ := run(t, "", "wrap", "--type", "rss2", srv.URL+"/mairie/actualites.html")
		got := verify.Feed(t, []byte(out), "rss20")
		if code != 0 || got.Title != "Saint-Rémy-sur-Loire : les actualités de la commune" {
			t.Errorf("exit %d, title %q", code, got.Title)
		}
	})
	t.Run("redirects are followed; links resolve against the final URL", func(t *testing.T) {
		code, out, stderr := run(t, "", "wrap", "--type", "xmldata", srv.URL+"/moved")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		verify.XMLData(t, []byte(out))
		if !strings.Contains(out, `url="`+srv.URL+`/news/index.html"`) || !strings.Contains(out, "<link>"+srv.URL+"/news/stories/2005/12/08/council-budget.html</link>") {
			t.Errorf("output:\n%.1500s", out)
		}
		if !strings.Contains(out, `rssId="news"`) {
			t.Errorf("the rssId of /news/index.html is not news:\n%.200s", out)
		}
	})
}

// A page that cannot be read exits 1 with a one-line reason, and prints
// nothing on standard output.
func TestWrapUnreadableInput(t *testing.T) {
	srv := servedExamples(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/page.html"
	closed.Close()
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // a part of the one line on standard error
	}{
		{"missing file", []string{filepath.Join(dir, "nope.html")}, "no such file or directory"},
		{"directory", []string{dir}, "is a directory, not a page"},
		{"file URL of a remote host", []string{"file://elsewhere/page.html"}, "must name a local file"},
		{"unsupported scheme", []string{"ftp://127.0.0.1/page.html"}, "cannot read ftp: URLs"},
		{"404", []string{srv.URL + "/none.html"}, "the server answered 404 Not Found"},
		{"redirect loop", []string{srv.URL + "/loop"}, "more than 10 redirects"},
		{"connection refused", []string{closedURL}, "connection refused"},
		{"too slow", []string{"--timeout", "300ms", srv.URL + "/slow"}, "did not arrive within 300ms"},
		{"too large", []string{srv.URL + "/huge"}, "larger than 20 MiB"},
		{"compression bomb", []string{srv.URL + "/bomb"}, "larger than 20 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := run(t, "", append([]string{"wrap"}, tt.args...)...)
			if code != 1 || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if !strings.HasPrefix(stderr, "dynamo wrap: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr, tt.want)
			}
		})
	}

	t.Run("standard input too large", func(t *testing.T) {
		code, _, stderr := run(t, strings.Repeat("x", wrapCap.bytes+1), "wrap", "-")
		if code != 1 || !strings.Contains(stderr, "standard input is larger than 20 MiB") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("a file: URL is read as the file", func(t *testing.T) {
		abs, err := filepath.Abs(examplePath("news.html"))
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run(t, "", "wrap", "--type", "xmldata", "file://"+filepath.ToSlash(abs))
		if code != 0 || !strings.Contains(out, `rssId="news"`) {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// Mistakes on the command line exit 2 and say what is wrong.
func TestWrapUsage(t *testing.T) {
	page := examplePath("news.html")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no argument", nil, 2, "want one FILE, URL or -, got 0 arguments"},
		{"two arguments", []string{page, page}, 2, "got 2 arguments"},
		{"unknown type", []string{"--type", "rss3", page}, 2, `--type: unknown feed type "rss3": want one of xmldata, rss1, rss2, atom, json`},
		{"unknown zone", []string{"--tz", "Mars/Olympus", page}, 2, `--tz: "Mars/Olympus" is not a time zone`},
		{"relative base", []string{"--base", "/news/", page}, 2, `--base: "/news/" is not an absolute URL`},
		{"bad timeout", []string{"--timeout", "-1s", page}, 2, "--timeout must be positive"},
		{"unknown flag", []string{"--output", "x", page}, 2, "flag provided but not defined: -output"},
		{"help", []string{"-h"}, 0, "usage: dynamo wrap [--base URL] [--id ID] [--type xmldata|rss1|rss2|atom|json]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := run(t, "", append([]string{"wrap"}, tt.args...)...)
			if code != tt.code || out != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", code, out, stderr, tt.code, tt.want)
			}
		})
	}
}

type brokenWriter struct{}

var errBroken = errors.New("broken pipe")

func (brokenWriter) Write([]byte) (int, error) { return 0, errBroken }

func TestWrapOutputError(t *testing.T) {
	var errOut bytes.Buffer
	code := dispatch(context.Background(), []string{"wrap", examplePath("news.html")}, stdio{in: strings.NewReader(""), out: brokenWriter{}, err: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "writing the output: broken pipe") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestDefaultID(t *testing.T) {
	tests := []struct{ arg, url, want string }{
		{"-", "", "stdin"},
		{"examples/news.html", "file:///src/examples/news.html", "news"},
		{"page", "file:///tmp/page", "page"},
		{"http://h.example/news/index.html", "http://h.example/news/index.html", "news"},
		{"http://h.example/a/b/", "http://h.example/a/b/", "b"},
		{"http://h.example/", "http://h.example/", "h.example"},
		{"http://h.example/index.htm", "http://h.example/index.htm", "h.example"},
		{"http://h.example/club/news.htm?x=1", "http://h.example/club/news.htm?x=1", "news"},
	}
	for _, tt := range tests {
		if got := defaultID(tt.arg, tt.url); got != tt.want {
			t.Errorf("defaultID(%q, %q) = %q, want %q", tt.arg, tt.url, got, tt.want)
		}
	}
}
