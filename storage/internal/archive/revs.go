package archive

import (
	"encoding/binary"
	"fmt"
)

// MaxItems bounds the items of a stored version that UnpackRevs accepts,
// so that a corrupt list cannot ask for unbounded memory.
const MaxItems = 1 << 24

// PackRevs encodes a version's revision ids, in page order, as runs of
// consecutive ids, ascending or descending: for each run, the zigzag
// varint of its first id's difference from the previous run's last, then
// the zigzag varint of its length minus one, negated for a descending run.
// Items stored together have consecutive ids, and a page mostly keeps its
// order while new items arrive on top (each newer than the one below it),
// so a version costs a few bytes rather than one per item. Both stores
// keep this format; PostgreSQL's earlier one is RepackVarintRevs's input.
func PackRevs(revs []int64) []byte {
	out := []byte{} // an empty version is an empty list, not NULL
	prev := int64(0)
	for i := 0; i < len(revs); {
		step := int64(1)
		if i+1 < len(revs) && revs[i+1] == revs[i]-1 {
			step = -1
		}
		j := i + 1
		for j < len(revs) && revs[j] == revs[j-1]+step {
			j++
		}
		out = binary.AppendVarint(out, revs[i]-prev)
		out = binary.AppendVarint(out, step*int64(j-i-1))
		prev = revs[j-1]
		i = j
	}
	return out
}

// UnpackRevs decodes PackRevs.
func UnpackRevs(b []byte) ([]int64, error) {
	var revs []int64
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			return nil, fmt.Errorf("corrupt revision list after %d revisions", len(revs))
		}
		b = b[n:]
		run, m := binary.Varint(b)
		step, more := int64(1), run
		if run < 0 {
			step, more = -1, -run
		}
		if m <= 0 || more < 0 || more >= MaxItems-int64(len(revs)) {
			return nil, fmt.Errorf("corrupt revision list after %d revisions", len(revs))
		}
		b = b[m:]
		start := prev + d
		for k := range more + 1 {
			revs = append(revs, start+step*k)
		}
		prev = revs[len(revs)-1]
	}
	return revs, nil
}

// RepackVarintRevs re-encodes a revision list written in the format
// storage/postgres used before both stores shared PackRevs's (the zigzag
// varint of each id's difference from the one before it), for the
// migration that converts the lists already stored.
func RepackVarintRevs(b []byte) ([]byte, error) {
	var revs []int64
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 || len(revs) >= MaxItems {
			return nil, fmt.Errorf("corrupt revision list after %d revisions", len(revs))
		}
		prev += d
		revs = append(revs, prev)
		b = b[n:]
	}
	return PackRevs(revs), nil
}
