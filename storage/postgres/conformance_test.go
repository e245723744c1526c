package postgres

import (
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// TestConformance holds the PostgreSQL store to the behaviour every store
// shares, each subtest on a database of its own.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) dynamo.Store { return open(t) })
}

// TestConformanceInBatches runs the suite's subtests of versions with
// every version of more than two items written in batches of two rows
// (recordBatched), so that the batched path keeps every promise the
// one-transaction path keeps.
func TestConformanceInBatches(t *testing.T) {
	storetest.RunVersions(t, func(t *testing.T) dynamo.Store {
		s := open(t)
		s.batch = 2
		return s
	})
}
