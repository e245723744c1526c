package sqlite

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	msqlite "modernc.org/sqlite"

	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// A revision's description (sanitized HTML) and its plain text hold the
// same words: the plain text is what conditions scan, so it is stored as it
// is, and the description as the operations that rebuild it from the plain
// text (markup_ops), which is most often a few bytes of tags: text stored
// once (docs/STORAGE.md "Description from plain text"). The column
// description is generated from them by the SQL function markupFunc, so
// every query reads r.description as before.
//
// The operations are a sequence of a uvarint header h and its operand:
// h&1 == 0 is a literal of h>>1 bytes that follow; h&1 == 1 copies h>>1
// bytes of the plain text, from the end of the previous copy moved by the
// zigzag varint that follows (0 when the copy continues where the last one
// ended).

// markupFunc is the name of the SQL function markup(ops, plain) that
// rebuilds a description (sqlfuncs.go).
const markupFunc = "dynamo_markup"

// storedMarkup reads item queries' descriptions (itemShapeOf) as their
// operations and plain text, rebuilt by unpackMarkup as each row is read,
// rather than through the generated column and markupFunc: the driver then
// copies neither text into the function nor the description back out.
var storedMarkup = &archive.Markup{Column: "r.markup_ops", Decode: unpackMarkup}

// minCopy is the shortest run of the plain text worth a copy: shorter runs
// cost as much as their bytes as a literal.
const minCopy = 4

// maxCandidates bounds the positions of the plain text tried for a copy
// at each byte of the description, so that packing stays linear.
const maxCandidates = 8

// sqlMarkup is markupFunc: args are the operations (BLOB) and the plain
// text (TEXT).
func sqlMarkup(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	ops, err := sqlBytes(args[0])
	if err != nil {
		return nil, fmt.Errorf("%s: operations: %w", markupFunc, err)
	}
	plain, err := sqlBytes(args[1])
	if err != nil {
		return nil, fmt.Errorf("%s: plain text: %w", markupFunc, err)
	}
	desc, err := unpackMarkup(ops, string(plain))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", markupFunc, err)
	}
	return desc, nil
}

// packMarkup returns the operations that rebuild desc from plain: copies of
// the runs of plain that desc holds (the longest found at each point, at
// least minCopy bytes), literals for the rest. Any desc and plain give
// operations that rebuild desc exactly; they are short when desc is plain
// with markup around and between its words.
func packMarkup(desc, plain string) []byte {
	at := map[uint32][]int32{} // plain's positions by their first minCopy bytes
	for j := 0; j+minCopy <= len(plain); j++ {
		k := gram(plain, j)
		if ps := at[k]; len(ps) < maxCandidates {
			at[k] = append(ps, int32(j))
		}
	}
	ops := []byte{}         // never nil, which database/sql stores as NULL
	literal, cursor := 0, 0 // start of the pending literal; end of the last copy
	for i := 0; i < len(desc); {
		best, from := 0, 0
		if i+minCopy <= len(desc) {
			try := func(j int) {
				n := 0
				for i+n < len(desc) && j+n < len(plain) && desc[i+n] == plain[j+n] {
					n++
				}
				if n > best {
					best, from = n, j
				}
			}
			if cursor+minCopy <= len(plain) {
				try(cursor)
			}
			for _, j := range at[gram(desc, i)] {
				try(int(j))
			}
		}
		if best < minCopy {
			i++
			continue
		}
		if literal < i {
			ops = binary.AppendUvarint(ops, uint64(i-literal)<<1)
			ops = append(ops, desc[literal:i]...)
		}
		ops = binary.AppendUvarint(ops, uint64(best)<<1|1)
		ops = binary.AppendVarint(ops, int64(from-cursor))
		i += best
		literal, cursor = i, from+best
	}
	if literal < len(desc) {
		ops = binary.AppendUvarint(ops, uint64(len(desc)-literal)<<1)
		ops = append(ops, desc[literal:]...)
	}
	return ops
}

// gram is the minCopy bytes of s at i as one number.
func gram(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// errMarkup is the error of operations that do not fit their plain text.
var errMarkup = errors.New("description operations do not fit the plain text")

// unpackMarkup rebuilds a description from packMarkup's operations and the
// plain text they were made with.
func unpackMarkup(ops []byte, plain string) (string, error) {
	var b strings.Builder
	b.Grow(len(plain) + len(ops))
	cursor := 0
	for len(ops) > 0 {
		h, w := binary.Uvarint(ops)
		if w <= 0 {
			return "", errMarkup
		}
		ops = ops[w:]
		n := h >> 1
		if h&1 == 0 {
			if n > uint64(len(ops)) {
				return "", errMarkup
			}
			b.Write(ops[:n])
			ops = ops[n:]
			continue
		}
		move, w := binary.Varint(ops)
		if w <= 0 {
			return "", errMarkup
		}
		ops = ops[w:]
		from := int64(cursor) + move
		if from < 0 || from > int64(len(plain)) || n > uint64(int64(len(plain))-from) {
			return "", errMarkup
		}
		b.WriteString(plain[from : from+int64(n)])
		cursor = int(from) + int(n)
	}
	return b.String(), nil
}
