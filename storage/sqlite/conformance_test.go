package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
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

// migrated holds the files of a store that Open created and every
// migration built, then closed: the conformance suite's fresh stores start
// from a copy of them, as Open leaves a new file, rather than each running
// the migrations again (about 0.4 s of CPU each under -race, once per
// test of the suite). The migrations themselves are tested on fresh files by
// the other tests (open, openPath) and the upgrade tests.
var migrated = sync.OnceValues(func() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "dynamo-sqlite-migrated-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "dynamo.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			return nil, err
		}
		files[suffix] = data
	}
	return files, nil
})

// openMigrated returns a store in a fresh copy of migrated, closed when the
// test ends; Open must find nothing to apply there.
func openMigrated(t testing.TB) *Store {
	t.Helper()
	files, err := migrated()
	if err != nil {
		t.Fatalf("a migrated store to copy: %v", err)
	}
	path := filepath.Join(t.TempDir(), "dynamo.db")
	for suffix, data := range files {
		if err := os.WriteFile(path+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openPath(t, path)
	if applied := s.Applied(); len(applied) != 0 {
		t.Fatalf("a copy of a migrated store applied %v again", applied)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) dynamo.Store { return openMigrated(t) })
}

// TestConformanceInBatches runs the suite's subtests of versions with
// every version of more than two items written in batches of two rows
// (recordBatched), so that the batched path keeps every promise the
// one-transaction path keeps.
func TestConformanceInBatches(t *testing.T) {
	storetest.RunVersions(t, func(t *testing.T) dynamo.Store {
		s := openMigrated(t)
		s.batch = 2
		return s
	})
}
