package sqlite

import (
	"database/sql/driver"
	"fmt"
	"hash/fnv"

	msqlite "modernc.org/sqlite"
)

// The SQL functions of the schema: the generated column
// item_revisions.description (markupFunc) and the index of titles
// (titleKeyFunc) call them, so every connection of the process has them,
// registered before any opens. Another program reading the file (the
// sqlite3 shell) can read every other column and table, but not these
// without defining them.
func init() {
	for name, f := range map[string]struct {
		args int32
		fn   func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error)
	}{markupFunc: {2, sqlMarkup}, titleKeyFunc: {1, sqlTitleKey}} {
		if err := msqlite.RegisterDeterministicScalarFunction(name, f.args, f.fn); err != nil {
			panic(fmt.Sprintf("sqlite: register %s: %v", name, err))
		}
	}
}

// titleKeyFunc is the name of the SQL function title_key(title), the key
// by which item_revisions_title indexes a revision's title: 31 bits of its
// FNV-1a hash, at most 4 bytes in an index entry where the whole title took
// about sixty. Titles of one key are told apart by comparing them
// (versionTx.ItemsByTitle).
const titleKeyFunc = "dynamo_title_key"

// titleKey is titleKeyFunc's value for title.
func titleKey(title []byte) int64 {
	h := fnv.New32a()
	h.Write(title)
	return int64(h.Sum32() & 0x7fffffff)
}

// sqlTitleKey is titleKeyFunc: the argument is a title (TEXT).
func sqlTitleKey(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	title, err := sqlBytes(args[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", titleKeyFunc, err)
	}
	return titleKey(title), nil
}

// sqlBytes is an SQL argument of a string or BLOB type as bytes (NULL as
// none).
func sqlBytes(v driver.Value) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		return v, nil
	case string:
		return []byte(v), nil
	default:
		return nil, fmt.Errorf("a %T, not text", v)
	}
}
