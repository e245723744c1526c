package archive

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
)

// FuzzUnpackRevs feeds arbitrary bytes to the decoder of stored revision
// lists: it must fail cleanly or decode to a list that encodes back to the
// same bytes' meaning.
func FuzzUnpackRevs(f *testing.F) {
	f.Add(PackRevs([]int64{51, 1, 2, 3, 4}))
	f.Add(PackRevs([]int64{1 << 40, 3, 1 << 62}))
	f.Add(PackRevs([]int64{1, 2, 3, 10, 4, 4}))
	f.Add([]byte{0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		revs, err := UnpackRevs(b)
		if err != nil {
			return
		}
		again, err := UnpackRevs(PackRevs(revs))
		if err != nil || !reflect.DeepEqual(again, revs) {
			t.Fatalf("%x decodes to %v, which re-encodes to %v (%v)", b, revs, again, err)
		}
		if len(revs) > 0 && !bytes.Equal(PackRevs(revs), PackRevs(again)) {
			t.Fatalf("encoding of %v is not stable", revs)
		}
	})
}

func TestPackRevs(t *testing.T) {
	cases := []struct {
		revs    []int64
		maxSize int
	}{
		{nil, 0},
		{[]int64{7}, 2},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2},
		{[]int64{53, 52, 51, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4},
		{[]int64{5, 5, 5, 9, 1, 1 << 40, -3, 4, 3, 2}, 30},
	}
	for _, tc := range cases {
		packed := PackRevs(tc.revs)
		got, err := UnpackRevs(packed)
		if err != nil || !slices.Equal(got, tc.revs) {
			t.Errorf("PackRevs(%v) unpacks to %v (%v)", tc.revs, got, err)
		}
		if len(packed) > tc.maxSize {
			t.Errorf("PackRevs(%v) takes %d bytes, want at most %d", tc.revs, len(packed), tc.maxSize)
		}
	}
	if _, err := UnpackRevs(binary.AppendVarint(binary.AppendVarint(nil, 1), MaxItems)); err == nil {
		t.Error("UnpackRevs accepted a run longer than any version")
	}
}

// varintRevs writes revisions in the format storage/postgres used before
// PackRevs's, as the migration finds them.
func varintRevs(revs []int64) []byte {
	var out []byte
	prev := int64(0)
	for _, r := range revs {
		out = binary.AppendVarint(out, r-prev)
		prev = r
	}
	return out
}

func TestRepackVarintRevs(t *testing.T) {
	for _, revs := range [][]int64{nil, {7}, {51, 1, 2, 3, 4}, {1 << 40, 3, 1 << 62}, {9, 8, 7, 100, 101}} {
		packed, err := RepackVarintRevs(varintRevs(revs))
		if err != nil {
			t.Fatalf("%v: %v", revs, err)
		}
		if got, err := UnpackRevs(packed); err != nil || !slices.Equal(got, revs) {
			t.Errorf("%v repacks to a list of %v (%v)", revs, got, err)
		}
	}
	if _, err := RepackVarintRevs([]byte{0x80}); err == nil {
		t.Error("a truncated varint list repacked without an error")
	}
}
