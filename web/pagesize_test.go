package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/web"
)

// TestPlaygroundPagesAtTheSizeLimit: the playground suggests the
// annotations of a page of exactly dynamo.MaxPageBytes, pasted or fetched,
// shows the feed of the annotated page when it is pasted back or fetched
// (it is over that size), offers it for download, and refuses one byte
// more than each limit, saying which (docs/WRAPPER.md, "Size cap"). Pages
// are fetched as dynamo serve fetches them, through the poller's fetcher.
func TestPlaygroundPagesAtTheSizeLimit(t *testing.T) {
	e := newEnv(t, envOptions{})
	cfg := e.cfg
	cfg.Fetch = web.FetchFrom(fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: time.Minute}))
	h, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	page := pagetest.List(dynamo.MaxPageBytes)
	annotated := pagetest.AnnotatedAtLimit(t)
	items := pagetest.Items(dynamo.MaxPageBytes)
	e.site.pages["/at-limit.html"] = sitePage{page, "text/html; charset=utf-8"}
	e.site.pages["/annotated.html"] = sitePage{annotated, "text/html; charset=utf-8"}
	e.site.pages["/over-read-limit.html"] = sitePage{pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes+1), "text/html; charset=utf-8"}

	found := fmt.Sprintf("annotations, <strong>%d</strong> items", items)
	suggested := fmt.Sprintf("Dynamo found <strong>%d items</strong>", items)
	paste := func(p []byte, do string) url.Values {
		return url.Values{"action": {"paste"}, "page": {string(p)}, "url": {pagetest.URL}, "do": {do}}
	}
	fetchURL := func(path, do string) url.Values {
		return url.Values{"action": {"fetch"}, "fetch_url": {e.site.URL + path}, "do": {do}}
	}
	tests := []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"suggest for a pasted page at the limit", paste(page, "suggest"), http.StatusOK, []string{suggested, found}},
		{"suggest for a pasted page one byte over", paste(pagetest.List(dynamo.MaxPageBytes+1), "suggest"), http.StatusOK,
			[]string{"Dynamo could not suggest annotations for this page: page too large: the page has 10485761 bytes; annotations are suggested for pages of at most 10485760 (10 MiB)"}},
		{"show the annotated page pasted back", paste(annotated, "show"), http.StatusOK, []string{found}},
		{"show a pasted page of exactly what Dynamo reads", paste(pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes), "show"), http.StatusOK, []string{found}},
		{"show a pasted page one byte over", paste(pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes+1), "show"), http.StatusBadRequest,
			[]string{"the page has 20971521 bytes; Dynamo reads pages of at most 20971520 (20 MiB, a page of 10 MiB with its annotations)"}},
		{"suggest for a fetched page at the limit", fetchURL("/at-limit.html", "suggest"), http.StatusOK, []string{suggested, found}},
		{"show the annotated page fetched", fetchURL("/annotated.html", "show"), http.StatusOK, []string{found}},
		{"show a fetched page one byte over", fetchURL("/over-read-limit.html", "show"), http.StatusBadRequest, []string{"too-large: body exceeds 20971520 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, client(t), srv.URL+"/ui/playground", tt.form)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("the answer does not say %q", w)
				}
			}
		})
	}
	// A page of many small items, whose whole annotations would not fit
	// what Dynamo reads: its comments are written compactly and the dates
	// are left out, as the notes say, the download fits, and it gives
	// every item (issue 19).
	notices, noticeItems := pagetest.Notices(dynamo.MaxPageBytes)
	t.Run("suggest for a dense page: its dates left out", func(t *testing.T) {
		resp, body := post(t, client(t), srv.URL+"/ui/playground", paste(notices, "suggest"))
		for _, w := range []string{
			fmt.Sprintf("Dynamo found <strong>%d items</strong>", noticeItems),
			fmt.Sprintf("annotations, <strong>%d</strong> items", noticeItems),
			fmt.Sprintf("the items&#39; dates were left out (%d annotations,", noticeItems),
			"more than the 20971520 (20 MiB) that Dynamo reads of a page; every item keeps its title and link",
		} {
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, w) {
				t.Errorf("status %d; the answer does not say %q", resp.StatusCode, w)
			}
		}
		resp, body = post(t, client(t), srv.URL+"/ui/playground", paste(notices, "download"))
		if resp.StatusCode != http.StatusOK || len(body) > dynamo.MaxAnnotatedPageBytes || strings.Count(body, "<!--<item:title ") != noticeItems || strings.Contains(body, "item:extension") {
			t.Errorf("status %d, %d bytes; want the page annotated without dates, within %d bytes", resp.StatusCode, len(body), dynamo.MaxAnnotatedPageBytes)
		}
	})
	t.Run("download the annotated page", func(t *testing.T) {
		resp, body := post(t, client(t), srv.URL+"/ui/playground", paste(page, "download"))
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") || body != string(annotated) {
			t.Errorf("status %d, %q, %d bytes; want the annotated page of %d bytes as an attachment", resp.StatusCode, resp.Header.Get("Content-Disposition"), len(body), len(annotated))
		}
	})
}
