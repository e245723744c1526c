package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/web"
)

// The playground's page work shares the slots of the expensive reads,
// taken before the form is read (docs/RELIABILITY.md, "Security", issue
// 23): while they are taken, a pasted 20 MiB page, an example and a
// source's page are refused with 503 and Retry-After, and the empty form
// and the list of sources still answer; once a slot is free, the page is
// shown.
func TestPlaygroundTakesAHeavySlot(t *testing.T) {
	e := newEnv(t, envOptions{})
	gate := limits.NewGate(1, 1, 50*time.Millisecond)
	cfg := e.cfg
	cfg.Heavy = gate
	h, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// The 20 MiB page is encoded once for the four posts of it: encoding
	// it is most of the test's CPU under the race detector.
	big := url.Values{"action": {"paste"}, "page": {string(pagetest.Padded(pagetest.List(1<<20), dynamo.MaxAnnotatedPageBytes))}, "url": {pagetest.URL}}.Encode()
	release, err := gate.Enter(context.Background()) // the crowd holds the one slot
	if err != nil {
		t.Fatal(err)
	}
	c := client(t)
	for _, do := range []string{"show", "suggest", "download"} {
		resp, body := postEncoded(t, c, srv.URL+"/ui/playground", big+"&do="+do)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "try again in a moment") {
			t.Errorf("%s a 20 MiB page while saturated: %d, Retry-After %q", do, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	for _, path := range []string{"/ui/playground?example=" + firstExample(t, c, srv.URL), "/ui/playground?source=news"} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s while saturated: %d, Retry-After %q", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	for _, path := range []string{"/ui/playground", "/ui/"} {
		if status, _ := get(t, c, srv.URL+path); status != http.StatusOK {
			t.Errorf("%s while saturated: %d, want 200", path, status)
		}
	}
	release()
	if resp, _ := postEncoded(t, c, srv.URL+"/ui/playground", big+"&do=show"); resp.StatusCode != http.StatusOK {
		t.Errorf("a 20 MiB page once the slot is free: %d, want 200", resp.StatusCode)
	}
}

// firstExample is the name of an example page the playground offers.
func firstExample(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	_, body := get(t, c, base+"/ui/playground")
	_, rest, ok := strings.Cut(body, "/ui/playground?example=")
	name, _, _ := strings.Cut(rest, `"`)
	if !ok || name == "" {
		t.Fatal("the playground offers no example page")
	}
	return name
}

// A page of ten million short lines (20 MiB) is answered with its first
// 5,000 lines drawn and a note saying so, not a row for each line (89 s
// to draw whole): the answer is the page in the text box and a bounded
// line view. A page of 3,000 annotated items lists the first 2,000
// annotations and items, counts them all, and its feeds have them all;
// suggesting annotations for a page of 3,000 items shows the first 2,000
// changed lines and the download has them all.
func TestPlaygroundLongPagesBounded(t *testing.T) {
	e := newEnv(t, envOptions{})
	srv := e.srv
	c := client(t)
	paste := func(page, do string) url.Values {
		return url.Values{"action": {"paste"}, "page": {page}, "url": {pagetest.URL}, "do": {do}}
	}

	lines := strings.Repeat("x\n", dynamo.MaxAnnotatedPageBytes/2)
	resp, body := post(t, c, srv.URL+"/ui/playground", paste(lines, "show"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a page of %d lines: status %d", dynamo.MaxAnnotatedPageBytes/2, resp.StatusCode)
	}
	if n := strings.Count(body, `<tr id="L`); n != 5000 {
		t.Errorf("%d lines drawn, want 5000", n)
	}
	if want := fmt.Sprintf("Showing lines 1–5000 of %d", dynamo.MaxAnnotatedPageBytes/2+1); !strings.Contains(body, want) {
		t.Errorf("the answer does not say %q", want)
	}
	// The text box holds the page (escaped as it is, "x\n"); the rest is
	// the bounded line view and the form.
	if extra := len(body) - len(lines); extra > 1<<20 {
		t.Errorf("the answer has %d bytes besides the page's %d, want at most 1 MiB", extra, len(lines))
	}

	var annotated strings.Builder
	annotated.WriteString("<html><head><title>Notices</title></head><body><ul>\n")
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&annotated, "<li><!-- <item:title index=\"%d\"> -->Notice %d<!-- </item:title> --></li>\n", i, i)
	}
	annotated.WriteString("</ul></body></html>\n")
	_, body = post(t, c, srv.URL+"/ui/playground", paste(annotated.String(), "show"))
	for _, want := range []string{"Found <strong>3000</strong> annotations, <strong>3000</strong> items",
		"Listing the first 2000 of 3000 annotations.", "Listing the first 2000 of 3000 items; the feeds below have them all.", "Notice 3000"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of 3000 annotated items: the answer does not say %q", want)
		}
	}
	if n := strings.Count(body, "<td data-label=\"Annotation\">"); n != 2000 {
		t.Errorf("%d annotation rows, want 2000", n)
	}

	var list strings.Builder
	list.WriteString("<html><head><title>Notices</title></head><body><ul>\n")
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&list, "<li><a href=\"/notices/%d\">Notice number %d</a> <p>The council met on the %d matter.</p></li>\n", i, i, i)
	}
	list.WriteString("</ul></body></html>\n")
	_, body = post(t, c, srv.URL+"/ui/playground", paste(list.String(), "suggest"))
	if !strings.Contains(body, "Showing the first 2000 changed lines; the download has them all.") {
		t.Errorf("suggesting for 3000 items: the answer does not say it shows the first 2000 changed lines")
	}
	if n := strings.Count(body, `<tr class="del">`); n != 2000 {
		t.Errorf("%d changed lines shown, want 2000", n)
	}
	_, download := post(t, c, srv.URL+"/ui/playground", paste(list.String(), "download"))
	if n := strings.Count(download, "<!-- <item:title"); n != 3000 {
		t.Errorf("the download has %d item titles annotated, want 3000", n)
	}
}
