package api

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/schema"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/websub"
)

// listing is a feed whose items are read from the store as they are
// written (transform.Stream): a listing of any number of collections in
// the memory of one.
type listing struct {
	head *dynamo.Resource // the channel; its Timestamp is set once the items are read
	// items reads the items within ctx; a listing is read twice, or three
	// times (RSS 1.0). Each complete reading sets the dates below.
	items func(ctx context.Context) transform.Items
	// lastModified and nextChange are the answer's (see built); dated is
	// the latest date of its sources (dateListing).
	lastModified, nextChange, dated time.Time
}

// serveListing answers a read of a listing: from the cache when it can,
// else by reading the items once to learn the answer's validators (a 304
// ends there) and again to write them to the client as they come. The
// answer is cached when it is small enough for the cache; a longer one is
// never held, so no --max-answer-mib applies to it (docs/API.md
// "Budgets"). Its ETag is weak, a digest of what the bytes are made of
// (docs/API.md "Caching, validators, conditional requests"). A failure
// before the first byte is answered as any read's; after it, the
// connection is cut, so that the client sees a truncated answer rather
// than a short listing.
func (s *Server) serveListing(w http.ResponseWriter, r *http.Request, e dynamo.QuerySyntax, build func(*feedRequest, *listing)) {
	q, err := parseQuery(r.URL.RawQuery, e)
	if err != nil {
		s.writeReadError(w, r, err)
		return
	}
	fr := &feedRequest{q: q, base: s.baseURL(r)}
	fr.self = fr.base + r.URL.EscapedPath()
	if c := q.canonical(); c != "" {
		fr.self += "?" + c
	}
	key := fr.self
	page := wantsHTML(r) && (viewable(q.Format) || q.Format == transform.JSON)
	format := q.Format
	if page && format == transform.JSON {
		format, key = transform.RSS2, key+"\x00page"
	}
	if page {
		w.Header().Set("Content-Security-Policy", feedViewCSP(fr.base))
	}
	if a, ok := s.cacheHit(r, key, page); ok {
		s.cfg.Metrics.CacheHit()
		if page {
			a = viewOf(a, fr.self, q.Format.Label())
		}
		s.writeAnswer(w, r, a)
		return
	}
	s.cfg.Metrics.CacheMiss()
	gen := s.cache.generation("")

	l := &listing{}
	build(fr, l)
	// The reading before the headers within the request timeout; those
	// while a client reads with the request's context, which the server's
	// write timeout bounds (a listing of 100,000 collections takes longer
	// than a read's 30 s to write on a loaded machine).
	readCtx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	items := func(yield func(*dynamo.Item) error) error { return l.items(readCtx)(yield) }
	opts := []transform.Option{transform.SelfURL(fr.self), transform.SchemaURL(fr.base + schema.XMLDataPath)}
	var link string
	if s.cfg.Hub != "" {
		opts = append(opts, transform.HubURL(s.cfg.Hub))
		link = websub.LinkHeader(s.cfg.Hub, fr.self)
	}
	stream, err := transform.NewStream(l.head, items, format, opts...)
	if err != nil {
		s.writeReadError(w, r, err)
		return
	}
	l.head.Timestamp = s.listingDate(l.dated, l.lastModified)
	a := streamedAnswer(stream, format, l.lastModified, l.nextChange, link)
	s.writeStream(w, r, &streamWrite{fr: fr, stream: stream, answer: a, page: page, key: key, gen: gen, readCtx: &readCtx})
}

// streamedAnswer is the answer a stream writes, without its body: its
// validators, known before the body is (a weak ETag, the stream's Sum).
func streamedAnswer(stream *transform.Stream, f transform.Format, lastModified, nextChange time.Time, link string) *answer {
	sum := stream.Sum()
	a := &answer{
		contentType:  f.ContentType(),
		etag:         `W/"` + hex.EncodeToString(sum[:16]) + `"`,
		lastModified: lastModified.UTC().Truncate(time.Second),
		nextChange:   nextChange,
		link:         link,
	}
	a.prepare()
	return a
}

// streamWrite is an answer written as its items are read (serveListing,
// and an archive too large to hold: serveFeed).
type streamWrite struct {
	fr     *feedRequest
	stream *transform.Stream
	answer *answer // the validators (streamedAnswer)
	page   bool    // the readable page of the feed, for a browser
	// key, scope and gen are where the answer is cached when it is small
	// enough for the cache (cache.put).
	key, scope string
	gen        uint64
	// readCtx is the context the stream's items are read within: set to
	// the request's own once the headers are sent.
	readCtx *context.Context
}

// writeStream answers with a stream: its headers, or 304 when the client's
// copy is current, then the body as the items are read, kept for the cache
// when it is small enough. A failure before the first byte is answered as
// any read's; after it, the connection is cut, so that the client sees a
// truncated answer rather than a short feed.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, sw *streamWrite) {
	a, fr := sw.answer, sw.fr
	shown := a
	if sw.page {
		shown = &answer{contentType: pageContentType, etag: pageETag(a.etag), lastModified: a.lastModified, nextChange: a.nextChange, link: a.link}
		shown.prepare()
	}
	// httpcompress.Handler compresses the body as it is written and tags
	// it so; a 304 carries the tag of what the client would get.
	etag := shown.etag
	if r.Method != http.MethodHead && httpcompress.AcceptsGzip(r) && notModified(r, shown) {
		etag = httpcompress.ETag(etag)
	}
	if s.answerHeaders(w, r, shown, etag) || r.Method == http.MethodHead {
		return
	}
	*sw.readCtx = r.Context()
	out := &countWriter{w: w}
	var pw *pageWriter
	var dst io.Writer = out
	if sw.page {
		pw = newPageWriter(out, fr.self, fr.q.Format.Label())
		dst = pw
	}
	keep := &capture{max: s.cache.room()}
	err := sw.stream.Write(teeWriter{keep, dst})
	if err == nil && pw != nil {
		err = pw.Close()
	}
	switch {
	case err != nil && out.n == 0:
		for _, h := range []string{"ETag", "Last-Modified", "Link", "Vary", "Content-Security-Policy"} {
			w.Header().Del(h)
		}
		s.writeReadError(w, r, err)
		return
	case err != nil:
		if r.Context().Err() == nil { // not a client that went away
			s.log.Warn("answer cut short", "url", r.URL.String(), "err", err)
		}
		panic(http.ErrAbortHandler)
	}
	if body, ok := keep.bytes(); ok {
		a.body = body
		if len(body) >= httpcompress.MinSize {
			a.gz = &lazyGzip{}
		}
		a.prepare() // its Content-Length, now that it has a body
		s.cache.put(sw.key, sw.scope, sw.gen, a)
	}
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// capture keeps a copy of what is written up to max bytes; past it, or
// with max 0, it keeps nothing.
type capture struct {
	max  int64
	buf  []byte
	over bool
}

func (c *capture) Write(p []byte) (int, error) {
	if !c.over && int64(len(c.buf)+len(p)) <= c.max {
		c.buf = append(c.buf, p...)
	} else {
		c.over, c.buf = true, nil
	}
	return len(p), nil
}

// bytes is the copy, when it is whole.
func (c *capture) bytes() ([]byte, bool) { return c.buf, !c.over && c.max > 0 }

// teeWriter writes to keep, which never fails, and to w.
type teeWriter struct {
	keep *capture
	w    io.Writer
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.keep.Write(p)
	return t.w.Write(p)
}
