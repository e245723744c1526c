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
	var block extensionBlock
	for i := range p.Items {
		items[i] = archivedItem(&p.Items[i], &block)
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
	return fr.pageLinkAt("/resources/"+url.PathEscape(id), n)
}

// pageLinkAt is pageLink for the feed at path.
func (fr *feedRequest) pageLinkAt(path string, n int64) string {
	q := *fr.q
	q.Page = n
	return fr.base + path + "?" + q.canonical()
}

// aggregatePage answers /aggregate?page=: a document of the aggregate's
// archived feed, numbered across sources in the order items were published
// (dynamo.AggregatePage, docs/API.md "Archived feeds"). An archive page
// depends only on what was stored by its last item: its items with their
// first content, the copies of each story published by then, dated by its
// items' first seen.
func (s *Server) aggregatePage(ctx context.Context, fr *feedRequest) (*built, error) {
	n := max(fr.q.Page, 0) // PageCurrent: 0, the store finds the current page
	p, err := s.cfg.Store.AggregatePage(ctx, dynamo.AggregatePageQuery{Number: n, Size: pageSize,
		Category: fr.q.Category, Conditions: fr.q.Conditions, IncludeDuplicates: fr.q.Dups})
	if err != nil {
		return nil, fmt.Errorf("read aggregate page: %w", err)
	}
	current := n == 0
	if !current && p.Last < n*pageSize {
		return nil, notFound("the aggregate has %d archive pages (of %d items each; %d items were published): page %d is not full yet, its items are at page=current",
			p.Last/pageSize, pageSize, p.Last, n)
	}
	b := aggregateBuilt(fr)
	if current {
		if err := s.dateAggregate(ctx, b, fr, p.Items); err != nil {
			return nil, err
		}
	} else {
		for i, ai := range p.Items {
			b.doc.Items = append(b.doc.Items, aggregatedItem(fr, i+1, ai))
		}
		b.lastModified, b.doc.Timestamp, b.immutable = p.At, p.At, true
		s.dateListing(b)
	}
	b.history = &transform.History{Archive: !current}
	if p.Older > 0 {
		b.history.PrevArchive = fr.pageLinkAt("/aggregate", (p.Older+pageSize-1)/pageSize)
	}
	if !current {
		b.history.Current = fr.pageLinkAt("/aggregate", dynamo.PageCurrent)
	}
	return b, nil
}

// pageParam writes Query.Page as the page parameter reads it.
func pageParam(n int64) string {
	if n == dynamo.PageCurrent {
		return "current"
	}
	return strconv.FormatInt(n, 10)
}
