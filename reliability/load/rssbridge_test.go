//go:build long

package load_test

import (
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rssBridgeDir is where Debian's rss-bridge package (2022-01-20 in
// bookworm) installs the application.
const rssBridgeDir = "/usr/share/rss-bridge"

// rssBridgeConfig is RSS-Bridge's configuration for the comparison: the
// file cache (the default) with a per-request timeout allowed, so that
// `_cache_timeout=0` turns the cache off for the uncached runs; no proxy,
// no authentication, no donation links; errors as HTTP statuses, so that
// wrk counts them. Nothing in this version checks for updates or calls
// home: the only fetch is the page URL of the request.
const rssBridgeConfig = `; <?php exit; ?> DO NOT REMOVE THIS LINE
[system]
timezone = "UTC"

[cache]
type = "file"
custom_timeout = true

[admin]
email = ""
donations = false

[proxy]
url = ""
by_bridge = false

[authentication]
enable = false

[error]
output = "http"
report_limit = 1
`

// startRSSBridge copies Debian's RSS-Bridge to a temporary directory with
// its own configuration, cache and whitelist (only the XPath bridge: this
// version predates CssSelectorBridge; XPathBridge is its generic
// selector-based bridge), and serves it with PHP's built-in server on
// 127.0.0.1 with four workers and OPcache on. It returns its base URL.
func startRSSBridge(t *testing.T) string {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		t.Fatalf("php is needed in long mode (apt-get install php-cli; scripts/reliability.sh installs it): %v", err)
	}
	if _, err := os.Stat(filepath.Join(rssBridgeDir, "bridges", "XPathBridge.php")); err != nil {
		t.Fatalf("RSS-Bridge is needed in long mode (apt-get install rss-bridge): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "rss-bridge")
	if out, err := exec.Command("cp", "-a", rssBridgeDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("copy RSS-Bridge: %v\n%s", err, out)
	}
	// The package links its cache, configuration and whitelist to /var and
	// /etc, and vendor/parsedown relatively to /usr/share/php: the copy
	// gets its own of the first three and an absolute link for the last.
	for _, name := range []string{"cache", "config.ini.php", "whitelist.txt"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(path)
		if err != nil || filepath.IsAbs(target) {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		return os.Symlink(filepath.Join(rssBridgeDir, rel, target), path)
	}); err != nil {
		t.Fatalf("relink the copy of RSS-Bridge: %v", err)
	}
	for name, content := range map[string]string{"config.ini.php": rssBridgeConfig, "whitelist.txt": "XPath\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "cache"), 0o755); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "php.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(php, "-d", "opcache.enable_cli=1", "-d", "display_errors=0", "-S", addr, "-t", dir)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RSSBRIDGE_") { // they would override the configuration
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PHP_CLI_SERVER_WORKERS=4")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The workers are children of the server: stop them all as a group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start php -S: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			if log, err := os.ReadFile(logFile.Name()); err == nil {
				t.Logf("php -S log (last 4 kB):\n%s", tail(string(log), 4096))
			}
		}
	})
	base := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if i == 100 {
			t.Fatalf("RSS-Bridge does not answer on %s: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// atomTitles reads the entry titles of an Atom feed.
func atomTitles(t *testing.T, what string, body []byte) []string {
	t.Helper()
	var feed struct {
		Entries []struct {
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(body, &feed); err != nil {
		t.Fatalf("%s: not Atom: %v\n%.500s", what, err, body)
	}
	var titles []string
	for _, e := range feed.Entries {
		titles = append(titles, strings.TrimSpace(e.Title))
	}
	slices.Sort(titles)
	return titles
}

// TestBesideRSSBridge serves one annotated page from a loopback site
// through Dynamo (the built binary, embedded store, the page registered
// and polled) and through RSS-Bridge's XPath bridge (PHP's built-in
// server), checks that both feeds carry the same entries, then measures
// each with wrk in the same run, 32 connections each: cached (Dynamo's
// render cache; RSS-Bridge's file cache) and uncached (Dynamo renders from
// its store on every request; RSS-Bridge fetches the page, parses it and
// renders on every request). Long mode only. Every run must be free of
// errors; the site's hit counter shows who fetched what.
func TestBesideRSSBridge(t *testing.T) {
	s := newSite(t)
	s.set("/town.html", annotatedPage("Town News", stories(0, 30)...))

	p := startServe(t, "--allow-private")
	c := newDynamoClient(t, p.base)
	waitCache(t, c)
	c.register("town", s.URL+"/town.html")
	c.poll("town", 1)
	dynamoURL := p.base + "/resources/town?index=1&type=atom"

	bridge := startRSSBridge(t)
	q := url.Values{
		"action":  {"display"},
		"bridge":  {"XPath"},
		"format":  {"Atom"},
		"url":     {s.URL + "/town.html"},
		"item":    {`//div[@class="story"]`},
		"title":   {".//a"},
		"content": {".//p"},
		"uri":     {".//a/@href"},
	}
	bridgeURL := bridge + "/?" + q.Encode()

	get := func(u string) []byte {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") {
			t.Fatalf("GET %s: %s, %s\n%.500s", u, resp.Status, resp.Header.Get("Content-Type"), body)
		}
		return body
	}
	dynamoTitles := atomTitles(t, "Dynamo", get(dynamoURL))
	bridgeTitles := atomTitles(t, "RSS-Bridge", get(bridgeURL))
	if len(dynamoTitles) != 30 || !slices.Equal(dynamoTitles, bridgeTitles) {
		t.Fatalf("the feeds differ:\nDynamo %q\nRSS-Bridge %q", dynamoTitles, bridgeTitles)
	}

	const conns, d = 32, 20 * time.Second
	type run struct {
		name, url, script string
		closes            bool // PHP's server closes each connection
		fetches           bool // every request fetches the page from the site
	}
	runs := []run{
		{"Dynamo cached", dynamoURL, "percentiles.lua", false, false},
		{"RSS-Bridge cached", bridgeURL, "percentiles.lua", true, false},
		{"Dynamo uncached (store + render per request)", dynamoURL, "fresh_host.lua", false, false},
		{"RSS-Bridge uncached (fetch + parse + render per request)", bridgeURL + "&_cache_timeout=0", "percentiles.lua", true, true},
	}
	rps := map[string]float64{}
	for _, r := range runs {
		before := s.hits.Load()
		res := runWrk(t, wrkRun{name: "beside RSS-Bridge: " + r.name, url: r.url, conns: conns, d: d, script: r.script})
		res.mustBeClean(t, r.name, r.closes)
		pages := int(s.hits.Load() - before)
		t.Logf("%s: the site served %d pages during the run", r.name, pages)
		if r.fetches && pages < res.requests || !r.fetches && pages != 0 {
			t.Errorf("%s: the site served %d pages for %d requests: the cache is not as configured", r.name, pages, res.requests)
		}
		rps[r.name] = res.rps
	}
	t.Logf("RESULT | beside RSS-Bridge: Dynamo/RSS-Bridge requests per second: cached %.1f×, uncached %.1f× |",
		rps[runs[0].name]/rps[runs[1].name], rps[runs[2].name]/rps[runs[3].name])
}
