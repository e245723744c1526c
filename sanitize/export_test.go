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
