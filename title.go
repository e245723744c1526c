package dynamo

import "strings"

// MaxDerivedTitle is how many characters of an item's text stand in for a
// missing title: about what a feed reader's list shows.
const MaxDerivedTitle = 80

// TitleFromText is the one rule for the title of an item that has none,
// applied by the wrapper, the native-feed reader, the renderers and the
// web pages alike: the item's plain text (or its link's), whole when it has
// at most MaxDerivedTitle characters; else its first MaxDerivedTitle, cut
// back to the last space when that keeps more than half of them, stripped
// of the punctuation left at the cut (" ,;:.-") and ended with "…".
func TitleFromText(text string) string {
	cut, long := "", false
	count := 0
	for i := range text {
		if count == MaxDerivedTitle {
			cut, long = text[:i], true
			break
		}
		count++
	}
	if !long {
		return text
	}
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}
