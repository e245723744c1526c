package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/internal/verify"
)

// corpusPath is a page of the suggester's corpus.
func corpusPath(name string) string {
	return filepath.Join("..", "..", "annotate", "testdata", "corpus", name)
}

// TestAnnotateThenWrap is the webmaster's round trip: annotate a page,
// then wrap what annotate printed, and get the page's items.
func TestAnnotateThenWrap(t *testing.T) {
	code, out, errOut := run(t, "", "annotate", "--base", "https://dnr.westland.example/news", corpusPath("gov-press-ul.html"))
	if code != 0 {
		t.Fatalf("annotate: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "7 items in") {
		t.Errorf("stderr does not say what was annotated: %s", errOut)
	}
	code, feed, wrapErr := run(t, out, "wrap", "--base", "https://dnr.westland.example/news", "--type", "xmldata", "-")
	if code != 0 || wrapErr != "" {
		t.Fatalf("wrap of the annotated page: exit %d: %s", code, wrapErr)
	}
	verify.XMLData(t, []byte(feed))
	for _, s := range []string{"Spring trout stocking schedule released", "https://dnr.westland.example/news/2024/03/13/trout-stocking-schedule", "2024-03-13"} {
		if !strings.Contains(feed, s) {
			t.Errorf("the feed lacks %q", s)
		}
	}
}

func TestAnnotateExplainAndFetch(t *testing.T) {
	page, err := os.ReadFile(corpusPath("flat-movabletype.html"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	code, out, errOut := run(t, "", "annotate", srv.URL+"/blog/", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "<!DOCTYPE html") || !strings.Contains(out, "<!-- <item:title index=\"1\"> -->") {
		t.Errorf("stdout is not the annotated page")
	}
	for _, s := range []string{"chosen: ", "other candidates, best first:", "module-list", "repeat another list's"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("--explain lacks %q:\n%s", s, errOut)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(line, srv.URL+"/blog/: ") {
			t.Errorf("a line of --explain is not named after the page: %q", line)
		}
	}
}

func TestAnnotateFailures(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.html")
	if err := os.WriteFile(plain, []byte("<p>One paragraph.</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"annotate", plain}, 1, "no list of items found"},
		{[]string{"annotate", filepath.Join(dir, "missing.html")}, 1, "no such file"},
		{[]string{"annotate"}, 2, "want one FILE, URL or -"},
		{[]string{"annotate", "--base", "relative/", plain}, 2, "not an absolute URL"},
		{[]string{"annotate", "--tz", "Mars/Olympus", plain}, 2, "not a time zone"},
		{[]string{"annotate", "--nope", plain}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) || out != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit %d and %q", tt.args, code, len(out), errOut, tt.code, tt.msg)
		}
	}
}

// --selectors prints a selectors source the admin API takes, which reads
// the page's items.
func TestAnnotateSelectors(t *testing.T) {
	code, out, errOut := run(t, "", "annotate", "--selectors", "--base", "https://dnr.westland.example/news", corpusPath("gov-press-ul.html"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	src := dynamo.NewSource("", "")
	if err := src.ApplyJSON([]byte(out)); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if err := src.Validate(nil); err != nil || src.Kind != dynamo.KindSelectors || src.URL != "https://dnr.westland.example/news" {
		t.Fatalf("%+v: %v", src, err)
	}
	c, err := annotate.SourceSelectors(src).Compile()
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(corpusPath("gov-press-ul.html"))
	f, err := annotate.Follow(page, c, annotate.Options{URL: src.URL})
	if err != nil {
		t.Fatal(err)
	}
	if items := f.Wrapped.Resource.Items; len(items) != 7 || items[6].Title != "Governor names new State Parks director" {
		t.Errorf("items %+v", items)
	}
}

// TestCollectLaterRestores checks that the collector, off while commands
// run, is back to its setting when the last of two overlapping commands
// ends, whatever order they end in.
func TestCollectLaterRestores(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: collectLater leaves the collector alone")
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	first := collectLater()
	second := collectLater()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("collector on during a command: GOGC %d", got)
	}
	first()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("collector on while the second command runs: GOGC %d", got)
	}
	second()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after both commands GOGC is %d, want 100", got)
	}
	if limit := debug.SetMemoryLimit(-1); limit == suggestionMemoryLimit {
		t.Errorf("the suggestion's memory limit was left in place")
	}
}
