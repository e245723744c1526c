package dynamo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ItemID derives an item's id, which stays the same across versions of a
// page so that the archive can tell new items from old ones. An item whose
// link is its own (annotated, not defaulted to the page URL) is identified by
// that link, so editing its title or description keeps its id; otherwise the
// id comes from its title and description, whitespace-insensitively.
//
// The fields are hashed from one buffer on the stack when they fit in it,
// and the words are copied into it without building the joined strings, so
// that an id costs one allocation, its string (the wrapper derives one per
// item of every page it reads, and descriptions run to a kilobyte).
func ItemID(link string, ownLink bool, title, description string) string {
	var room [2048]byte
	b := room[:0]
	if ownLink {
		b = appendField(b, "link")
		b = appendField(b, strings.TrimSpace(link))
	} else {
		b = appendField(b, "content")
		b = appendWords(b, title)
		b = appendWords(b, description)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// appendWords appends, as appendField would, s's words (strings.Fields)
// joined by single spaces: s itself when it is so already, as most titles
// and descriptions are; else the words, their length going before them
// once it is known.
func appendWords(b []byte, s string) []byte {
	if wordsJoined(s) {
		return appendField(b, s)
	}
	at := len(b)
	b = binary.BigEndian.AppendUint64(b, 0)
	start := len(b)
	for w := range strings.FieldsSeq(s) {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	binary.BigEndian.PutUint64(b[at:], uint64(len(b)-start))
	return b
}

// ContentHash returns a digest of a document's informational content: the
// titles, links and descriptions of the channel and of the items, in page
// order. Two retrievals with the same hash are the same version (docs/POLLER.md "One poll");
// anything else (timestamps, images, extensions) does not make a version.
func ContentHash(r *Resource) string {
	h := sha256.New()
	var field []byte // each field in turn, reused
	write := func(s string) {
		field = appendField(field[:0], s)
		h.Write(field)
	}
	write(r.Channel.Title)
	write(r.Channel.Link)
	write(r.Channel.Description)
	for _, it := range r.Items {
		write(it.Title)
		write(it.Link)
		write(it.Description)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// appendField appends s length-prefixed, so that no two different sequences
// of fields hash alike.
func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// TitlesToMatch lists the titles by which items not stored under their own
// id may still be known (see MatchStoredItems): those of the items whose id
// comes from their content. stored reports whether the source has an item
// of a key.
func TitlesToMatch(items []Item, stored func(key string) bool) []string {
	var titles []string
	for _, it := range items {
		if it.IDFromContent && !stored(it.ID) {
			titles = append(titles, it.Title)
		}
	}
	return titles
}

// MatchStoredItems decides which stored item each item of a new version of
// a source is, so that an item already seen is not new (docs/STORAGE.md "Schema"): the item
// stored under its id; failing that, for an item whose id comes from its
// content (an edited description changes such an id), a stored item of the
// same title that no other item of the version is; else none, and the item
// is new under its own id. stored reports whether the source has an item of
// a key; byTitle lists the stored items' keys for each title of
// TitlesToMatch, the preferred first. It returns each item's key, and the
// stored keys that were found by title.
func MatchStoredItems(items []Item, stored func(key string) bool, byTitle map[string][]string) (keys, byTitleKeys []string) {
	taken := map[string]bool{}
	for _, it := range items {
		if stored(it.ID) {
			taken[it.ID] = true
		}
	}
	keys = make([]string, len(items))
	for i, it := range items {
		keys[i] = it.ID
		if !it.IDFromContent || stored(it.ID) {
			continue
		}
		for _, key := range byTitle[it.Title] {
			if !taken[key] {
				keys[i], taken[key] = key, true
				byTitleKeys = append(byTitleKeys, key)
				break
			}
		}
	}
	return keys, byTitleKeys
}

// wordsJoined reports whether s is its words joined by single spaces: no
// white space (unicode.IsSpace, as strings.Fields has it) but single
// spaces between words.
func wordsJoined(s string) bool {
	space := true // as if after a space, so that a leading one is refused
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			white := c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			if white && (c != ' ' || space) {
				return false
			}
			space = white
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		space = false
		i += n
	}
	return !space || s == ""
}
