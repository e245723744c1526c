package sqlite

import (
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// TestMarkupRoundTrip packs descriptions against their plain text and
// checks that they unpack to themselves, and that markup around the plain
// text costs a few bytes.
func TestMarkupRoundTrip(t *testing.T) {
	long := storetest.SizePage("a", 1, true).Items[0]
	for _, tc := range []struct {
		desc, plain string
		most        int // bytes the operations may take
	}{
		{"", "", 0},
		{"", "some text", 0},
		{"<p>x</p>", "", 9},
		{"<p>The council voted on item 7.</p>", "The council voted on item 7.", 12},
		{long.Description, long.Text, 100},
		{"Fish &amp; chips, fish &amp; chips", "Fish & chips, fish & chips", 30},
		{"abcabcabcabc", "abc", 13},
		{"ÄÖÜ äöü <b>Straße</b>", "ÄÖÜ äöü Straße", 16},
		{strings.Repeat("word ", 500), "word word", len("word ") * 500},
	} {
		ops := packMarkup(tc.desc, tc.plain)
		got, err := unpackMarkup(ops, tc.plain)
		if err != nil || got != tc.desc {
			t.Errorf("unpack(pack(%.40q)) = %.40q, %v", tc.desc, got, err)
		}
		if len(ops) > tc.most {
			t.Errorf("pack(%.40q): %d bytes, want at most %d", tc.desc, len(ops), tc.most)
		}
	}
}

// TestMarkupRejects checks that operations that do not fit their plain
// text are an error, not a panic or a wrong description.
func TestMarkupRejects(t *testing.T) {
	for _, ops := range [][]byte{
		{0x80},       // a header cut short
		{0x06, 'a'},  // a literal longer than what follows
		{0x03},       // a copy without its move
		{0x09, 0x00}, // a copy of 4 bytes from a 3-byte text
		{0x03, 0x01}, // a copy from beyond the text
		{0x03, 0x7f}, // a copy from before the text
	} {
		if got, err := unpackMarkup(ops, "abc"); err == nil {
			t.Errorf("unpack(%x) = %q, want an error", ops, got)
		}
	}
}

// FuzzMarkup checks that any description packs against any plain text and
// unpacks to itself, and that unpacking any bytes never panics.
func FuzzMarkup(f *testing.F) {
	f.Add("<p>The council voted.</p>", "The council voted.", []byte{0x06})
	f.Add("a &amp; b", "a & b", []byte{0x03, 0x00})
	f.Fuzz(func(t *testing.T, desc, plain string, ops []byte) {
		got, err := unpackMarkup(packMarkup(desc, plain), plain)
		if err != nil || got != desc {
			t.Fatalf("unpack(pack(%q, %q)) = %q, %v", desc, plain, got, err)
		}
		_, _ = unpackMarkup(ops, plain) // any result but a panic will do
	})
}
