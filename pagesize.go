package dynamo

import (
	"errors"
	"fmt"
)

// The size of a page: one rule for every place Dynamo reads one
// (docs/WRAPPER.md, "Size cap").
//
// A page may hold MaxPageBytes of its own. The suggester (dynamo annotate
// and the playground's "Suggest annotations") reads pages up to that size
// and inserts its annotations as comments, so every reader of pages (dynamo
// wrap, the poller's fetcher, WebSub pushes, POST /api/wrap, the
// playground) takes MaxAnnotatedPageBytes: the page's bytes and as many
// again for the annotations. The suggester inserts at most 294 bytes per
// item plus four times the digits of its index (a title, a link, a
// description and a date, each opened and closed) and 110 for the
// channel (twice that in a UTF-16 page, whose items are twice as long), so
// the annotations of a page whose items average 318 bytes or more (114 for
// items with only a title and a link) are never larger than the page. A
// denser page near the limit could gain more: the suggester then leaves
// out its items' dates, then their descriptions, and refuses it
// (CheckAnnotated) only when its titles and links alone do not fit, rather
// than write a page no reader takes.
const (
	MaxPageBytes          = 10 << 20
	AnnotationRoomBytes   = MaxPageBytes
	MaxAnnotatedPageBytes = MaxPageBytes + AnnotationRoomBytes
)

// ErrPageTooLarge is wrapped by the errors of a page over its limit.
var ErrPageTooLarge = errors.New("page too large")

// CheckPage refuses a page of n bytes given to the suggester, which
// annotates pages of at most MaxPageBytes.
func CheckPage(n int) error {
	if n <= MaxPageBytes {
		return nil
	}
	return fmt.Errorf("%w: the page has %d bytes; annotations are suggested for pages of at most %d (%d MiB), so that the annotated page stays within the %d MiB that Dynamo reads",
		ErrPageTooLarge, n, MaxPageBytes, MaxPageBytes>>20, MaxAnnotatedPageBytes>>20)
}

// CheckAnnotated refuses a suggestion whose annotated page (annotated
// bytes, of a page of page bytes), with only its items' titles and links
// and the channel's fields annotated, is larger than limit
// (MaxAnnotatedPageBytes, what any reader of pages takes): the suggester
// leaves out the items' dates, then their descriptions, to fit, and
// refuses only a page that does not fit without them.
func CheckAnnotated(page, annotated, limit int) error {
	if annotated <= limit {
		return nil
	}
	return fmt.Errorf("%w: with only its items' titles and links annotated, the annotated page would have %d bytes (the page's %d and %d of annotations), more than the %d (%d MiB) that Dynamo reads of a page: "+
		"its items are too many for their size; split the list over several pages, or follow the page as it is with a selectors source (dynamo annotate --selectors)",
		ErrPageTooLarge, annotated, page, annotated-page, limit, limit>>20)
}
