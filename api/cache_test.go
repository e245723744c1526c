package api

import (
	"strings"
	"testing"
)

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newCache(8 * (1000 + 256)) // room for eight answers of 1000 bytes
	c.setEnabled(true)
	body := []byte(strings.Repeat("x", 1000))
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		c.put(k, "s", c.generation("s"), &answer{body: body})
	}
	c.get("a") // a is now the most recently used
	c.put("i", "s", c.generation("s"), &answer{body: body})
	if _, ok := c.get("b"); ok {
		t.Error("b, the least recently used, survived an insertion over the bound")
	}
	for _, k := range []string{"a", "c", "i"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	if st := c.stats(); st.Bytes > st.MaxBytes || st.Entries != 8 {
		t.Errorf("stats %+v: want 8 entries within the bound", st)
	}
	c.put("huge", "s", c.generation("s"), &answer{body: make([]byte, 2000)})
	if _, ok := c.get("huge"); ok {
		t.Error("an answer over an eighth of the cache was stored")
	}
}

func TestCacheInvalidation(t *testing.T) {
	c := newCache(1 << 20)
	a := &answer{body: []byte("feed")}
	c.put("off", "s", c.generation("s"), a)
	if _, ok := c.get("off"); ok {
		t.Fatal("a disabled cache stored an answer")
	}
	c.setEnabled(true)
	c.put("s1", "s", c.generation("s"), a)
	c.put("t1", "t", c.generation("t"), a)
	c.put("all", "", c.generation(""), a)
	stale := c.generation("s")
	staleAll := c.generation("")
	tGen := c.generation("t")
	c.invalidate("s")
	for key, want := range map[string]bool{"s1": false, "all": false, "t1": true} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("after a change of s, %s cached = %v, want %v", key, ok, want)
		}
	}
	// Answers read before the change must not be stored after it.
	c.put("s2", "s", stale, a)
	c.put("all2", "", staleAll, a)
	c.put("t2", "t", tGen, a) // t did not change: its answer is good
	for key, want := range map[string]bool{"s2": false, "all2": false, "t2": true} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("put of %s read before the change: cached = %v, want %v", key, ok, want)
		}
	}
	c.setEnabled(false)
	if _, ok := c.get("t2"); ok {
		t.Error("turning the cache off kept its answers")
	}
}

// An answer is compressed only when a client first asks for gzip, and the
// cache then counts the compressed bytes too, until the answer leaves it.
func TestCacheCountsLazyGzip(t *testing.T) {
	c := newCache(1 << 20)
	c.setEnabled(true)
	body := []byte(strings.Repeat("<item>the same words again</item>\n", 200))
	a := &answer{body: body, gz: &lazyGzip{}}
	c.put("k", "s", c.generation("s"), a)
	before := c.stats().Bytes
	if before != int64(len(body))+256 {
		t.Fatalf("%d bytes counted before compressing, want %d", before, len(body)+256)
	}
	z := a.gz.get(a.body)
	if len(z) == 0 || len(z) >= len(body) {
		t.Fatalf("compressed to %d bytes from %d", len(z), len(body))
	}
	a.gz.get(a.body) // the second client gets the same bytes, counted once
	if got := c.stats().Bytes; got != before+int64(len(z)) {
		t.Errorf("%d bytes counted after compressing, want %d", got, before+int64(len(z)))
	}
	c.invalidate("s")
	if got := c.stats().Bytes; got != 0 {
		t.Errorf("%d bytes counted once the answer left", got)
	}
	// Compressed after it left, it is not counted.
	b := &answer{body: body, gz: &lazyGzip{}}
	c.put("k2", "t", c.generation("t"), b)
	c.invalidate("t")
	b.gz.get(b.body)
	if got := c.stats().Bytes; got != 0 {
		t.Errorf("%d bytes counted for an answer compressed after it left", got)
	}
}
