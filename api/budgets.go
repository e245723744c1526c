package api

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/dynamo-feeds/dynamo/limits"
)

// The defaults of the budgets of anonymous reads (docs/API.md, "Budgets").
const (
	// DefaultMaxAnswerBytes bounds one rendered answer: 32 MiB holds
	// thousands of items in any format.
	DefaultMaxAnswerBytes = 32 << 20
	// DefaultXPathMemory bounds the document trees one XPath request holds
	// at once: 256 MiB, about a 20 MB stored version.
	DefaultXPathMemory = 256 << 20
	// xpathTreeFactor is how much memory xmlquery's tree of a document
	// takes per byte of its XML, with room: 5.4 measured on a 5,000-item
	// version (TestXPathTreeFactor), more for items of short texts.
	xpathTreeFactor = 12
	// heavyQueue and heavyWait are how many expensive reads may wait for
	// a slot, and for how long, before the next are answered 503.
	heavyQueue = 32
	heavyWait  = 2 * time.Second
	// heavyMax is the largest max= that is not an expensive read.
	heavyMax = 200
)

// DefaultHeavyReads is how many expensive reads run at once by default:
// one per processor, at least two.
func DefaultHeavyReads() int { return max(2, runtime.GOMAXPROCS(0)) }

// DefaultHeavyGate is the gate of expensive reads that a server without
// one gets: DefaultHeavyReads slots, a queue of 32, waiting at most 2s.
func DefaultHeavyGate() *limits.Gate { return NewHeavyGate(DefaultHeavyReads()) }

// NewHeavyGate is the gate of n expensive reads at once, with the default
// queue and wait (`serve --heavy-reads`).
func NewHeavyGate(n int) *limits.Gate { return limits.NewGate(n, heavyQueue, heavyWait) }

// heavy reports whether a read is expensive: XPath, a search, an archive
// of more than heavyMax items, or any read of the aggregate. Reads of one
// version (bounded by the cap on items per version) or of a short archive
// are cheap, as is every cached answer.
func heavy(q *readQuery, scope string) bool {
	return q.XPath != "" || len(q.Conditions) > 0 || q.Max > heavyMax || (scope == "" && q.itemQuery())
}

// enterHeavy takes a slot for an expensive read, or answers 503 with
// Retry-After and reports false.
func (s *Server) enterHeavy(ctx context.Context, w http.ResponseWriter, r *http.Request) (func(), bool) {
	release, err := s.cfg.Heavy.Enter(ctx)
	if err == nil {
		return release, true
	}
	if errors.Is(err, limits.ErrBusy) {
		w.Header().Set("Retry-After", strconv.Itoa(s.cfg.Heavy.RetryAfter()))
	}
	s.writeReadError(w, r, err)
	return nil, false
}
