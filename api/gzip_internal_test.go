package api

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/httpcompress"
)

// An answer the cache keeps is compressed at the best level, to be served
// again; one it does not keep (the cache off, or the answer too large for
// it) at the fastest, for its one request. The two levels' bytes differ on
// this body, so the test tells which level ran.
func TestLazyGzipLevel(t *testing.T) {
	body := []byte(strings.Repeat("<item><title>a keyword answer, item </title><link>http://127.0.0.1/news/</link></item>\n", 200))
	best, fast := httpcompress.Gzip(body), httpcompress.GzipFast(body)
	if bytes.Equal(best, fast) {
		t.Fatal("the best and fastest levels made the same bytes: the test cannot tell them apart")
	}
	var grown int64
	kept := &lazyGzip{grown: func(n int64) { grown += n }}
	if got := kept.get(body); !bytes.Equal(got, best) || grown != int64(len(best)) {
		t.Errorf("a cached answer: %d bytes (the cache told %d), want the best level's %d", len(got), grown, len(best))
	}
	once := &lazyGzip{}
	if got := once.get(body); !bytes.Equal(got, fast) {
		t.Errorf("an answer not cached: %d bytes, want the fastest level's %d", len(got), len(fast))
	}
}
