package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// open returns a store in a fresh file, closed when the test ends.
func open(t testing.TB) *Store {
	t.Helper()
	return openPath(t, filepath.Join(t.TempDir(), "dynamo.db"))
}

func openPath(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

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
