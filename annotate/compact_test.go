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
