package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage"
)

// startServe runs serve in the background on a free loopback port and
// returns its base URL; the server stops when the test ends.
func startServe(t *testing.T, cfg serveConfig) string {
	t.Helper()
	base, stop := startServeStoppable(t, cfg)
	t.Cleanup(stop)
	return base
}

// startServeStoppable is startServe whose caller stops the server, at
// most once, before its test ends.
func startServeStoppable(t *testing.T, cfg serveConfig) (base string, stop func()) {
	t.Helper()
	if cfg.addr == "" {
		cfg.addr = "127.0.0.1:0"
	}
	if cfg.role == "" {
		cfg.role = "all"
	}
	if cfg.workers == 0 {
		cfg.workers = 4
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), ready) }()
	select {
	case addr := <-ready:
		return "http://" + addr, sync.OnceFunc(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	case err := <-done:
		cancel()
		t.Fatalf("serve did not start: %v", err)
	}
	return "", nil
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestServeDemoPollsEveryExampleAndFindsTheWireCopies(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	base := startServe(t, serveConfig{db: db, demo: true, allowPrivate: true, hostGap: -1})
	var stats dynamo.Stats
	deadline := time.Now().Add(30 * time.Second)
	for {
		getJSON(t, base+"/api/stats", &stats)
		if stats.Versions >= 6 && stats.Duplicates > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo not polled within 30s: %+v", stats)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The wire feed is the news page as RSS: its stories are the news
	// page's, polled by another source.
	for _, s := range stats.PerSource {
		if s.ID == "wire" && s.Duplicates == 0 {
			t.Errorf("no wire story recognized as a duplicate: %+v", s)
		}
	}
	resp, err := http.Get(base + "/resources/news?max=5&type=atom")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "<entry>") {
		t.Fatalf("news archive has no entries:\n%s", body)
	}
	verify.Atom(t, body)
	verify.Feed(t, body, "atom10")
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", path, resp.Status)
		}
	}
}

func TestServeAppliesSourcesFileAndShutsDownCleanly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := sqlitetest.Path(t, dir, "dynamo.db")
	file := filepath.Join(dir, "sources.yaml")
	os.WriteFile(file, []byte("sources:\n  - id: one\n    url: http://feeds.example.org/one\n    kind: html\n    interval: 2h\n    category: town\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, serveConfig{addr: "127.0.0.1:0", db: db, sourcesFile: file, role: "all", workers: 2}, slog.New(slog.DiscardHandler), ready)
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("serve ended before serving: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := st.Source(context.Background(), "one")
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != dynamo.KindHTML || time.Duration(src.Interval) != 2*time.Hour || src.Category != "town" {
		t.Fatalf("source from file: %+v", src)
	}
	if src.Summary.LeaseOwner != "" {
		t.Fatalf("lease kept after shutdown by %s", src.Summary.LeaseOwner)
	}
}

func TestParseSourcesFileRefusesMistakes(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"not a list", "id: x", "list of sources"},
		{"unknown field", `[{"id":"a","url":"http://a/","colour":"red"}]`, "colour"},
		{"bad kind", `[{"id":"a","url":"http://a/","kind":"rss"}]`, "kind must be"},
		{"bad interval", `[{"id":"a","url":"http://a/","interval":"soon"}]`, "entry 1"},
		{"no url", `[{"id":"a"}]`, "url is required"},
		{"state", `[{"id":"a","url":"http://a/","state":{}}]`, "kept by Dynamo"},
		{"twice", "- {id: a, url: 'http://a/'}\n- {id: a, url: 'http://b/'}\n", "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSourcesFile([]byte(tc.file), &sources.Service{Policies: policy.Names()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// get reads a URL without following redirects and returns the answer and
// its body.
func get(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestServeMountsTheWebInterfaceBesideTheAPI(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	base := startServe(t, serveConfig{db: db, demo: true, allowPrivate: true, hostGap: -1})

	resp, _ := get(t, base+"/")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %s to %q, want 302 to /ui/", resp.Status, resp.Header.Get("Location"))
	}
	resp, body := get(t, base+"/ui/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /ui/: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, id := range []string{"wire", "news", "blog", "legacy-1252", "koi8-r", "sloppy"} {
		if !strings.Contains(body, `href="/ui/sources/`+id+`"`) {
			t.Errorf("the sources page does not list %s", id)
		}
	}
	if !strings.Contains(body, "Poll now") {
		t.Error("the sources page offers no action to a loopback client without an admin token")
	}
	for path, want := range map[string]string{
		"/ui/sources/news":           "Subscribe",
		"/ui/playground":             "Annotation playground",
		"/ui/search?id=news&title=a": "/resources/news?title=a",
		"/ui/static/style.css":       "",
	} {
		resp, body := get(t, base+path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %s, body has %q: %v", path, resp.Status, want, strings.Contains(body, want))
		}
	}

	// The playground's URL form reads through the poller's client: the
	// demo allows loopback, so the demo's own news page can be fetched.
	var news struct{ URL string }
	getJSON(t, base+"/api/sources/news", &news)
	form := url.Values{"action": {"fetch"}, "fetch_url": {news.URL}}
	resp, err := http.PostForm(base+"/ui/playground", form)
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(pg), "fetched from "+news.URL) || !strings.Contains(string(pg), "Council Approves 2006 Budget") {
		t.Errorf("playground fetch of %s: %s\n%.2000s", news.URL, resp.Status, pg)
	}

	// The API answers as before, and so do its 404s.
	for path, want := range map[string]int{
		"/resources":                 http.StatusOK,
		"/resources/news?type=atom":  http.StatusOK,
		"/api/sources":               http.StatusOK,
		"/api/poller":                http.StatusOK,
		"/healthz":                   http.StatusOK,
		"/metrics":                   http.StatusOK,
		"/resources/nope":            http.StatusNotFound,
		"/no-such-page":              http.StatusNotFound,
		"/uix":                       http.StatusNotFound,
		"/ui/sources/no-such-source": http.StatusNotFound,
		"/ui/no-such-page":           http.StatusNotFound,
	} {
		if resp, _ := get(t, base+path); resp.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", path, resp.Status, want)
		}
	}
	if resp, _ := get(t, base+"/no-such-page"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("a path outside /ui/ answers %s: the API's plain-text 404 is expected", resp.Header.Get("Content-Type"))
	}
	_, metrics := get(t, base+"/metrics")
	for _, route := range []string{`route="/ui/"`, `route="/ui/sources/{id}"`, `route="/ui/playground"`, `route="/resources/{rssId}"`} {
		if !strings.Contains(metrics, route) {
			t.Errorf("/metrics has no requests for %s", route)
		}
	}
}

func TestServeRolesAndTheWebInterface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sources.yaml")
	os.WriteFile(file, []byte("- {id: one, url: 'http://feeds.example.org/one', kind: html}\n"), 0o644)
	db := sqlitetest.Path(t, dir, "dynamo.db")

	// An API-only process serves the pages, says it does not poll, and its
	// playground fetches through the guard that refuses loopback.
	base := startServe(t, serveConfig{db: db, sourcesFile: file, role: "api"})
	resp, body := get(t, base+"/ui/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "No poller runs in this process") || !strings.Contains(body, `href="/ui/sources/one"`) {
		t.Fatalf("role api /ui/: %s\n%.2000s", resp.Status, body)
	}
	// Poll now through the API says where polling happens.
	for _, req := range []struct{ method, path string }{{"POST", "/api/sources/one/poll"}, {"GET", "/api/poller"}} {
		r, err := http.NewRequest(req.method, base+req.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		answer, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(answer.Body)
		answer.Body.Close()
		if answer.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(msg), "the processes of --role poller or all poll the sources on their schedule") {
			t.Errorf("role api %s %s: %s %s, want 503 saying who polls", req.method, req.path, answer.Status, msg)
		}
	}
	resp, err := http.PostForm(base+"/ui/sources/one/poll", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden { // no anti-forgery token
		t.Errorf("poll without a form token: %s", resp.Status)
	}
	resp, err = http.PostForm(base+"/ui/playground", url.Values{"action": {"fetch"}, "fetch_url": {base + "/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(pg), "fetching "+base+"/ui/ failed") {
		t.Errorf("playground fetch of a loopback URL without --allow-private: %s\n%.3000s", resp.Status, pg)
	}

	// A poller-only process serves no pages, and says where they are
	// rather than the standard library's bare "404 page not found".
	base = startServe(t, serveConfig{db: sqlitetest.Path(t, dir, "poller.db"), role: "poller"})
	for path, want := range map[string]int{"/": http.StatusNotFound, "/ui/": http.StatusNotFound, "/resources/one": http.StatusNotFound, "/api/sources": http.StatusNotFound, "/healthz": http.StatusOK, "/metrics": http.StatusOK} {
		resp, body := get(t, base+path)
		if resp.StatusCode != want {
			t.Errorf("role poller GET %s: %s, want %d", path, resp.Status, want)
		}
		if want == http.StatusNotFound && !strings.Contains(body, "this process polls only (--role poller)") {
			t.Errorf("role poller GET %s: %q, want it to say the process only polls and who serves the rest", path, body)
		}
	}
}

func TestServeWebInterfaceNeedsTheAdminTokenWhenOneIsSet(t *testing.T) {
	t.Setenv("DYNAMO_ADMIN_TOKEN", "s3cret-s3cret-s3cret")
	dir := t.TempDir()
	file := filepath.Join(dir, "sources.yaml")
	os.WriteFile(file, []byte("- {id: one, url: 'http://feeds.example.org/one', kind: html}\n"), 0o644)
	base := startServe(t, serveConfig{db: sqlitetest.Path(t, dir, "dynamo.db"), sourcesFile: file})
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	read := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	page := read(c.Get(base + "/ui/"))
	if strings.Contains(page, `action="/ui/sources/one/pause"`) || !strings.Contains(page, `href="/ui/login"`) {
		t.Fatal("with an admin token set, the sources page offers actions before logging in")
	}
	// The API holds the same token.
	req, _ := http.NewRequest(http.MethodPut, base+"/api/poller", strings.NewReader(`{"policy":"flat"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("PUT /api/poller without the token: %s", resp.Status)
	}
	login := read(c.Get(base + "/ui/login"))
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(login)
	if m == nil {
		t.Fatalf("no form token on the login page:\n%s", login)
	}
	read(c.PostForm(base+"/ui/login", url.Values{"csrf": {m[1]}, "token": {"s3cret-s3cret-s3cret"}}))
	page = read(c.Get(base + "/ui/"))
	if !strings.Contains(page, `action="/ui/sources/one/pause"`) {
		t.Fatal("after logging in with the admin token, the sources page offers no action")
	}
	m = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	read(c.PostForm(base+"/ui/sources/one/pause", url.Values{"csrf": {m[1]}, "paused": {"true"}}))
	var one dynamo.Source
	getJSON(t, base+"/api/sources/one", &one)
	if !one.Paused {
		t.Error("pausing through the interface did not pause the source")
	}
}

// With --public-url, serve refuses to start without an admin token; it
// refuses a token shorter than 16 characters; with one the feeds' links use the public URL whatever Host was asked.
func TestServePublicURL(t *testing.T) {
	dir := t.TempDir()
	cfg := serveConfig{addr: "127.0.0.1:0", role: "all", workers: 1, db: filepath.Join(dir, "dynamo.db"), publicURL: "https://feeds.example.org"}
	t.Setenv("DYNAMO_ADMIN_TOKEN", "")
	err := serve(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
	if err == nil || !strings.Contains(err.Error(), "DYNAMO_ADMIN_TOKEN") {
		t.Fatalf("--public-url without a token: %v", err)
	}
	t.Setenv("DYNAMO_ADMIN_TOKEN", "fifteen-chars-x")
	err = serve(t.Context(), cfg, slog.New(slog.DiscardHandler), nil)
	if err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("a 15-character token: %v", err)
	}
	t.Setenv("DYNAMO_ADMIN_TOKEN", "a-token-long-enough-for-anyone")
	base := startServe(t, cfg)
	req, _ := http.NewRequest(http.MethodGet, base+"/resources?type=atom", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `href="https://feeds.example.org/resources`) || strings.Contains(string(body), "evil.example") {
		t.Errorf("links under --public-url:\n%s", body)
	}
}

// TestSourcesFileNamesUnknownKey: a mistyped key of a YAML sources file is
// named as a YAML key, with its entry, its line and the key meant, not as
// encoding/json's "json: unknown field" of the entry's JSON form; a JSON
// file's says field, with the entry and the field meant.
func TestSourcesFileNamesUnknownKey(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"yaml", "sources:\n  - id: a\n    url: http://a/\n  - id: b\n    url: http://b/\n    intervall: 1h\n",
			`entry 2, line 6: unknown key "intervall": did you mean "interval"?`},
		{"yaml whole", "- &x {id: a, url: 'http://a/'}\n- id: b\n  url: http://b/\n  colour: red\n",
			`entry 2, line 4: unknown key "colour": a source's fields are id, url,`},
		{"json", `[{"id":"a","url":"http://a/","intervall":"1h"}]`,
			`entry 1: invalid: unknown field "intervall": did you mean "interval"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSourcesFile([]byte(tc.file), &sources.Service{Policies: policy.Names()})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "json:") || strings.HasSuffix(err.Error(), ": invalid") {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
