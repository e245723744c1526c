package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/storage"
)

// migrated holds the files of an empty embedded store that storage.Open
// created and every migration built, then closed, once per test binary.
// Tests whose subject is not a store's creation start from a copy of it
// (migratedDB) rather than each running the migrations again: about 0.4 s
// of CPU a store under -race, 0.02 s to reopen a migrated file. The
// migrations on a fresh file stay tested (TestMigrate, the tests that open
// a path of their own, and storage/sqlite's).
var migrated = sync.OnceValues(func() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "dynamo-migrated-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "dynamo.db")
	st, err := storage.Open(context.Background(), path)
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

// migratedDB writes a copy of migrated as dir/name and returns its path,
// checking once that storage.Open finds nothing to apply there.
func migratedDB(t testing.TB, dir, name string) string {
	t.Helper()
	files, err := migrated()
	if err != nil {
		t.Fatalf("a migrated store to copy: %v", err)
	}
	path := filepath.Join(dir, name)
	for suffix, data := range files {
		if err := os.WriteFile(path+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	migratedChecked.Do(func() {
		st, err := storage.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open a copy of a migrated store: %v", err)
		}
		defer st.Close()
		if names, _ := storage.Applied(st); len(names) != 0 {
			t.Fatalf("a copy of a migrated store applied %v again", names)
		}
	})
	return path
}

var migratedChecked sync.Once
