package reliability_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// TestOversizedAndPathologicalRequests sends the API requests built to
// hurt it: oversized parameters, XPath expressions over the size limit,
// unbalanced or absurdly nested, and legal ones nested hundreds deep. The
// oversized and invalid ones get 400 (or 404 for a path naming no
// collection); the legal ones are answered or refused (the XPath library
// refuses nesting deeper than 200); none gets a 5xx, and each is answered
// quickly. api's
// TestReadErrors and TestXPathIsBounded cover each limit's message and
// XPath expressions whose cost is cubic; this adds the nesting and size
// extremes, end to end over a polled archive.
func TestOversizedAndPathologicalRequests(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	origin := newChangingOrigin(t, 0)
	if err := st.CreateSource(ctx, &dynamo.Source{ID: "news", URL: origin.URL + "/news", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	p, err := poller.New(poller.Config{Store: st, Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1}), Owner: "requests-test"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := p.PollNow(ctx, "news"); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := api.New(api.Config{Store: st, Poller: p, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	xpath := func(expr string) string { return "/resources/news?type=json&xpath=" + url.QueryEscape(expr) }
	rep := strings.Repeat
	cases := []struct {
		name, method, path, body string
		want                     int // 0: any status below 500
	}{
		{"xpath one byte over the limit", "GET", xpath(rep("(", 512) + "//item" + rep(")", 507)), "", 400},
		{"xpath of a thousand open brackets", "GET", xpath("//item" + rep("[", 1000)), "", 400},
		{"xpath of a thousand open parentheses", "GET", xpath(rep("(", 1000)), "", 400},
		{"xpath number of 1000 digits", "GET", xpath("//item[position()=" + rep("9", 900) + "]"), "", 0},
		{"xpath nested 500 parentheses deep", "GET", xpath(rep("(", 500) + "//item" + rep(")", 500)), "", 0},
		{"xpath nested 200 not() deep", "GET", xpath("//item[" + rep("not(", 200) + "0" + rep(")", 200) + "]"), "", 0},
		{"xpath nested 120 predicates deep", "GET", xpath("//*" + rep("[*", 120) + rep("]", 120)), "", 0},
		{"xpath union of 120 paths", "GET", xpath(strings.TrimSuffix(rep("//item|", 120), "|")), "", 0},
		{"xpath of every axis", "GET", xpath("//item/ancestor-or-self::*/descendant-or-self::node()/following::*/preceding::*/.."), "", 0},
		{"xpath that is not a node set", "GET", xpath("count(//item) * string-length(//title)"), "", 400},
		{"condition over 256 bytes", "GET", "/resources/news?title=" + rep("x", 257), "", 400},
		{"33 conditions", "GET", "/aggregate?" + rep("title=a&", 33), "", 400},
		{"query over 4096 bytes", "GET", "/resources/news?type=" + rep("rss2", 1100), "", 400},
		{"65 parameters", "GET", "/resources/news?" + rep("op=or&", 65), "", 400},
		{"max of a billion", "GET", "/resources/news?max=1000000000", "", 400},
		{"index of 400 digits", "GET", "/resources/news?index=" + rep("9", 400), "", 400},
		{"collection id of 10,000 bytes", "GET", "/resources/" + rep("a", 10000), "", 404},
		{"invalid UTF-8 and NUL in a condition", "GET", "/resources/news?title=%FF%FE%00%C0%AF", "", 0},
		{"source of 1 MB", "POST", "/api/sources", `{"url":"http://example.org/","category":"` + rep("c", 1<<20) + `"}`, 400},
		{"URL of 100 KB", "POST", "/api/sources", `{"url":"http://example.org/` + rep("u", 100<<10) + `"}`, 400},
		{"JSON nested 100,000 deep", "POST", "/api/sources", rep(`{"url":`, 100000), 400},
		{"page of 20 MB to the playground", "POST", "/api/wrap", rep("<!-- <item:title> -->x", 1<<20), 0},
	}
	client := &http.Client{Timeout: 30 * time.Second}
	var slowest time.Duration
	var slowestName string
	for _, tc := range cases {
		req, err := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if tc.method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if took > slowest {
			slowest, slowestName = took, tc.name
		}
		switch {
		case tc.want != 0 && resp.StatusCode != tc.want:
			t.Errorf("%s: HTTP %d, want %d: %.300s", tc.name, resp.StatusCode, tc.want, body)
		case resp.StatusCode >= 500:
			t.Errorf("%s: HTTP %d: %.300s", tc.name, resp.StatusCode, body)
		}
		if took > 5*time.Second {
			t.Errorf("%s: answered in %s", tc.name, took)
		}
		t.Logf("%-40s HTTP %d in %s", tc.name, resp.StatusCode, took.Round(time.Millisecond))
	}
	t.Logf("slowest: %s, %s", slowestName, slowest.Round(time.Millisecond))
	// The server is still answering normally.
	resp, err := client.Get(ts.URL + "/resources/news?max=5")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after the hostile requests: %v %v", resp, err)
	}
	resp.Body.Close()
}
