package httpcompress_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/httpcompress"
)

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"GZIP":                    true,
		"x-gzip":                  true,
		"deflate, gzip;q=1.0":     true,
		"gzip;q=0":                false,
		"gzip; q=0.000":           false,
		"gzip;q=0.5":              true,
		"gzip;q=nope":             false,
		"br, zstd":                false,
		"*":                       true,
		"*;q=0":                   false,
		"*, gzip;q=0":             false,
		"identity":                false,
		"br;q=1.0, gzip;q=0.8, *": true,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if header != "" {
			r.Header.Set("Accept-Encoding", header)
		}
		if got := httpcompress.AcceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

func TestCompressibleAndETag(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/html; charset=utf-8": true, "application/json": true, "application/rss+xml; charset=utf-8": true,
		"application/feed+json": true, "application/xml": true, "image/svg+xml": true, "text/css": true,
		"image/png": false, "application/octet-stream": false, "": false, "application/gzip": false,
	} {
		if got := httpcompress.Compressible(ct); got != want {
			t.Errorf("Compressible(%q) = %v", ct, got)
		}
	}
	for in, want := range map[string]string{`"abc"`: `"abc-gzip"`, `W/"abc"`: `W/"abc-gzip"`, "": "", "bare": "bare"} {
		if got := httpcompress.ETag(in); got != want {
			t.Errorf("ETag(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHandler: compressible answers over MinSize are gzipped for clients
// that ask, with Vary and a gzip ETag; small, binary, already encoded and
// HEAD answers are left alone; If-None-Match with the gzip ETag reaches the
// handler as its plain tag.
func TestHandler(t *testing.T) {
	big := strings.Repeat("<p>a fair amount of text</p>\n", 100)
	mux := http.NewServeMux()
	page := func(ct, body string, extra ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("ETag", `"v1"`)
			for i := 0; i+1 < len(extra); i += 2 {
				w.Header().Set(extra[i], extra[i+1])
			}
			if strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/html", page("text/html; charset=utf-8", big))
	mux.HandleFunc("/small", page("application/json", `{"a":1}`, "Content-Length", "7"))
	mux.HandleFunc("/png", page("image/png", big))
	mux.HandleFunc("/encoded", page("application/xml", big, "Content-Encoding", "br"))
	srv := httptest.NewServer(httpcompress.Handler(mux))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(method, path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}

	resp, body := get("GET", "/html", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("ETag") != `"v1-gzip"` {
		t.Fatalf("/html: headers %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != big {
		t.Errorf("/html decodes to %d bytes, want the page's %d", len(plain), len(big))
	}
	resp, body = get("GET", "/html")
	if resp.Header.Get("Content-Encoding") != "" || string(body) != big || resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("ETag") != `"v1"` {
		t.Errorf("/html without gzip asked: headers %v", resp.Header)
	}
	for _, tag := range []string{`"v1-gzip"`, `"v1"`} {
		resp, _ = get("GET", "/html", "Accept-Encoding", "gzip", "If-None-Match", tag)
		if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != `"v1-gzip"` || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("If-None-Match %s: %s, headers %v; want 304 with the gzip ETag", tag, resp.Status, resp.Header)
		}
	}
	for _, path := range []string{"/small", "/png", "/encoded"} {
		resp, body = get("GET", path, "Accept-Encoding", "gzip")
		if enc := resp.Header.Get("Content-Encoding"); enc == "gzip" || len(body) == 0 {
			t.Errorf("%s: Content-Encoding %q, %d bytes; want it left alone", path, enc, len(body))
		}
	}
	if resp, _ := get("HEAD", "/html", "Accept-Encoding", "gzip"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("HEAD: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
}

// Gzip and GzipFast decode to their input, again with a pooled writer;
// the fastest level makes more bytes of a repetitive body than the best.
func TestGzipLevels(t *testing.T) {
	body := []byte(strings.Repeat("<item><title>one title</title><link>http://127.0.0.1/a</link></item>\n", 300))
	var sizes [2]int
	for i, compress := range []func([]byte) []byte{httpcompress.Gzip, httpcompress.GzipFast} {
		for range 2 {
			z := compress(body)
			zr, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
				t.Fatalf("level %d: decodes to %d bytes (%v), want %d", i, len(plain), err, len(body))
			}
			sizes[i] = len(z)
		}
	}
	if sizes[1] <= sizes[0] {
		t.Errorf("fastest level %d bytes, best %d: want the fastest larger", sizes[1], sizes[0])
	}
}
