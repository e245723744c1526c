package api

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// pageSize is how many items one document of an archived feed spans: page
// n holds the items numbered (n-1)·pageSize+1 through n·pageSize
// (dynamo.ArchivedItem.Number), so it never changes once the collection has
// its last item. It is part of every archive page's URL's meaning: changing
// it would change what every published page=n holds.
const pageSize = 100

// immutableAge is the max-age of an archive page, which never changes: a
// year, the longest RFC 9111 §5.2.2.1 advises.
const immutableAge = 365 * 24 * 60 * 60

// archivePage answers ?page=: a document of the collection's archived feed
// (RFC 5005 §4, docs/API.md "Archived feeds"). page=current is the
// subscription document, the newest page, not yet full; page=n a full
// page, which never changes. Each links the next older page that has an
// item the query selects (prev-archive, next, JSON Feed's next_url).
func (s *Server) archivePage(ctx context.Context, fr *feedRequest, src *dynamo.Source) (*built, error) {
	n := fr.q.Page
	current := n == dynamo.PageCurrent
	if current {
		n = int64(src.Summary.Items)/pageSize + 1
	}
	var p *dynamo.ArchivePage
	for {
		q := dynamo.PageQuery{SourceID: src.ID, From: (n-1)*pageSize + 1, To: n * pageSize, Conditions: fr.q.Conditions}
		var err error
		if p, err = s.cfg.Store.Page(ctx, q); err != nil {
			return nil, fmt.Errorf("read page %d of %s: %w", n, src.ID, err)
		}
		if !current || n == p.Last/pageSize+1 {
			break
		}
		// The summary was read before items arrived (or from a replica
		// that saw another moment): the current page is where the store's
		// own count says.
		n = p.Last/pageSize + 1
	}
	if !current && p.Last < n*pageSize {
		return nil, notFound("collection %q has %d archive pages (of %d items each; it has %d items): page %d is not full yet, its items are at page=current",
			src.ID, p.Last/pageSize, pageSize, p.Last, n)
	}
	b := s.sourceBuilt(fr, src, p.Head)
	if !current && p.Version != nil {
		b.lastModified, b.immutable = p.Version.SeenAt, true
	}
	items := make([]dynamo.Item, len(p.Items))
	for i, ai := range p.Items {
		items[i] = archivedItem(ai)
		items[i].Index = i + 1
	}
	if fr.q.expr != nil {
		shell := *b.doc
		shell.Items = items
		sel := &xpathSelector{ctx: ctx, expr: fr.q.expr, budget: s.cfg.XPathBudget, memory: s.cfg.XPathMemory}
		var err error
		if items, err = sel.selectItems(&shell); err != nil {
			return nil, err
		}
		for i := range items {
			items[i].Index = i + 1
		}
	}
	b.doc.Items = items
	b.history = &transform.History{Archive: !current}
	if p.Older > 0 {
		b.history.PrevArchive = fr.pageLink(src.ID, (p.Older+pageSize-1)/pageSize)
	}
	if !current {
		b.history.Current = fr.pageLink(src.ID, dynamo.PageCurrent)
	}
	return b, nil
}

// pageLink is the URL of another page of the same archived feed: the same
// query with page=n.
func (fr *feedRequest) pageLink(id string, n int64) string {
	q := *fr.q
	q.Page = n
	return fr.base + "/resources/" + url.PathEscape(id) + "?" + q.canonical()
}

// pageParam writes Query.Page as the page parameter reads it.
func pageParam(n int64) string {
	if n == dynamo.PageCurrent {
		return "current"
	}
	return strconv.FormatInt(n, 10)
}
