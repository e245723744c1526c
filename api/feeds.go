package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/schema"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/websub"
)

// built is what a read builds before rendering: the document and what its
// headers need.
type built struct {
	doc          *dynamo.Resource
	lastModified time.Time
	nextChange   time.Time
	// history places the document in an archived feed (?page=), nil
	// elsewhere; immutable marks an archive page, which never changes.
	history   *transform.History
	immutable bool
	// items, when set, reads the answer's items (an archive's) within
	// ctx, in place of the document's own: held and rendered whole when
	// they fit --max-answer-mib, else written as they are read.
	items func(ctx context.Context) transform.Items
	// read says that the build read the items already, as holdItems
	// does (archiveAtOnce), and fits whether it holds them all; items
	// then reads them again only for an answer written as it is read.
	read, fits bool
	// pooled says the document's item list came from itemLists
	// (archiveBuilt), to give back once the answer is rendered.
	pooled bool
}

// feedRequest is one read being answered.
type feedRequest struct {
	q     *readQuery
	base  string // the public URL prefix, no trailing slash
	self  string // the canonical URL of the answer
	scope string // the cache scope: the source id, or "" for all sources
}

// link returns an absolute URL of this service for path and query, keeping
// the requested format so that readers following links stay in it.
func (fr *feedRequest) link(path string, query url.Values) string {
	if fr.q.Format != transform.RSS2 {
		if query == nil {
			query = url.Values{}
		}
		query.Set("type", string(fr.q.Format))
	}
	u := fr.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u
}

// serveFeed answers a read: from the cache when it can, else by building
// the document, rendering it and caching the result.
func (s *Server) serveFeed(w http.ResponseWriter, r *http.Request, e dynamo.QuerySyntax, scope string, build func(context.Context, *feedRequest) (*built, error)) {
	q, err := parseQuery(r.URL.RawQuery, e)
	if err != nil {
		s.writeReadError(w, r, err)
		return
	}
	fr := &feedRequest{q: q, base: s.baseURL(r), scope: scope}
	if c := q.canonical(); c != "" {
		fr.self = fr.base + r.URL.EscapedPath() + "?" + c
	} else {
		fr.self = fr.base + r.URL.EscapedPath()
	}
	key := fr.self
	// A browser asking for HTML gets the feed's readable page; JSON Feed
	// shows through its RSS 2.0 rendering, cached apart.
	page := wantsHTML(r) && (viewable(q.Format) || q.Format == transform.JSON)
	format := q.Format
	if page && format == transform.JSON {
		format, key = transform.RSS2, key+"\x00page"
	}
	send := func(a *answer) {
		if page {
			a = viewOf(a, fr.self, q.Format.Label())
			w.Header().Set("Content-Security-Policy", feedViewCSP(fr.base))
		}
		s.writeAnswer(w, r, a)
	}
	// An operator's answer is never cached from before their change.
	if a, ok := s.cacheHit(r, key, page); ok {
		s.cfg.Metrics.CacheHit()
		send(a)
		return
	}
	s.cfg.Metrics.CacheMiss()
	gen := s.cache.generation(scope)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	release := func() {}
	if heavy(q, scope) {
		var ok bool
		if release, ok = s.enterHeavy(ctx, w, r); !ok {
			return
		}
	}
	// The slot is held while building and rendering, not while a slow
	// client reads the answer.
	b, err := build(ctx, fr)
	held := err == nil
	if held && b.items != nil {
		if b.read {
			held = b.fits
		} else {
			held, err = holdItems(ctx, b, s.cfg.MaxAnswerBytes)
		}
	}
	var a *answer
	if held {
		a, err = render(b, format, fr.self, fr.base+schema.XMLDataPath, s.cfg.Hub, s.cfg.MaxAnswerBytes)
		if b.pooled {
			freeItems(b.doc.Items)
			b.doc.Items = nil
		}
		if errors.Is(err, limits.ErrTooLarge) && b.items == nil {
			err = badParam("max", "the answer would be larger than %d MiB (serve --max-answer-mib): ask for fewer items with max=, or for one version with index=", s.cfg.MaxAnswerBytes>>20)
		}
		held = err == nil
	}
	if err != nil && !errors.Is(err, limits.ErrTooLarge) {
		release()
		s.writeReadError(w, r, err)
		return
	}
	if held {
		release()
		s.cache.put(key, scope, gen, a)
		send(a)
		return
	}
	// Too large to hold: written as the items are read again, its
	// validators learnt by a first reading within the slot.
	readCtx := ctx
	b.doc.Items = nil
	items := func(yield func(*dynamo.Item) error) error { return b.items(readCtx)(yield) }
	opts, link := renderOptions(b, fr.self, fr.base+schema.XMLDataPath, s.cfg.Hub)
	stream, err := transform.NewStream(b.doc, items, format, opts...)
	release()
	if err != nil {
		s.writeReadError(w, r, err)
		return
	}
	if page {
		w.Header().Set("Content-Security-Policy", feedViewCSP(fr.base))
	}
	a = streamedAnswer(stream, format, b.lastModified, b.nextChange, link)
	a.immutable = b.immutable
	s.writeStream(w, r, &streamWrite{fr: fr, stream: stream, answer: a, page: page, key: key, scope: scope, gen: gen, readCtx: &readCtx})
}

// holdItems reads an answer's items (built.items) into its document while
// they take at most maxBytes of text, and reports whether it holds them
// all; when they take more, it lets them go, for the answer to be written
// as they are read again.
func holdItems(ctx context.Context, b *built, maxBytes int64) (bool, error) {
	h := &holder{b: b, max: maxBytes}
	return h.done(b.items(ctx)(h.add))
}

// holder keeps an answer's items in its document while they take at most
// max bytes of text (holdItems).
type holder struct {
	b         *built
	size, max int64
}

func (h *holder) add(it *dynamo.Item) error {
	if h.size += itemSize(it); h.size > h.max {
		return limits.ErrTooLarge
	}
	h.b.doc.Items = append(h.b.doc.Items, *it)
	return nil
}

// done reports whether the items are held, given the error of reading
// them: too many lets them go, for the answer to be written as they are
// read again.
func (h *holder) done(err error) (bool, error) {
	if errors.Is(err, limits.ErrTooLarge) {
		h.b.doc.Items = nil
		return false, nil
	}
	return err == nil, err
}

// itemSize is the text an item holds, in bytes: a lower bound of what it
// takes in memory and in any rendering.
func itemSize(it *dynamo.Item) int64 {
	n := len(it.ID) + len(it.Title) + len(it.Link) + len(it.Description) + len(it.Text)
	for _, x := range it.Extensions {
		n += len(x.URI) + len(x.Prefix) + len(x.LocalName) + len(x.Value)
	}
	for _, e := range it.Enclosures {
		n += len(e.URL) + len(e.Type)
	}
	if it.Image != nil {
		n += len(it.Image.URL) + len(it.Image.Link) + len(it.Image.Title)
	}
	return int64(n)
}

// renderOptions are the options an answer is rendered with, and its Link
// header (WebSub's hub and self), "" without a hub.
func renderOptions(b *built, self, schemaURL, hub string) ([]transform.Option, string) {
	opts := []transform.Option{transform.SelfURL(self), transform.SchemaURL(schemaURL)}
	var link string
	if hub != "" {
		opts = append(opts, transform.HubURL(hub))
		link = websub.LinkHeader(hub, self)
	}
	if b.history != nil {
		opts = append(opts, transform.WithHistory(*b.history))
	}
	return opts, link
}

// render writes the document in format f, at most maxBytes of it (more is
// an error wrapping limits.ErrTooLarge), and computes its validators.
func render(b *built, f transform.Format, self, schemaURL, hub string, maxBytes int64) (*answer, error) {
	buf := renderBuffers.Get().(*limits.Buffer)
	defer freeRenderBuffer(buf)
	buf.Reset()
	buf.Max = maxBytes
	opts, link := renderOptions(b, self, schemaURL, hub)
	if err := transform.Render(buf, b.doc, f, opts...); err != nil {
		return nil, err
	}
	body := bytes.Clone(buf.Bytes()) // the answer's own, at its size
	sum := sha256.Sum256(body)
	var gz *lazyGzip
	if len(body) >= httpcompress.MinSize {
		gz = &lazyGzip{} // compressed when a client first accepts gzip
	}
	a := &answer{
		body:         body,
		gz:           gz,
		contentType:  f.ContentType(),
		etag:         `"` + hex.EncodeToString(sum[:16]) + `"`,
		lastModified: b.lastModified.UTC().Truncate(time.Second),
		nextChange:   b.nextChange,
		immutable:    b.immutable,
		link:         link,
	}
	a.prepare()
	return a, nil
}

// renderBuffers keeps the buffers answers are rendered in, each answer's
// body copied out of one at its size: a new buffer grown by doubling for
// every uncached answer allocated about three times the body.
var renderBuffers = sync.Pool{New: func() any { return new(limits.Buffer) }}

// maxPooledRender bounds the buffers renderBuffers keeps: a rare large
// answer's buffer is let go rather than held by the pool.
const maxPooledRender = 1 << 20

func freeRenderBuffer(buf *limits.Buffer) {
	if buf.Cap() <= maxPooledRender {
		renderBuffers.Put(buf)
	}
}

// baseURL is the configured public URL, or the one the client used.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	return s.access.Scheme(r) + "://" + r.Host
}

// collections answers GET /resources: one item per collection, read from
// the store as they are written (serveListing).
func (s *Server) collections(w http.ResponseWriter, r *http.Request) {
	s.serveListing(w, r, collectionsEndpoint, func(fr *feedRequest, l *listing) {
		l.head = &dynamo.Resource{
			URL: fr.link("/resources", nil),
			Channel: dynamo.Channel{
				Title:       "Dynamo collections",
				Link:        fr.link("/resources", nil),
				Description: "Every collection this Dynamo serves, one item each.",
			},
		}
		l.items = func(ctx context.Context) transform.Items {
			return func(yield func(*dynamo.Item) error) error {
				var lastModified, next, dated time.Time
				index := 0
				err := s.cfg.Store.EachSource(ctx, true, func(src *dynamo.Source) error {
					index++
					lastModified = later(lastModified, changedAt(src))
					next = earlier(next, nextChange(src))
					dated = later(dated, datedAt(src))
					it := collectionItem(fr, index, src)
					return yield(&it)
				})
				if err != nil {
					return fmt.Errorf("list collections: %w", err)
				}
				l.lastModified, l.nextChange, l.dated = lastModified, next, dated
				return nil
			}
		}
	})
}

// count says n things in English, "1 item" or "2 items": listings' titles
// and descriptions are read as they are.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func collectionItem(fr *feedRequest, index int, src *dynamo.Source) dynamo.Item {
	title := src.DisplayTitle()
	desc := fmt.Sprintf("<p>Collection <code>%s</code> of <a href=\"%s\">%s</a> (%s): %s, %s.</p>",
		html.EscapeString(src.ID), html.EscapeString(src.URL), html.EscapeString(src.URL), src.Kind, count(src.Summary.Versions, "version"), count(src.Summary.Items, "item"))
	it := dynamo.Item{
		Index:       index,
		ID:          "collection:" + src.ID,
		Title:       title,
		Link:        fr.link("/resources/"+url.PathEscape(src.ID), nil),
		Description: desc,
	}
	if t := datedAt(src); !t.IsZero() {
		it.Extensions = append(it.Extensions, dateExtension(t))
	}
	if src.Category != "" {
		it.Extensions = append(it.Extensions, dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "subject", Value: src.Category})
	}
	return it
}

// resource answers GET /resources/{rssId} in all its forms.
func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("rssId")
	s.serveFeed(w, r, resourceEndpoint, id, func(ctx context.Context, fr *feedRequest) (*built, error) {
		if ar, ok := s.cfg.Store.(archiveReader); ok && archiveForm(fr.q) {
			return s.archiveAtOnce(ctx, fr, id, ar)
		}
		src, err := s.cfg.Store.Source(ctx, id)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil, notFound("no collection %q: see /resources for the collections", id)
		}
		if err != nil {
			return nil, fmt.Errorf("read source %s: %w", id, err)
		}
		switch q := fr.q; {
		case q.Page != 0:
			return s.archivePage(ctx, fr, src)
		case q.XPath != "":
			return s.xpathItems(ctx, fr, src)
		case q.Index > 0:
			return s.version(ctx, fr, src)
		case q.itemQuery():
			return s.archive(ctx, fr, src)
		}
		return s.versions(ctx, fr, src)
	})
}

// archiveForm reports whether resource answers q from the archive
// (archive): the switch of resource, before its source is read.
func archiveForm(q *readQuery) bool {
	return q.Page == 0 && q.XPath == "" && q.Index <= 0 && q.itemQuery()
}

// archiveReader is a store that reads an archive answer's source, its
// newest version's head and its items at once: PostgreSQL in one round
// trip instead of three, SQLite in two statements instead of three
// (postgres.Store.ArchiveAnswer, sqlite.Store.ArchiveAnswer). start gets
// the source and head (nil without a version) before fn gets the first
// item, with what an answer reads of them only (sourceBuilt, nextChange,
// archiveBuilt: archive.AnswerSourceColumns); it may be called again
// before any item (a replica's fault retried on the primary).
type archiveReader interface {
	ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error
}

// archiveAtOnce is resource's archive answer (archive, then holdItems) from
// a store that reads it at once.
func (s *Server) archiveAtOnce(ctx context.Context, fr *feedRequest, id string, ar archiveReader) (*built, error) {
	var b *built
	var h *holder
	var yield func(*dynamo.ArchivedItem) error
	q := archiveItemQuery(fr, id)
	err := ar.ArchiveAnswer(ctx, q, func(src *dynamo.Source, latest *dynamo.Resource) error {
		b = s.archiveBuilt(fr, src, latest, q)
		h = &holder{b: b, max: s.cfg.MaxAnswerBytes}
		yield = archiveYield(h.add)
		return nil
	}, func(ai *dynamo.ArchivedItem) error { return yield(ai) })
	if b == nil {
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil, notFound("no collection %q: see /resources for the collections", id)
		}
		return nil, fmt.Errorf("read source %s: %w", id, err)
	}
	if !errors.Is(err, limits.ErrTooLarge) && err != nil {
		return nil, fmt.Errorf("query archive of %s: %w", id, err)
	}
	b.read = true
	b.fits, err = h.done(err)
	return b, err
}

// versions lists a collection's versions, newest first.
func (s *Server) versions(ctx context.Context, fr *feedRequest, src *dynamo.Source) (*built, error) {
	vs, err := s.cfg.Store.Versions(ctx, src.ID)
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", src.ID, err)
	}
	b := s.sourceBuilt(fr, src, nil)
	b.doc.Channel.Title = fmt.Sprintf("Versions of %s", b.doc.Channel.Title)
	b.doc.Channel.Description = fmt.Sprintf("Every version Dynamo stored of %s, newest first.", src.URL)
	for i, v := range vs {
		title := v.Title
		if title == "" {
			title = src.ID
		}
		b.doc.Items = append(b.doc.Items, dynamo.Item{
			Index: i + 1,
			ID:    "version:" + strconv.Itoa(v.Seq),
			Title: fmt.Sprintf("Version %d of %s: %s (%d new, %d gone)", v.Seq, title, count(v.Items, "item"), v.Added, v.Removed),
			Link:  fr.link("/resources/"+url.PathEscape(src.ID), url.Values{"index": {strconv.Itoa(v.Index)}}),
			Description: fmt.Sprintf("<p>Seen %s. Read it at <code>?index=%d</code>; its number stays %d.</p>",
				v.SeenAt.UTC().Format(time.RFC1123), v.Index, v.Seq),
			Extensions: []dynamo.Extension{dateExtension(v.SeenAt)},
		})
	}
	return b, nil
}

// version answers ?index=n: the stored document, its items filtered by the
// conditions and limited by max when given.
func (s *Server) version(ctx context.Context, fr *feedRequest, src *dynamo.Source) (*built, error) {
	doc, v, err := s.cfg.Store.Document(ctx, src.ID, fr.q.Index)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, notFound("collection %q has no version %d: it has %d (index=1 is the newest)", src.ID, fr.q.Index, src.Summary.Versions)
	}
	if err != nil {
		return nil, fmt.Errorf("read version %d of %s: %w", fr.q.Index, src.ID, err)
	}
	if len(fr.q.Conditions) > 0 || fr.q.Max > 0 {
		var kept []dynamo.Item
		for _, it := range doc.Items {
			if fr.q.Max > 0 && len(kept) == fr.q.Max {
				break
			}
			if dynamo.Match(fr.q.Conditions, &it) {
				kept = append(kept, it)
			}
		}
		doc.Items = kept
	}
	return &built{doc: doc, lastModified: v.SeenAt, nextChange: nextChange(src)}, nil
}

// archive answers the archive forms: every item ever seen, newest first,
// filtered and limited.
func (s *Server) archive(ctx context.Context, fr *feedRequest, src *dynamo.Source) (*built, error) {
	latest, err := s.latest(ctx, src)
	if err != nil {
		return nil, err
	}
	return s.archiveBuilt(fr, src, latest, archiveItemQuery(fr, src.ID)), nil
}

// archiveItemQuery is the store's query of an archive answer.
func archiveItemQuery(fr *feedRequest, sourceID string) dynamo.ItemQuery {
	return dynamo.ItemQuery{SourceID: sourceID, Conditions: fr.q.Conditions, Max: fr.q.Limit(), Since: fr.q.Since, Until: fr.q.Until, ItemsOnly: true}
}

// archiveBuilt starts an archive answer of query q, its items read by
// b.items.
func (s *Server) archiveBuilt(fr *feedRequest, src *dynamo.Source, latest *dynamo.Resource, q dynamo.ItemQuery) *built {
	b := s.sourceBuilt(fr, src, latest)
	// Room for the items answered, made once (as archive.CollectItems
	// does) rather than grown by doubling as holdItems appends them, and
	// given back once rendered (serveFeed).
	b.doc.Items, b.pooled = getItems(min(q.Max, src.Summary.Items, maxPooledItems)), true
	b.items = func(ctx context.Context) transform.Items {
		return func(yield func(*dynamo.Item) error) error {
			if err := s.cfg.Store.EachItem(ctx, q, archiveYield(yield)); err != nil {
				return fmt.Errorf("query archive of %s: %w", src.ID, err)
			}
			return nil
		}
	}
	return b
}

// itemLists keeps the item lists of rendered archive answers: a new list
// for every uncached answer was a tenth of its allocated bytes.
var itemLists = sync.Pool{New: func() any { return new([]dynamo.Item) }}

// maxPooledItems bounds the lists itemLists keeps, and the room an archive
// answer makes for its items at first.
const maxPooledItems = 1000

// getItems returns an empty item list with room for n items.
func getItems(n int) []dynamo.Item {
	p := itemLists.Get().(*[]dynamo.Item)
	if cap(*p) < n {
		return make([]dynamo.Item, 0, n)
	}
	return (*p)[:0]
}

// freeItems gives a list of getItems back, emptied so that the pool holds
// on to nothing of its answer.
func freeItems(items []dynamo.Item) {
	if cap(items) > maxPooledItems {
		return
	}
	clear(items)
	items = items[:0]
	itemLists.Put(&items)
}

// archiveYield hands yield each archive item as a feed shows it, each in
// the same variable: yield copies what it keeps (holder.add), as the
// store's fn does (dynamo.Store.EachItem's items are good until fn
// returns).
func archiveYield(yield func(*dynamo.Item) error) func(*dynamo.ArchivedItem) error {
	n := 0
	var it dynamo.Item
	var block extensionBlock
	return func(ai *dynamo.ArchivedItem) error {
		it = archivedItem(ai, &block)
		// Items come from different versions, whose index attributes
		// collide; XMLData wants them unique, so they are numbered anew.
		n++
		it.Index = n
		return yield(&it)
	}
}

// xpathItems answers ?xpath=: the items the expression selects in every
// stored version, newest first and each once, or in version index.
func (s *Server) xpathItems(ctx context.Context, fr *feedRequest, src *dynamo.Source) (*built, error) {
	indexes := []int{fr.q.Index}
	if fr.q.Index == 0 {
		vs, err := s.cfg.Store.Versions(ctx, src.ID)
		if err != nil {
			return nil, fmt.Errorf("list versions of %s: %w", src.ID, err)
		}
		indexes = indexes[:0]
		for _, v := range vs {
			indexes = append(indexes, v.Index)
		}
	}
	sel := &xpathSelector{ctx: ctx, expr: fr.q.expr, budget: s.cfg.XPathBudget, memory: s.cfg.XPathMemory}
	var b *built
	seen := map[string]bool{}
	for _, index := range indexes {
		doc, v, err := s.cfg.Store.Document(ctx, src.ID, index)
		if errors.Is(err, dynamo.ErrNotFound) && fr.q.Index > 0 {
			return nil, notFound("collection %q has no version %d: it has %d (index=1 is the newest)", src.ID, index, src.Summary.Versions)
		}
		if errors.Is(err, dynamo.ErrNotFound) {
			continue // a version purged while we read
		}
		if err != nil {
			return nil, fmt.Errorf("read version %d of %s: %w", index, src.ID, err)
		}
		if b == nil && fr.q.Index > 0 {
			shell := *doc
			shell.Items = nil
			b = &built{doc: &shell, lastModified: v.SeenAt, nextChange: nextChange(src)}
		} else if b == nil {
			b = s.sourceBuilt(fr, src, doc) // the newest version comes first
		}
		items, err := sel.selectItems(doc)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if seen[it.ID] || !dynamo.Match(fr.q.Conditions, &it) {
				continue
			}
			seen[it.ID] = true
			if fr.q.Index == 0 {
				it.Index = len(seen) // unique across versions, as in archive
			}
			b.doc.Items = append(b.doc.Items, it)
			if len(seen) == fr.q.Limit() {
				return b, nil
			}
		}
	}
	if b == nil {
		b = s.sourceBuilt(fr, src, nil)
	}
	return b, nil
}

// latest reads a collection's newest version without its items (its
// channel is all an answer takes from it); nil when it has none.
func (s *Server) latest(ctx context.Context, src *dynamo.Source) (*dynamo.Resource, error) {
	if src.Summary.Versions == 0 {
		return nil, nil
	}
	doc, _, err := s.cfg.Store.Head(ctx, src.ID, 1)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read newest version of %s: %w", src.ID, err)
	}
	return doc, nil
}

// sourceBuilt starts an answer about a collection: the channel of its newest
// version (latest, when there is one) and no items yet.
func (s *Server) sourceBuilt(fr *feedRequest, src *dynamo.Source, latest *dynamo.Resource) *built {
	doc := &dynamo.Resource{URL: src.URL, RSSID: src.ID, Timestamp: datedAt(src)}
	if latest != nil {
		doc.URL, doc.Timestamp, doc.Channel = latest.URL, latest.Timestamp, latest.Channel
	} else {
		doc.Channel = dynamo.Channel{Title: src.DisplayTitle(), Link: src.URL}
	}
	return &built{doc: doc, lastModified: changedAt(src), nextChange: nextChange(src)}
}

// archivedItem is an archive item as a feed shows it: dated by when Dynamo
// first saw it when the page gave no date, so that readers order it. An
// item without extensions gets its date's list from block when there is
// one.
func archivedItem(ai *dynamo.ArchivedItem, block *extensionBlock) dynamo.Item {
	it := ai.Item
	if _, ok := it.Date(); !ok && !ai.FirstSeen.IsZero() {
		if len(it.Extensions) == 0 && block != nil {
			it.Extensions = block.one(dateExtension(ai.FirstSeen))
		} else {
			it.Extensions = append(it.Extensions[:len(it.Extensions):len(it.Extensions)], dateExtension(ai.FirstSeen))
		}
	}
	return it
}

// extensionBlock hands out lists of one extension carved from a shared
// array: an answer dates most of its archive items (archivedItem), and a
// list of one made for each was an allocation per item.
type extensionBlock []dynamo.Extension

// one returns a list of x alone, whose capacity is its length, so that
// appending to it copies it.
func (b *extensionBlock) one(x dynamo.Extension) []dynamo.Extension {
	if len(*b) == cap(*b) {
		*b = make([]dynamo.Extension, 0, 32)
	}
	*b = append(*b, x)
	n := len(*b)
	return (*b)[n-1 : n : n]
}

// aggregate answers GET /aggregate: items across collections, each story
// once with the other sources that carried it named, or every copy.
func (s *Server) aggregate(w http.ResponseWriter, r *http.Request) {
	s.serveFeed(w, r, aggregateEndpoint, "", func(ctx context.Context, fr *feedRequest) (*built, error) {
		q := fr.q
		if q.Page != 0 {
			return s.aggregatePage(ctx, fr)
		}
		items, err := s.cfg.Store.Aggregate(ctx, dynamo.AggregateQuery{
			Category: q.Category, Conditions: q.Conditions, Max: q.Limit(), IncludeDuplicates: q.Dups,
			Since: q.Since, Until: q.Until,
		})
		if err != nil {
			return nil, fmt.Errorf("aggregate: %w", err)
		}
		b := aggregateBuilt(fr)
		if err := s.dateAggregate(ctx, b, fr, items); err != nil {
			return nil, err
		}
		return b, nil
	})
}

// aggregateBuilt starts an aggregate answer: its channel, no items yet.
func aggregateBuilt(fr *feedRequest) *built {
	title, what := "Dynamo: every source", "every source"
	if c := fr.q.Category; c != "" {
		title, what = "Dynamo: "+c, "the sources of category "+c
	}
	self := fr.link("/aggregate", nil)
	return &built{doc: &dynamo.Resource{
		URL: self,
		Channel: dynamo.Channel{
			Title:       title,
			Link:        self,
			Description: "The newest items of " + what + ", each story once with the other sources that carried it.",
		},
	}}
}

// dateAggregate adds items to an aggregate answer that changes as sources
// do, dating it and its next change by its sources and its items.
func (s *Server) dateAggregate(ctx context.Context, b *built, fr *feedRequest, items []dynamo.AggregatedItem) error {
	// Walked, not listed: 100,000 sources held at once took 200 MB.
	err := s.cfg.Store.EachSource(ctx, false, func(src *dynamo.Source) error {
		if fr.q.Category == "" || src.Category == fr.q.Category {
			b.lastModified = later(b.lastModified, changedAt(src))
			b.nextChange = earlier(b.nextChange, nextChange(src))
			b.doc.Timestamp = later(b.doc.Timestamp, datedAt(src))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list sources: %w", err)
	}
	for i, ai := range items {
		b.doc.Items = append(b.doc.Items, aggregatedItem(fr, i+1, ai))
		b.lastModified = later(b.lastModified, ai.FirstSeen)
	}
	s.dateListing(b)
	return nil
}

// aggregatedItem names the item's source and the other sources that
// carried the story, in the description for people and as extension
// elements for programs (dynamo:source, dynamo:alsoIn). A copy shown with
// dups=include also names its primary (dynamo:duplicateOf, the primary's
// id in this feed) and the decision that made it a copy: its rule and
// score (dynamo:rule, dynamo:score) and the copy it was decided against
// (dynamo:matched, when that is not the primary and is still stored).
// RSS and Atom leave Dynamo's namespace out (feed validators warn on it),
// so the item also says what readers of every format can read, in elements
// the validators know: its source as mod_aggregation's ag:source (the id)
// and ag:sourceURL (the collection's feed), and each other source carrying
// the story (a copy: its primary's source) as a dc:relation, that source's
// collection feed.
func aggregatedItem(fr *feedRequest, index int, ai dynamo.AggregatedItem) dynamo.Item {
	it := archivedItem(&ai.ArchivedItem, nil)
	it.Index = index
	// Ids are unique within a source only; the feed spans sources.
	it.ID = ai.SourceID + "/" + it.ID
	ext := func(name, value string) dynamo.Extension {
		return dynamo.Extension{URI: dynamo.NamespaceDynamo, Prefix: "dynamo", LocalName: name, Value: value}
	}
	collection := func(sourceID string) string { return fr.link("/resources/"+url.PathEscape(sourceID), nil) }
	link := func(sourceID string) string {
		return fmt.Sprintf(`<a href="%s">%s</a>`, html.EscapeString(collection(sourceID)), html.EscapeString(sourceID))
	}
	relation := func(sourceID string) dynamo.Extension {
		return dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "relation", Value: collection(sourceID)}
	}
	exts := append(it.Extensions[:len(it.Extensions):len(it.Extensions)], ext("source", ai.SourceID),
		dynamo.Extension{URI: dynamo.NamespaceAggregation, Prefix: "ag", LocalName: "source", Value: ai.SourceID},
		dynamo.Extension{URI: dynamo.NamespaceAggregation, Prefix: "ag", LocalName: "sourceURL", Value: collection(ai.SourceID)})
	markup, plain := "From "+link(ai.SourceID), "From "+ai.SourceID
	if len(ai.AlsoIn) > 0 {
		var names, plainNames []string
		for _, k := range ai.AlsoIn {
			exts = append(exts, ext("alsoIn", k.SourceID), relation(k.SourceID))
			names = append(names, link(k.SourceID))
			plainNames = append(plainNames, k.SourceID)
		}
		markup += "; also in " + strings.Join(names, ", ")
		plain += "; also in " + strings.Join(plainNames, ", ")
	}
	if p := ai.DuplicateOf; p != nil {
		score := strconv.FormatFloat(ai.DuplicateScore, 'f', 2, 64)
		exts = append(exts, ext("duplicateOf", p.SourceID+"/"+p.ItemID), ext("rule", ai.DuplicateRule), ext("score", score), relation(p.SourceID))
		copyOf := fmt.Sprintf("; a copy (rule %s, score %s) of the story first seen in ", ai.DuplicateRule, score)
		markup += copyOf + link(p.SourceID)
		plain += copyOf + p.SourceID
		if m := ai.DuplicateMatched; m != nil && *m != *p {
			exts = append(exts, ext("matched", m.SourceID+"/"+m.ItemID))
			markup += ", decided against its copy in " + link(m.SourceID)
			plain += ", decided against its copy in " + m.SourceID
		}
	}
	it.Extensions = exts
	it.Description += "<p>" + markup + ".</p>"
	// The plain text travels too: RSS 1.0's description and JSON Feed's
	// summary are made from it when the item has one, and they must name
	// the sources as well.
	if it.Text != "" {
		it.Text += " " + plain + "."
	}
	return it
}

func dateExtension(t time.Time) dynamo.Extension {
	return dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: t.UTC().Format(time.RFC3339)}
}

// changedAt is when a collection last changed, its Last-Modified: its
// newest version, or zero when it has none (an empty collection has no
// Last-Modified: docs/API.md "Caching, validators, conditional requests").
func changedAt(src *dynamo.Source) time.Time { return src.Summary.LastVersionAt }

// datedAt is the date a feed about a collection carries (its timestamp,
// Atom's updated): its newest version, else its registration.
func datedAt(src *dynamo.Source) time.Time {
	if t := changedAt(src); !t.IsZero() {
		return t
	}
	return src.CreatedAt
}

// dateListing dates a listing built from many sources (the collections,
// an aggregate): by its newest version or item, else its sources' newest
// registration, else, with no source at all, when this server started, so
// that its feeds never carry a placeholder date (Atom and XMLData need
// one) and its body, and so its ETag, stays the same between changes.
func (s *Server) dateListing(b *built) {
	b.doc.Timestamp = s.listingDate(b.doc.Timestamp, b.lastModified)
}

// listingDate is dateListing's date of a listing whose sources are dated
// dated at the latest and whose newest version or item is lastModified.
func (s *Server) listingDate(dated, lastModified time.Time) time.Time {
	if t := later(dated, lastModified); !t.IsZero() {
		return t
	}
	return s.started
}

// nextChange is the earliest a collection can change: its next poll, or
// never for a paused source.
func nextChange(src *dynamo.Source) time.Time {
	if src.Paused {
		return time.Time{}
	}
	return src.State.NextPoll
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// earlier returns the earlier of two times, zero meaning unknown.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
