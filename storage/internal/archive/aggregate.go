package archive

import "github.com/dynamo-feeds/dynamo"

// CheckAggregatePage checks an aggregate page query
// (dynamo.ArchiveStore.AggregatePage) before a store reads it: a page from
// 1 (or 0, the current one), a size from 1, valid conditions.
func CheckAggregatePage(q dynamo.AggregatePageQuery) error {
	if q.Number < 0 || q.Size < 1 || q.Number > (1<<62)/q.Size {
		return dynamo.Invalidf("aggregate page %d of %d items: want a page from 1 (0: the current one) and a size from 1", q.Number, q.Size)
	}
	return dynamo.ValidateConditions(q.Conditions)
}

// AggregateBounds is the page q reads once the store knows last, the
// highest aggregate number handed out: its number (the current page's for
// 0: the one holding number last+1) and its first and last numbers.
func AggregateBounds(q dynamo.AggregatePageQuery, last int64) (n, from, to int64) {
	n = q.Number
	if n == 0 {
		n = last/q.Size + 1
	}
	return n, (n-1)*q.Size + 1, n * q.Size
}
