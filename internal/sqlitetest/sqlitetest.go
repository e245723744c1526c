// Package sqlitetest gives tests the file of an empty embedded store
// without running the migrations once per store: a copy of a store that
// sqlite.Open created and migrated once per test binary. Under -race the
// migrations cost about 0.4 s of CPU a store, reopening a migrated file
// 0.02 s. Tests of a store's creation keep opening fresh paths, as do
// storage/sqlite's own tests of the migrations.
package sqlitetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// migrated holds the files of the migrated empty store.
var migrated = sync.OnceValues(func() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "dynamo-migrated-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "dynamo.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
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

var checked sync.Once

// Path writes a copy of the migrated empty store as dir/name and returns
// its path. The first copy is opened once to check that sqlite.Open finds
// no migration to apply there.
func Path(t testing.TB, dir, name string) string {
	t.Helper()
	files, err := migrated()
	if err != nil {
		t.Fatalf("sqlitetest: a migrated store to copy: %v", err)
	}
	path := filepath.Join(dir, name)
	for suffix, data := range files {
		if err := os.WriteFile(path+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checked.Do(func() {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("sqlitetest: open a copy of a migrated store: %v", err)
		}
		defer st.Close()
		if applied := st.Applied(); len(applied) != 0 {
			t.Fatalf("sqlitetest: a copy of a migrated store applied %v again", applied)
		}
	})
	return path
}
