package postgres

import (
	"context"
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// A database whose versions list their revisions in the format this store
// wrote before both stores shared archive.PackRevs's (the varint of each
// id's difference from the one before) is upgraded by migration 0002: every
// version rebuilds as it did, and new versions are stored after them.
func TestRevsMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	var items []dynamo.Item
	for i := range 12 {
		items = append(items, item(i, "story"))
	}
	// Pages whose items move, come and go, so that the lists hold runs up
	// and down and single ids.
	record(t, s, "a", t0, doc("a", t0, items[:6]...))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), slices.Concat(items[8:10], []dynamo.Item{items[5]}, items[:4])...))
	record(t, s, "a", t0.Add(2*time.Hour), doc("a", t0.Add(2*time.Hour), items[11], items[3], items[7], items[1]))
	var want []*dynamo.Resource
	for index := 3; index >= 1; index-- {
		d, _, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}

	// Write the lists back in the old format, as a database migrated up to
	// 0001 holds them, and forget 0002.
	rows, err := s.pool.Query(ctx, "SELECT seq, revs FROM versions WHERE source_id = 'a'")
	if err != nil {
		t.Fatal(err)
	}
	old := map[int][]byte{}
	for rows.Next() {
		var seq int
		var packed []byte
		if err := rows.Scan(&seq, &packed); err != nil {
			t.Fatal(err)
		}
		revs, err := archive.UnpackRevs(packed)
		if err != nil {
			t.Fatal(err)
		}
		var varints []byte
		prev := int64(0)
		for _, r := range revs {
			varints, prev = binary.AppendVarint(varints, r-prev), r
		}
		old[seq] = varints
	}
	if rows.Err() != nil || len(old) != 3 {
		t.Fatalf("read %d versions: %v", len(old), rows.Err())
	}
	for seq, varints := range old {
		if _, err := s.pool.Exec(ctx, "UPDATE versions SET revs = $2 WHERE source_id = 'a' AND seq = $1", seq, varints); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM schema_migrations WHERE version = 2"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	upgraded := openDSN(t, dsn)
	if got := upgraded.Applied(); !slices.Equal(got, []string{"0002_revs_as_runs"}) {
		t.Fatalf("reopening applied %v, want 0002_revs_as_runs", got)
	}
	for i, index := 0, 3; index >= 1; i, index = i+1, index-1 {
		d, _, err := upgraded.Document(ctx, "a", index)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d, want[i]) {
			t.Errorf("version %d after the migration:\n%+v\nwant\n%+v", index, d, want[i])
		}
	}
	res := record(t, upgraded, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), items[3], items[10]))
	if res.Version == nil || res.Version.Removed != 3 || len(res.NewItems) != 1 {
		t.Errorf("a version after the migration: %+v, want 1 new item and 3 removed", res)
	}
}
