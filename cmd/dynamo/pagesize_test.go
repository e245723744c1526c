package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
)

// TestPageSizeRuleCommands is the webmaster's round trip at the size
// limits (docs/WRAPPER.md, "Size cap"): annotate takes a page of exactly
// dynamo.MaxPageBytes, and wrap reads what it printed, though it is over
// that size, from a file, standard input and a URL; one byte more is
// refused by each with a one-line reason.
func TestPageSizeRuleCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, page []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	atLimit := write("at-limit.html", pagetest.List(dynamo.MaxPageBytes))
	overLimit := write("over-limit.html", pagetest.List(dynamo.MaxPageBytes+1))
	items := pagetest.Items(dynamo.MaxPageBytes)

	code, annotated, errOut := run(t, "", "annotate", "--base", pagetest.URL, atLimit)
	if code != 0 {
		t.Fatalf("annotate of a page of exactly %d bytes: exit %d: %s", dynamo.MaxPageBytes, code, errOut)
	}
	if !strings.Contains(errOut, fmt.Sprintf("%d items in", items)) || len(annotated) <= dynamo.MaxPageBytes {
		t.Fatalf("annotate of the page at the limit: %d bytes out, stderr %q; want %d items and more than %d bytes", len(annotated), errOut, items, dynamo.MaxPageBytes)
	}
	annotatedFile := write("annotated.html", []byte(annotated))
	atReadLimit := write("at-read-limit.html", pagetest.Padded([]byte(annotated), dynamo.MaxAnnotatedPageBytes))
	overReadLimit := write("over-read-limit.html", pagetest.Padded([]byte(annotated), dynamo.MaxAnnotatedPageBytes+1))
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)

	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string // in stdout when code is 0, else in the one line of stderr
	}{
		{"annotate one byte over the page limit", "", []string{"annotate", overLimit}, 1, "larger than 10 MiB (10485760 bytes), the most a page may have for its annotations to be suggested; not read"},
		{"wrap the annotated page from its file", "", []string{"wrap", "--base", pagetest.URL, annotatedFile}, 0, ""},
		{"wrap the annotated page from standard input", annotated, []string{"wrap", "--base", pagetest.URL, "-"}, 0, ""},
		{"wrap the annotated page from a URL", "", []string{"wrap", srv.URL + "/annotated.html"}, 0, ""},
		{"wrap a page of exactly the read limit", "", []string{"wrap", "--base", pagetest.URL, atReadLimit}, 0, ""},
		{"wrap one byte over the read limit", "", []string{"wrap", overReadLimit}, 1, "larger than 20 MiB (20971520 bytes), the most Dynamo reads of a page, annotations included; not read"},
		{"wrap one byte over the read limit from a URL", "", []string{"wrap", srv.URL + "/over-read-limit.html"}, 1, "larger than 20 MiB (Content-Length 20971521)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args[0] == "wrap" {
				args = append([]string{"wrap", "--type", "xmldata"}, args[1:]...)
			}
			code, out, errOut := run(t, tt.stdin, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			if code != 0 {
				if out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
					t.Errorf("stdout %d bytes, stderr %q; want one line saying %q", len(out), errOut, tt.want)
				}
				return
			}
			if got := strings.Count(out, "<item "); got != items {
				t.Errorf("%d items, want %d; stderr %q", got, items, errOut)
			}
		})
	}
}

// TestAnnotateRefusesAPageItsReadersWouldNot: a page within the page
// limit whose items are so small and many that their titles and links
// alone would take the annotated page past what Dynamo reads is refused,
// saying why and what to do, rather than annotated into a page wrap and
// the poller would refuse.
func TestAnnotateRefusesAPageItsReadersWouldNot(t *testing.T) {
	if raceDetector {
		t.Skip("suggesting a page of 190,000 items takes tens of seconds under the race detector; TestPageSizeRule in the root package checks the rule")
	}
	var b bytes.Buffer
	b.WriteString("<html><head><title>Register</title></head><body><ul>\n")
	for i := 0; b.Len() < 8<<20; i++ { // written compactly, the titles and links alone take 18 MB
		fmt.Fprintf(&b, "<li><a href=\"/r/%d\">Entry %d</a></li>\n", i, i)
	}
	b.WriteString("</ul></body></html>\n")
	path := filepath.Join(t.TempDir(), "dense.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "", "annotate", path)
	if code != 1 || out != "" || !strings.Contains(errOut, "dynamo annotate: "+path+": page too large: with only its items' titles and links annotated, the annotated page would have") ||
		!strings.Contains(errOut, "more than the 20971520 (20 MiB) that Dynamo reads of a page") || !strings.Contains(errOut, "dynamo annotate --selectors") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want exit 1 saying the annotated page would be too large", code, len(out), errOut)
	}
}

// TestAnnotateLeavesOutDatesToFit: a 10 MiB page of 50,313 notices of
// about 208 bytes (a bold date, a link, a line of text), whose whole
// annotations would take it past 20 MiB, is annotated without the items'
// dates, saying so on standard error, and every item comes back from
// the annotated page with its title, link and description (issue 19).
func TestAnnotateLeavesOutDatesToFit(t *testing.T) {
	if raceDetector {
		t.Skip("suggesting a page of 50,000 items takes tens of seconds under the race detector; TestSuggestFits in package annotate checks the rule")
	}
	page, items := pagetest.Notices(dynamo.MaxPageBytes)
	dir := t.TempDir()
	path := filepath.Join(dir, "notices.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "", "annotate", path)
	if code != 0 || !strings.Contains(errOut, path+": the items' dates were left out ("+strconv.Itoa(items)+" annotations") ||
		!strings.Contains(errOut, "more than the 20971520 (20 MiB) that Dynamo reads of a page; every item keeps its title and link") ||
		strings.Contains(errOut, "descriptions were left out") {
		t.Fatalf("exit %d, stderr %q; want the dates alone left out, said so", code, errOut)
	}
	if len(out) > dynamo.MaxAnnotatedPageBytes {
		t.Fatalf("the annotated page has %d bytes, over %d", len(out), dynamo.MaxAnnotatedPageBytes)
	}
	annotated := filepath.Join(dir, "notices.annotated.html")
	if err := os.WriteFile(annotated, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, feed, errOut := run(t, "", "wrap", "--type", "xmldata", annotated)
	if code != 0 {
		t.Fatalf("wrap: exit %d: %s", code, errOut)
	}
	if got := strings.Count(feed, "<item "); got != items {
		t.Errorf("%d items, want %d", got, items)
	}
	if got := strings.Count(feed, "<description>"); got < items {
		t.Errorf("%d descriptions, want one in each of the %d items", got, items)
	}
	if strings.Contains(feed, "dc:date") {
		t.Errorf("the items have dates, which were to be left out")
	}
}
