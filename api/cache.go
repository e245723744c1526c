package api

import (
	"container/list"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dynamo-feeds/dynamo/httpcompress"
)

// answer is a rendered feed with what its headers need.
type answer struct {
	body        []byte
	contentType string
	etag        string
	// gz is the body compressed, served under its own ETag to clients
	// that accept gzip; nil when the answer is never compressed.
	gz           *lazyGzip
	lastModified time.Time
	// nextChange is when the answer may next change (the source's next
	// poll); Cache-Control's max-age counts down to it.
	nextChange time.Time
	// immutable marks an answer that never changes (an archive page):
	// cacheable for a year, and Cache-Control says immutable.
	immutable bool
	// link is the Link header advertising the WebSub hub and the self
	// URL, "" without a hub.
	link string
	// hdr holds the answer's header values made once (prepare), so that
	// serving it from the cache builds none of them again.
	hdr answerHeaders
}

// answerHeaders are an answer's header values as http.Header holds them.
// Each slice has its length as capacity, so a handler that appends to the
// header it was given gets a copy, never a change to the answer's.
type answerHeaders struct {
	etag, gzETag, contentType, contentLength, lastModified, link []string
	// cacheControl is the last Cache-Control value of a changing answer,
	// whose max-age counts down: one made per second, not per request.
	cacheControl *cacheControlMemo
}

// cacheControlMemo keeps the Cache-Control value last made for an answer.
type cacheControlMemo struct{ last atomic.Pointer[cacheControl] }

type cacheControl struct {
	maxAge int
	value  []string
}

// header is the Cache-Control value for a max-age of maxAge seconds.
func (m *cacheControlMemo) header(maxAge int) []string {
	if c := m.last.Load(); c != nil && c.maxAge == maxAge {
		return c.value
	}
	c := &cacheControl{maxAge: maxAge, value: []string{"public, max-age=" + strconv.Itoa(maxAge)}[:1:1]}
	m.last.Store(c)
	return c.value
}

// prepare makes the answer's header values from its fields; it is called
// when an answer is made and again whenever its fields change.
func (a *answer) prepare() {
	one := func(v string) []string { return []string{v}[:1:1] }
	a.hdr = answerHeaders{
		etag:          one(a.etag),
		gzETag:        one(httpcompress.ETag(a.etag)),
		contentType:   one(a.contentType),
		contentLength: one(strconv.Itoa(len(a.body))),
		cacheControl:  &cacheControlMemo{},
	}
	if !a.lastModified.IsZero() { // an empty collection or category has none
		a.hdr.lastModified = one(a.lastModified.Format(http.TimeFormat))
	}
	if a.link != "" {
		a.hdr.link = one(a.link)
	}
}

// size is what the answer holds, its compressed body once made.
func (a *answer) size() int64 { return int64(len(a.body)) + a.gz.size() + 256 }

// lazyGzip is an answer's body compressed, made by the first request
// that accepts gzip rather than with every answer rendered: an answer
// missing the cache used to spend more time compressing at the best level
// than reading the store, for clients that did not ask for it.
type lazyGzip struct {
	once sync.Once
	body []byte
	// length is the Content-Length header of body.
	length []string
	// grown, when set, is told how many bytes compressing added: the
	// cache's accounting of the answer holding it (set by put).
	grown func(n int64)
	done  atomic.Bool
}

// get returns the compressed body of body, compressing it on the first call:
// at the best level when the cache keeps the answer (put set grown before
// the answer was first sent), to be served again; else at the fastest, for
// the one request that gets it (the cache off, or too small for the
// answer), where the best level cost about 1 ms of CPU more per answer of
// 100 items.
func (z *lazyGzip) get(body []byte) []byte {
	z.once.Do(func() {
		if z.grown != nil {
			z.body = httpcompress.Gzip(body)
		} else {
			z.body = httpcompress.GzipFast(body)
		}
		z.length = []string{strconv.Itoa(len(z.body))}[:1:1]
		z.done.Store(true)
		if z.grown != nil {
			z.grown(int64(len(z.body)))
		}
	})
	return z.body
}

// contentLength is the Content-Length header value of the compressed
// body, once get has made it.
func (z *lazyGzip) contentLength() []string { return z.length }

// size is the compressed body's length once made, else 0.
func (z *lazyGzip) size() int64 {
	if z == nil || !z.done.Load() {
		return 0
	}
	return int64(len(z.body))
}

// cache holds rendered answers, least recently used first out once their
// bytes exceed the bound. An answer belongs to a scope: a source id for the
// answers built from one collection, or "" for those built from all of
// them (the collections listing, aggregates). A change to a source drops
// its scope and the global one.
//
// Generations close the race between a request that reads the store and a
// change that lands before the request stores its answer: put is refused
// when the scope's generation moved since the request began.
type cache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	lru      *list.List // of *cacheEntry, most recent at the front
	byKey    map[string]*list.Element
	// byRequest finds an answer by the request that asked for it, as
	// it came (name): the fast path (Server.Cached) looks it up there
	// without parsing the query or building the key.
	byRequest map[requestKey]requestName
	byScope   map[string]map[*list.Element]struct{}
	gens      map[string]uint64
	global    uint64 // the generation of scope "", moved by every change
	epoch     uint64 // moved when the cache is turned on or off
	enabled   bool   // only while changes are watched, else answers could go stale
}

type cacheEntry struct {
	key, scope string
	answer     *answer
	size       int64 // what c.bytes counts for it
	// names are the requests byRequest finds it by, at most maxNames.
	names []requestKey
}

// requestKey is a request as it came, in what decides which answer it gets
// (serveFeed, serveListing): the scheme and Host that make the base URL,
// the request target (path and query, unparsed) and the Accept header (a
// browser's gets the readable page). Two requests with the same key get
// the same answer from the same route; the validators and Accept-Encoding
// are read per request.
type requestKey struct {
	https             bool
	host, uri, accept string
}

// size is what a name holds, for the cache's accounting.
func (k requestKey) size() int64 { return int64(len(k.host)+len(k.uri)+len(k.accept)) + 64 }

// requestName is where byRequest leads: the entry and the route pattern
// (http.Request.Pattern) that answered it, for the metrics.
type requestName struct {
	el      *list.Element
	pattern string
}

// maxNames bounds the names of one answer: clients ask for it in a few
// spellings (parameters in another order, another Accept); a client
// inventing more only sends them through the full handler chain.
const maxNames = 4

func newCache(maxBytes int64) *cache {
	return &cache{
		maxBytes:  maxBytes,
		lru:       list.New(),
		byKey:     map[string]*list.Element{},
		byRequest: map[requestKey]requestName{},
		byScope:   map[string]map[*list.Element]struct{}{},
		gens:      map[string]uint64{},
	}
}

// generation returns the scope's generation, to be handed back to put.
func (c *cache) generation(scope string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen(scope)
}

func (c *cache) gen(scope string) uint64 {
	if scope == "" {
		return c.global
	}
	// Both terms only grow, so their sum moves whenever either does.
	return c.gens[scope] + c.epoch
}

func (c *cache) get(key string) (*answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).answer, true
}

// lookup returns the answer cached for a request named k (name), and the
// route pattern that answered it.
func (c *cache) lookup(k requestKey) (*answer, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.byRequest[k]
	if !ok {
		return nil, "", false
	}
	c.lru.MoveToFront(n.el)
	return n.el.Value.(*cacheEntry).answer, n.pattern, true
}

// name makes k, a request that route pattern answered with the answer
// cached under key, find it through lookup; nothing when the answer is no
// longer cached or has maxNames names already.
func (c *cache) name(key string, k requestKey, pattern string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return
	}
	e := el.Value.(*cacheEntry)
	if _, named := c.byRequest[k]; named || len(e.names) == maxNames {
		return
	}
	c.byRequest[k] = requestName{el: el, pattern: pattern}
	e.names = append(e.names, k)
	e.size += k.size()
	c.bytes += k.size()
	c.evict()
}

// room is the largest answer put may keep, 0 while the cache is off: a
// streamed listing keeps a copy of what it writes up to it.
func (c *cache) room() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.enabled {
		return 0
	}
	return c.maxBytes / 8
}

// put stores an answer unless the cache is off, the answer is too large to
// be worth a place, or its scope changed since gen was read.
func (c *cache) put(key, scope string, gen uint64, a *answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.enabled || a.size() > c.maxBytes/8 || c.gen(scope) != gen {
		return
	}
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	e := &cacheEntry{key: key, scope: scope, answer: a, size: a.size()}
	el := c.lru.PushFront(e)
	c.byKey[key] = el
	if c.byScope[scope] == nil {
		c.byScope[scope] = map[*list.Element]struct{}{}
	}
	c.byScope[scope][el] = struct{}{}
	c.bytes += e.size
	if a.gz != nil && a.gz.grown == nil && a.gz.size() == 0 {
		a.gz.grown = func(n int64) { c.grow(el, n) }
	}
	c.evict()
}

// grow counts n more bytes for the entry el, when it is still cached:
// its answer's compressed body, made after it was stored.
func (c *cache) grow(el *list.Element, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := el.Value.(*cacheEntry)
	if c.byKey[e.key] != el {
		return
	}
	e.size += n
	c.bytes += n
	c.evict()
}

// evict drops the least recently used answers until the bytes fit.
func (c *cache) evict() {
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.byKey, e.key)
	for _, k := range e.names {
		delete(c.byRequest, k)
	}
	delete(c.byScope[e.scope], el)
	if len(c.byScope[e.scope]) == 0 {
		delete(c.byScope, e.scope)
	}
	c.bytes -= e.size
}

// invalidate drops the answers built from a source and every global one.
func (c *cache) invalidate(sourceID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gens[sourceID]++
	c.global++
	c.dropScope(sourceID)
	c.dropScope("")
}

func (c *cache) dropScope(scope string) {
	for el := range c.byScope[scope] {
		c.remove(el)
	}
}

// setEnabled turns the cache on or off; either way it starts empty, since
// changes may have been missed while it was off.
func (c *cache) setEnabled(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enabled = on
	c.global++
	c.epoch++
	c.lru.Init()
	c.byKey = map[string]*list.Element{}
	c.byRequest = map[requestKey]requestName{}
	c.byScope = map[string]map[*list.Element]struct{}{}
	c.bytes = 0
}

// cacheStats is what /api/stats shows of the cache.
type cacheStats struct {
	Enabled  bool  `json:"enabled"`
	Entries  int   `json:"entries"`
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
}

func (c *cache) stats() cacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cacheStats{Enabled: c.enabled, Entries: len(c.byKey), Bytes: c.bytes, MaxBytes: c.maxBytes}
}
