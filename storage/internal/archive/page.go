package archive

import "github.com/dynamo-feeds/dynamo"

// CheckPage checks a page query (dynamo.ArchiveStore.Page) before a store
// reads it: a collection, numbers from 1 with From <= To, valid conditions.
func CheckPage(q dynamo.PageQuery) error {
	if q.From < 1 || q.To < q.From {
		return dynamo.Invalidf("page of %s: items %d to %d: want 1 <= from <= to", q.SourceID, q.From, q.To)
	}
	return dynamo.ValidateConditions(q.Conditions)
}

// HeadNumber is the item whose first version heads a page when the page is
// full (its last item, To), or 0 when it is not (last < To: the newest
// version heads it). A full page's head never changes, and neither do its
// items, numbered before last.
func HeadNumber(q dynamo.PageQuery, last int64) int64 {
	if last >= q.To {
		return q.To
	}
	return 0
}

// OlderPlain is ArchivePage.Older for a query without conditions: the
// number just below the page, when the collection has it.
func OlderPlain(q dynamo.PageQuery, last int64) int64 {
	return max(0, min(q.From-1, last))
}
