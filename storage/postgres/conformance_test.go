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
