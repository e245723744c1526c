package dynamo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// ItemID derives an item's id, which stays the same across versions of a
// page so that the archive can tell new items from old ones. An item whose
// link is its own (annotated, not defaulted to the page URL) is identified by
// that link, so editing its title or description keeps its id; otherwise the
// id comes from its title and description, whitespace-insensitively.
func ItemID(link string, ownLink bool, title, description string) string {
	h := sha256.New()
	if ownLink {
		writeField(h, "link")
		writeField(h, strings.TrimSpace(link))
	} else {
		writeField(h, "content")
		writeField(h, strings.Join(strings.Fields(title), " "))
		writeField(h, strings.Join(strings.Fields(description), " "))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ContentHash returns a digest of a document's informational content: the
// titles, links and descriptions of the channel and of the items, in page
// order. Two retrievals with the same hash are the same version (SPEC §4);
// anything else (timestamps, images, extensions) does not make a version.
func ContentHash(r *Resource) string {
	h := sha256.New()
	writeField(h, r.Channel.Title)
	writeField(h, r.Channel.Link)
	writeField(h, r.Channel.Description)
	for _, it := range r.Items {
		writeField(h, it.Title)
		writeField(h, it.Link)
		writeField(h, it.Description)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes s length-prefixed, so that no two different sequences of
// fields hash alike.
func writeField(h interface{ Write([]byte) (int, error) }, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
