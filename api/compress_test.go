package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
)

// gunzip decodes a gzip body, failing the test when it is not one.
func gunzip(t *testing.T, body []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return plain
}

// TestCompressedFeeds reads every format gzip-compressed: feedparser
// fetches the XML feed formats itself (it asks for gzip and decodes), JSON
// Feed (which feedparser 6.0 does not read) and XMLData are decoded here and
// checked with gofeed and the schema; each representation has its own ETag, both
// say Vary: Accept-Encoding, If-None-Match with either ETag answers 304
// whichever representation is asked for, and a cached answer serves the
// bytes it compressed once.
func TestCompressedFeeds(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	versions := map[transform.Format]string{transform.RSS1: "rss10", transform.RSS2: "rss20", transform.Atom: "atom10", transform.JSON: "json11"}
	for _, f := range transform.Formats() {
		path := "/resources/news?max=10&type=" + string(f)
		// Go's client asks for gzip and decodes it unless told what to ask.
		plain := e.get(path, "Accept-Encoding", "identity").must(t, http.StatusOK, path)
		zipped := e.get(path, "Accept-Encoding", "gzip").must(t, http.StatusOK, path+" gzip")
		if zipped.header.Get("Content-Encoding") != "gzip" || plain.header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: Content-Encoding %q with gzip asked, %q without", path, zipped.header.Get("Content-Encoding"), plain.header.Get("Content-Encoding"))
		}
		if !bytes.Equal(gunzip(t, zipped.body), plain.body) {
			t.Errorf("%s: the gzip body does not decode to the plain one", path)
		}
		if len(zipped.body) >= len(plain.body) {
			t.Errorf("%s: %d bytes compressed, %d plain", path, len(zipped.body), len(plain.body))
		}
		pe, ze := plain.header.Get("ETag"), zipped.header.Get("ETag")
		if pe == "" || ze == "" || pe == ze {
			t.Errorf("%s: ETags %q plain and %q gzip, want two different ones", path, pe, ze)
		}
		for _, r := range []response{plain, zipped} {
			if !strings.Contains(strings.Join(r.header.Values("Vary"), ","), "Accept-Encoding") {
				t.Errorf("%s: Vary %q", path, r.header.Values("Vary"))
			}
		}
		for _, ae := range []string{"identity", "gzip"} {
			for _, etag := range []string{pe, ze} {
				r := e.get(path, "Accept-Encoding", ae, "If-None-Match", etag).must(t, http.StatusNotModified, path+" If-None-Match "+etag+" Accept-Encoding "+ae)
				want := pe
				if ae == "gzip" {
					want = ze
				}
				if r.header.Get("ETag") != want || len(r.body) != 0 {
					t.Errorf("%s: 304 with ETag %q and %d bytes, want %q and none", path, r.header.Get("ETag"), len(r.body), want)
				}
			}
		}
		hits := counter(t, e.metrics, "dynamo_cache_lookups_total", "result", "hit")
		again := e.get(path, "Accept-Encoding", "gzip, deflate, br").must(t, http.StatusOK, path+" again")
		if !bytes.Equal(again.body, zipped.body) || counter(t, e.metrics, "dynamo_cache_lookups_total", "result", "hit") != hits+1 {
			t.Errorf("%s: a second gzip read is not the cached compressed bytes", path)
		}
		switch f {
		case transform.XMLData:
			verify.XMLData(t, gunzip(t, zipped.body))
			continue
		case transform.JSON: // feedparser 6.0 reads no JSON Feed: gofeed does
			if p := verify.JSONFeed(gofeedVersionTolerant{t}, gunzip(t, zipped.body)); len(p.Entries) != 4 {
				t.Errorf("%s: %d entries, want 4", path, len(p.Entries))
			}
			continue
		}
		p := verify.FeedURL(t, e.http.URL+path, versions[f])
		if p.ContentEncoding != "gzip" || len(p.Entries) != 4 {
			t.Errorf("%s: feedparser read %d entries with Content-Encoding %q, want 4 and gzip", path, len(p.Entries), p.ContentEncoding)
		}
	}
	// gzip refused, or not asked for: the plain body.
	for _, ae := range []string{"gzip;q=0", "identity", "br", "*;q=0"} {
		if r := e.get("/resources/news?max=10", "Accept-Encoding", ae).must(t, http.StatusOK, ae); r.header.Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q", ae, r.header.Get("Content-Encoding"))
		}
	}
	// The admin API's JSON is compressed per request.
	r := e.get("/api/sources", "Accept-Encoding", "gzip").must(t, http.StatusOK, "sources")
	if r.header.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(bytes.TrimSpace(gunzip(t, r.body)), []byte("[")) && !bytes.HasPrefix(bytes.TrimSpace(gunzip(t, r.body)), []byte("{")) {
		t.Errorf("/api/sources with gzip: Content-Encoding %q", r.header.Get("Content-Encoding"))
	}
}
