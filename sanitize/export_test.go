package sanitize

import "net/url"

// OnePassTakes reports whether HTMLText's one pass takes the fragment
// rather than handing it to HTML and Text.
func OnePassTakes(fragment string, base *url.URL) bool {
	b := bufferPool.Get().(*buffers)
	defer bufferPool.Put(b)
	return b.onePass(fragment, base)
}

// Collapse is collapse, for its fuzz target.
var Collapse = collapse

// Replayed returns what HTMLText's one pass wrote as bluemonday's output
// (before trimming) and the markup it wrote; ok is false when the one pass
// did not take the fragment or bluemonday had to read the markup itself.
func Replayed(fragment string, base *url.URL) (clean, markup string, ok bool) {
	b := bufferPool.Get().(*buffers)
	defer bufferPool.Put(b)
	if !b.onePass(fragment, base) || !b.known {
		return "", "", false
	}
	return b.clean.String(), b.markup.String(), true
}

// Bluemonday is the policy's own pass, for the replay's fuzz target.
func Bluemonday(markup string) string { return policy.Sanitize(markup) }
