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

// OnePassOutput is what onePass wrote: the markup, the text, the replayed
// output (with known) and whether it took the fragment.
type OnePassOutput struct {
	Markup, Text, Clean string
	Known, Takes        bool
}

// ScanAndTokenize returns what onePass writes when plainScan reads the
// fragment (read is false when plainScan does not) and when x/net/html's
// tokenizer does.
func ScanAndTokenize(fragment string, base *url.URL) (scanned, tokenized OnePassOutput, read bool) {
	b := bufferPool.Get().(*buffers)
	defer bufferPool.Put(b)
	output := func(takes bool) OnePassOutput {
		return OnePassOutput{b.markup.String(), b.text.String(), b.clean.String(), b.known, takes}
	}
	b.reset()
	takes, read := b.plainScan(fragment, base)
	scanned = output(takes)
	b.reset()
	tokenized = output(b.tokenize(fragment, base))
	return scanned, tokenized, read
}

// PlainURL is plainURL, for the shapes' tests.
var PlainURL = plainURL
