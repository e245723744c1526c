package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
)

// TestServeCompresses: the web interface's HTML, the admin API's JSON and
// the feeds all come gzip-compressed to a client that asks, once each (no
// double encoding where the API's cache compressed already).
func TestServeCompresses(t *testing.T) {
	t.Parallel()
	base := startServe(t, serveConfig{db: sqlitetest.Path(t, t.TempDir(), "dynamo.db"), demo: true})
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for path, want := range map[string]string{
		"/ui/":                       "<html",
		"/ui/search":                 "<html",
		"/api/sources":               "[",
		"/resources?type=atom":       "<feed",
		"/resources?type=xmldata":    "<resource ",
		"/aggregate?max=5&type=json": `"version"`,
	} {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// Vary may come as several header lines (Accept, then Accept-Encoding).
		vary := strings.Join(resp.Header.Values("Vary"), ", ")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(vary, "Accept-Encoding") {
			t.Errorf("%s: %s, Content-Encoding %q, Vary %q", path, resp.Status, resp.Header.Get("Content-Encoding"), vary)
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !strings.Contains(string(plain), want) {
			t.Errorf("%s: decodes to %.80q (%v), want it to hold %q", path, plain, err, want)
		}
	}
}
