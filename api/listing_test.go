package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
)

// TestCollectionsStreamed: /resources is written as the store is read, in
// every format, to a listing larger than the cache keeps: each answer is a
// valid feed of every collection, the same bytes and weak ETag twice,
// answered 304 on that tag (and on its gzip form), compressed as it is
// written for a client that accepts gzip, headers only for HEAD, the
// readable page for a browser; a change to a collection changes the tag;
// nothing is cached. Both stores.
func TestCollectionsStreamed(t *testing.T) {
	t.Parallel()
	const n = 300
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		store := open(t)
		ctx := context.Background()
		// Long URLs make a listing of a few hundred collections about a
		// megabyte, 8 times the cache's room for one answer below.
		for i := range n {
			src := dynamo.NewSource(fmt.Sprintf("c%04d", i), fmt.Sprintf("https://example.org/%04d/%s", i, strings.Repeat("p", 1500)))
			src.Kind = dynamo.KindHTML
			src.Title = fmt.Sprintf("Collection %d", i)
			if err := store.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
		}
		e := newEnv(t, store, func(c *api.Config) { c.CacheBytes = 1 << 20 })
		versions := map[transform.Format]string{transform.RSS1: "rss10", transform.RSS2: "rss20", transform.Atom: "atom10"}
		for _, f := range transform.Formats() {
			t.Run(string(f), func(t *testing.T) {
				path := "/resources?type=" + string(f)
				// Go's client asks for gzip unless told otherwise.
				const plain = "Accept-Encoding"
				first := e.get(path, plain, "identity").must(t, http.StatusOK, path)
				etag := first.header.Get("ETag")
				if !strings.HasPrefix(etag, `W/"`) || first.header.Get("Content-Length") != "" {
					t.Errorf("ETag %q, Content-Length %q: want a weak tag and a body written as it comes", etag, first.header.Get("Content-Length"))
				}
				if len(first.body) < (1<<20)/8 {
					t.Fatalf("the listing is %d bytes, want more than the cache's room (128 KiB)", len(first.body))
				}
				switch f {
				case transform.XMLData:
					verify.XMLData(t, first.body)
				case transform.JSON:
					checkEntries(t, verify.JSONFeed(gofeedVersionTolerant{t}, first.body), n)
				default:
					if f == transform.Atom {
						verify.Atom(t, first.body)
					}
					checkEntries(t, verify.Feed(t, first.body, versions[f]), n)
				}
				again := e.get(path, plain, "identity").must(t, http.StatusOK, "again")
				if again.header.Get("ETag") != etag || !bytes.Equal(again.body, first.body) {
					t.Errorf("a second read: ETag %q and %d bytes, want %q and the same %d bytes", again.header.Get("ETag"), len(again.body), etag, len(first.body))
				}
				if r := e.get(path, plain, "identity", "If-None-Match", etag).must(t, http.StatusNotModified, "If-None-Match"); len(r.body) != 0 || r.header.Get("ETag") != etag {
					t.Errorf("304: %d bytes, ETag %q", len(r.body), r.header.Get("ETag"))
				}
				zipped := e.get(path, "Accept-Encoding", "gzip").must(t, http.StatusOK, "gzip")
				gzTag := strings.TrimSuffix(etag, `"`) + `-gzip"`
				if zipped.header.Get("Content-Encoding") != "gzip" || zipped.header.Get("ETag") != gzTag {
					t.Fatalf("gzip: Content-Encoding %q, ETag %q, want gzip and %q", zipped.header.Get("Content-Encoding"), zipped.header.Get("ETag"), gzTag)
				}
				zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
				if err != nil {
					t.Fatal(err)
				}
				if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, first.body) {
					t.Errorf("the gzip body decodes to %d bytes (%v), want the plain %d", len(plain), err, len(first.body))
				}
				if r := e.get(path, "Accept-Encoding", "gzip", "If-None-Match", gzTag).must(t, http.StatusNotModified, "gzip If-None-Match"); r.header.Get("ETag") != gzTag {
					t.Errorf("gzip 304: ETag %q, want %q", r.header.Get("ETag"), gzTag)
				}
				if r := e.do(http.MethodHead, path, nil, plain, "identity").must(t, http.StatusOK, "HEAD"); len(r.body) != 0 || r.header.Get("ETag") != etag {
					t.Errorf("HEAD: %d bytes, ETag %q", len(r.body), r.header.Get("ETag"))
				}
				if f != transform.XMLData {
					page := e.get(path, plain, "identity", "Accept", "text/html").must(t, http.StatusOK, "page")
					if ct := page.header.Get("Content-Type"); ct != "text/xml; charset=utf-8" || !bytes.Contains(page.body[:300], []byte("<?xml-stylesheet")) {
						t.Errorf("the readable page: %s, starting %.300s", ct, page.body)
					}
					verify.WellFormed(t, page.body)
				}
			})
		}
		var st struct {
			Cache struct{ Entries int } `json:"cache"`
		}
		e.getJSON("/api/stats", &st)
		if st.Cache.Entries != 0 {
			t.Errorf("%d answers cached, want none: every listing is over the cache's room", st.Cache.Entries)
		}
		before := e.get("/resources", "Accept-Encoding", "identity").header.Get("ETag")
		src, err := store.Source(ctx, "c0150")
		if err != nil {
			t.Fatal(err)
		}
		src.Title = "Renamed"
		if err := store.UpdateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		after := e.get("/resources", "Accept-Encoding", "identity").must(t, http.StatusOK, "after a change")
		if after.header.Get("ETag") == before || !bytes.Contains(after.body, []byte("<title>Renamed</title>")) {
			t.Errorf("after a collection's change: ETag %q (was %q), renamed: %t", after.header.Get("ETag"), before, bytes.Contains(after.body, []byte("Renamed")))
		}
	})
}

// checkEntries fails unless the feed lists the n collections in order.
func checkEntries(t *testing.T, p verify.Parsed, n int) {
	t.Helper()
	if len(p.Entries) != n {
		t.Fatalf("%d entries, want %d", len(p.Entries), n)
	}
	for i, en := range p.Entries {
		if want := fmt.Sprintf("/resources/c%04d", i); !strings.Contains(en.Link, want) {
			t.Fatalf("entry %d links to %q, want …%s…", i, en.Link, want)
		}
	}
}

// TestCollectionsCached: a listing within the cache's room is kept, with
// its weak tag, and answered from the cache the second time.
func TestCollectionsCached(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		first, _, hit := e.cachedPair("/resources?type=atom", "/resources?type=atom")
		if !hit {
			t.Fatal("the second read of a small listing missed the cache")
		}
		// The pair went through Go's client, which asks for gzip and
		// decodes it; a cached answer is sent whole, with its length.
		second := e.get("/resources?type=atom", "Accept-Encoding", "identity").must(t, http.StatusOK, "plain")
		first.header.Set("ETag", strings.TrimSuffix(first.header.Get("ETag"), `-gzip"`)+`"`)
		if first.header.Get("ETag") != second.header.Get("ETag") || !bytes.Equal(first.body, second.body) || !strings.HasPrefix(first.header.Get("ETag"), `W/"`) {
			t.Errorf("cached: ETag %q then %q, bodies equal %t", first.header.Get("ETag"), second.header.Get("ETag"), bytes.Equal(first.body, second.body))
		}
		if second.header.Get("Content-Length") != fmt.Sprint(len(second.body)) {
			t.Errorf("a cached answer's Content-Length %q, body %d bytes", second.header.Get("Content-Length"), len(second.body))
		}
	})
}
