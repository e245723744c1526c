package sqlite

import (
	"database/sql/driver"
	"fmt"
	"hash/fnv"

	msqlite "modernc.org/sqlite"
)

// The SQL functions of the schema: the generated column
// item_revisions.description (markupFunc) and the indexes of titles and
// item keys (keyFunc) call them, so every connection of the process has them,
// registered before any opens. Another program reading the file (the
// sqlite3 shell) can read every other column and table, but not these
// without defining them.
func init() {
	for name, f := range map[string]struct {
		args int32
		fn   func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error)
	}{markupFunc: {2, sqlMarkup}, keyFunc: {1, sqlKey}} {
		if err := msqlite.RegisterDeterministicScalarFunction(name, f.args, f.fn); err != nil {
			panic(fmt.Sprintf("sqlite: register %s: %v", name, err))
		}
	}
}

// keyFunc is the name of the SQL function key(text), the key by which
// item_revisions_title indexes a revision's title (migration 0013, which
// named it for that) and item_revisions_key its item's key (0015): 31 bits
// of the text's FNV-1a hash, at most 4 bytes in an index entry where the
// title took about sixty bytes and the item key 32 with its content hash.
// Texts of one key are told apart by comparing them (versionTx.byTitle,
// versionTx.Revisions).
const keyFunc = "dynamo_title_key"

// textKey is keyFunc's value for text.
func textKey(text []byte) int64 {
	h := fnv.New32a()
	h.Write(text)
	return int64(h.Sum32() & 0x7fffffff)
}

// sqlKey is keyFunc: the argument is a text.
func sqlKey(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	text, err := sqlBytes(args[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFunc, err)
	}
	return textKey(text), nil
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
