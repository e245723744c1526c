package annotate

import (
	"slices"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

// TestCompactComment checks the compact comments the suggester writes when
// a page would not fit otherwise: fewer bytes, and the wrapper reads the
// same annotation from them.
func TestCompactComment(t *testing.T) {
	tests := []struct{ in, want string }{
		{openComment("item:title", "12", ""), `<!--<item:title index=12>-->`},
		{closeComment("item:title"), `<!--</item:title>-->`},
		{openComment("item:extension", "3", dateAttrs), `<!--<item:extension index=3` + dateAttrs + `>-->`},
		{openComment("item:link", "x7", ""), `<!--<item:link index="x7">-->`}, // not digits: quoted as written
		{openComment("channel:title", "", ""), `<!--<channel:title>-->`},
	}
	for _, tt := range tests {
		got := compactComment(tt.in)
		if got != tt.want {
			t.Errorf("compactComment(%q) = %q, want %q", tt.in, got, tt.want)
			continue
		}
		body := func(c string) string { return strings.TrimSuffix(strings.TrimPrefix(c, "<!--"), "-->") }
		a, b := wrapper.CommentTags(body(got)), wrapper.CommentTags(body(tt.in))
		if len(a) != 1 || !slices.Equal(a, b) {
			t.Errorf("%q reads as %+v, the full form as %+v", got, a, b)
		}
	}
}

// FuzzCompactComment checks compactComment against its edits made one
// by one with strings.Replace, as it was first written.
func FuzzCompactComment(f *testing.F) {
	for _, c := range []string{
		openComment("item:title", "12", ""), closeComment("item:title"), openComment("item:extension", "3", dateAttrs),
		openComment("item:link", "x7", ""), openComment("channel:title", "", ""), `<!-- <a index=""> -->`, `> --><!-- <`,
		`<!-- <!-- <x index="1" index="2"> --> -->`, strings.Repeat("<!-- <", 40) + ` index="9"`,
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		want := strings.Replace(c, "<!-- <", "<!--<", 1)
		want = strings.Replace(want, "> -->", ">-->", 1)
		const attr = ` index="`
		if i := strings.Index(want, attr); i >= 0 {
			v := want[i+len(attr):]
			if j := strings.IndexByte(v, '"'); j > 0 && strings.Trim(v[:j], "0123456789") == "" {
				want = want[:i+len(attr)-1] + v[:j] + v[j+1:]
			}
		}
		if got := compactComment(c); got != want {
			t.Fatalf("compactComment(%q) = %q, want %q", c, got, want)
		}
	})
}
