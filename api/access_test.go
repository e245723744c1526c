package api_test

import (
	"fmt"
	"github.com/dynamo-feeds/dynamo/internal/logtest"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
)

// A page on evil.example rebinds its name to 127.0.0.1, so the operator's
// browser sends it to Dynamo as a same-origin request. Without an admin
// token, none of its changes may pass; the same requests addressed to
// 127.0.0.1 from Dynamo's own origin do.
func TestDNSRebindingIsRefused(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	port := e.http.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	evil := "evil.example:" + port
	rebinding := []string{"Host", evil, "Origin", "http://" + evil, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "cors"}
	for _, tc := range []struct {
		method, path, body string
	}{
		{http.MethodPost, "/api/sources", `{"id":"evil","url":"https://example.org/"}`},
		{http.MethodPut, "/api/poller", `{"policy":"flat"}`},
		{http.MethodDelete, "/api/sources/news?purge=true", ""},
		{http.MethodPost, "/api/sources/news/poll", ""},
		{http.MethodPatch, "/api/sources/news", `{"paused":true}`},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		r := e.do(tc.method, tc.path, body, rebinding...)
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "loopback") {
			t.Errorf("rebinding %s %s: %d %s, want 403 naming the loopback rule", tc.method, tc.path, r.status, r.body)
		}
	}
	if r := e.get("/resources/news?max=10"); r.status != http.StatusOK || !strings.Contains(string(r.body), "<item>") {
		t.Fatalf("the archive after the rebinding attack: %d", r.status)
	}
	if src, err := e.store.Source(t.Context(), "news"); err != nil || src.Paused {
		t.Errorf("the source after the rebinding attack: %v, paused %v", err, src != nil && src.Paused)
	}
	if _, err := e.store.Source(t.Context(), "evil"); err == nil {
		t.Error("the rebinding page registered a source")
	}
	// The operator's own page on 127.0.0.1 and curl on localhost act.
	own := "127.0.0.1:" + port
	e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"flat"}`), "Host", own, "Origin", "http://"+own, "Sec-Fetch-Site", "same-origin").
		must(t, http.StatusOK, "same-origin change from Dynamo's own page")
	e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"smart"}`), "Host", "localhost:"+port).must(t, http.StatusOK, "curl on localhost")
	e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"smart"}`), "Host", "localhost:1").must(t, http.StatusForbidden, "localhost with another port")
}

// A form on another site posts to an endpoint that reads no body: the
// browser says cross-site, and the action must not run, with or without an
// admin token.
func TestCrossSiteFormIsRefused(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", "s3cret-s3cret-s3cret"} {
		var opts []envOption
		if token != "" {
			opts = append(opts, withToken(token))
		}
		e := newEnv(t, stores[0].open(t), opts...)
		e.origin.set("/v.html", annotatedPage("Victim", alpha))
		auth := []string{"Authorization", "Bearer " + token}
		e.do(http.MethodPost, "/api/sources", []byte(`{"id":"victim","url":"`+e.origin.URL+`/v.html","kind":"html"}`), auth...).
			must(t, http.StatusCreated, "create")
		e.origin.set("/v.html", annotatedPage("Victim", alpha, bravo))
		form := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}
		if token != "" {
			form = append(form, auth...) // as if the browser held a credential
		}
		r := e.do(http.MethodPost, "/api/sources/victim/poll", nil, form...)
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "another site") {
			t.Errorf("token %q: a cross-site form's poll: %d %s, want 403", token, r.status, r.body)
		}
		r = e.do(http.MethodPost, "/api/wrap", nil, "Origin", "http://evil.example")
		if r.status != http.StatusForbidden {
			t.Errorf("token %q: a cross-origin POST to /api/wrap without Sec-Fetch-Site: %d, want 403", token, r.status)
		}
		r = e.do(http.MethodPost, "/api/sources/victim/poll", nil, auth...).must(t, http.StatusOK, "a real poll")
		if !strings.Contains(string(r.body), `"version": 1`) || !strings.Contains(string(r.body), `"status": "changed"`) {
			t.Errorf("token %q: the poll after the refused form found %s: the form's poll ran", token, r.body)
		}
	}
}

// Behind a reverse proxy on the same host every peer is loopback: unless
// the proxy is trusted, a proxied request never counts as local; when it
// is, the client it names is what counts.
func TestProxyInFront(t *testing.T) {
	t.Parallel()
	target := func(e *env) *url.URL { u, _ := url.Parse(e.http.URL); return u }
	put := func(t *testing.T, proxyURL string) int {
		req, _ := http.NewRequest(http.MethodPut, proxyURL+"/api/poller", strings.NewReader(`{"policy":"flat"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	t.Run("untrusted, Host kept", func(t *testing.T) {
		e := newEnv(t, stores[0].open(t))
		proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target(e)))
		defer proxy.Close()
		if got := put(t, proxy.URL); got != http.StatusForbidden {
			t.Errorf("PUT /api/poller through an untrusted proxy: %d, want 403", got)
		}
	})
	t.Run("untrusted, Host rewritten", func(t *testing.T) {
		e := newEnv(t, stores[0].open(t))
		proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target(e))
			r.SetXForwarded()
		}})
		defer proxy.Close()
		if got := put(t, proxy.URL); got != http.StatusForbidden {
			t.Errorf("PUT /api/poller through an untrusted proxy that rewrites Host: %d, want 403", got)
		}
	})
	for _, tc := range []struct {
		name, client string
		status       int
	}{
		{"trusted, remote client", "203.0.113.9", http.StatusForbidden},
		{"trusted, local client", "127.0.0.1", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, stores[0].open(t), func(c *api.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
			proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(target(e))
				r.Out.Header.Set("X-Forwarded-For", tc.client)
				r.Out.Header.Set("X-Forwarded-Proto", "https")
			}})
			defer proxy.Close()
			if got := put(t, proxy.URL); got != tc.status {
				t.Errorf("PUT /api/poller for %s through a trusted proxy: %d, want %d", tc.client, got, tc.status)
			}
		})
	}
}

// With a public URL, feed and self links use it, whatever Host the request
// named, and even a local request needs the token.
func TestPublicURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t), func(c *api.Config) { c.BaseURL = "https://feeds.example.org/" })
	if err := e.store.CreateSource(t.Context(), &dynamo.Source{ID: "p", URL: "http://example.org/p", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}); err != nil {
		t.Fatal(err)
	}
	body := string(e.get("/resources?type=atom", "Host", "evil.example").must(t, http.StatusOK, "collections").body)
	if !strings.Contains(body, `href="https://feeds.example.org/resources`) || strings.Contains(body, "evil.example") {
		t.Errorf("links under a public URL:\n%s", body)
	}
	e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"flat"}`)).must(t, http.StatusForbidden, "a local change under a public URL without a token")
}

// Guessing the admin token: each wrong bearer token is logged with the
// client, and after ten the client is answered 429 with Retry-After before
// its token is even compared. The scheme's case does not matter.
func TestBearerGuessesAreLimited(t *testing.T) {
	t.Parallel()
	const token = "s3cret-s3cret-s3cret"
	var logs logtest.Buffer
	e := newEnv(t, stores[0].open(t), withToken(token), func(c *api.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	body := []byte(`{"policy":"flat"}`)
	e.do(http.MethodPut, "/api/poller", body, "Authorization", "bearer "+token).must(t, http.StatusOK, "lowercase bearer scheme")
	e.do(http.MethodPut, "/api/poller", body, "Authorization", "BEARER "+token).must(t, http.StatusOK, "upper-case bearer scheme")
	statuses := map[int]int{}
	var retry string
	for i := range 30 {
		r := e.do(http.MethodPut, "/api/poller", body, "Authorization", fmt.Sprintf("Bearer guess-%d", i))
		statuses[r.status]++
		if r.status == http.StatusTooManyRequests {
			retry = r.header.Get("Retry-After")
		}
	}
	if statuses[http.StatusUnauthorized] != 10 || statuses[http.StatusTooManyRequests] != 20 {
		t.Errorf("30 wrong tokens answered %v, want 10 × 401 then 20 × 429", statuses)
	}
	if n, err := strconv.Atoi(retry); err != nil || n < 1 || n > 6 {
		t.Errorf("Retry-After %q, want 1 to 6 seconds", retry)
	}
	e.do(http.MethodPut, "/api/poller", body, "Authorization", "Bearer "+token).must(t, http.StatusTooManyRequests, "the right token while throttled")
	if n := strings.Count(logs.String(), "wrong admin token"); n != 10 {
		t.Errorf("%d wrong tokens logged, want 10:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "client=127.0.0.1") {
		t.Errorf("the log does not name the client:\n%s", logs.String())
	}
	// Requests with no credential are no guesses.
	e.do(http.MethodPut, "/api/poller", body).must(t, http.StatusUnauthorized, "no credential")
}
