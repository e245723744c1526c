package transform

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"io"

	"github.com/dynamo-feeds/dynamo"
)

// Items hands a document's items to yield one at a time, in order, and
// returns the first error yield or its own reading returns. A Stream calls
// it more than once, and each call must hand the same items.
type Items func(yield func(*dynamo.Item) error) error

// itemsOf hands the items of a slice.
func itemsOf(items []dynamo.Item) Items {
	return func(yield func(*dynamo.Item) error) error {
		for i := range items {
			if err := yield(&items[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// Stream renders a document whose items are too many to hold (a listing of
// every collection, read from the store as it is written): it reads the
// items once when made, to learn what the root element must declare before
// the first item (the namespaces the items use, RSS 1.0's rdf:about of each
// item) and a digest of them, and again when written, each item rendered
// and let go as it comes, so that the memory it takes is that of one item
// whatever their number. RSS 1.0 reads them twice when written: its
// channel lists every item (rdf:Seq) before the items. The bytes are those
// Render writes for the head with those items.
type Stream struct {
	head   *dynamo.Resource
	items  Items
	format Format
	o      options
	fc     *facts
	digest []byte // of the items as NewStream read them
}

// NewStream reads items once and returns the stream that writes head (a
// document whose own Items are ignored) with them in format f. The head's
// URL, RSSID and channel must not change after; its Timestamp may (a
// listing dated by what reading its items found), and Sum and Write read
// it as it is when they are called. Errors are items', and an unknown
// format or a nil head (wrapping dynamo.ErrInvalid).
func NewStream(head *dynamo.Resource, items Items, f Format, opts ...Option) (*Stream, error) {
	if head == nil {
		return nil, fmt.Errorf("render %s: %w: no resource", f, dynamo.ErrInvalid)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	s := &Stream{head: head, items: items, format: f, o: newOptions(opts), fc: newFacts(f)}
	fd := s.o.prepare(head)
	h := sha256.New()
	err := items(func(it *dynamo.Item) error {
		if err := writeDigest(h, it); err != nil {
			return err
		}
		if s.fc.needed {
			e := fd.entry(it)
			s.fc.add(&e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("render %s: read the items: %w", f, err)
	}
	s.digest = h.Sum(nil)
	return s, nil
}

// writeDigest adds an item to a digest: every field, in JSON, and the
// item's length first so that no two lists of items run together.
func writeDigest(h hash.Hash, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%d:", len(b))
	h.Write(b)
	return nil
}

// Sum is a digest of everything the stream's bytes depend on: the format,
// the options, the head as it is now and the items as NewStream read them.
// Rendering is deterministic, so two streams with the same Sum write the
// same bytes (of the same version of this package): it stands in for a
// digest of the bytes, which are not known until written, as an HTTP
// validator (docs/API.md "Caching, validators, conditional requests").
func (s *Stream) Sum() [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "transform.Stream\n%q\n%q\n%q\n%q\n%q\n%q\n%t\n", s.format, s.o.self, s.o.hub, s.o.schema,
		s.o.history.PrevArchive, s.o.history.Current, s.o.history.Archive)
	head := *s.head
	head.Items = nil
	writeDigest(h, &head) // a Resource always encodes
	h.Write(s.digest)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Write reads the items again and writes the document to w, each item as
// it comes. Errors are w's and items'. Items that changed since NewStream
// read them are written as they now are (an extension in a namespace the
// root element does not declare declares it on its element), except one
// needing a namespace of the format that the root element lacks (an
// item's picture, enclosures or update time where no item had one): that
// stops the writing with an error, the document so far being unfinished.
func (s *Stream) Write(w io.Writer) error {
	var err error
	if s.format == XMLData {
		err = writeXMLData(w, s.head, s.items, s.o.schema)
	} else {
		fd := s.o.prepare(s.head)
		err = writeFeed(w, s.format, fd, func(yield func(*entry) error) error {
			return s.items(func(it *dynamo.Item) error {
				e := fd.entry(it)
				if !s.fc.covers(&e) {
					return fmt.Errorf("item %q changed since its feed was begun: it needs a namespace the root element does not declare", it.ID)
				}
				return yield(&e)
			})
		}, s.fc)
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", s.format, err)
	}
	return nil
}

// entries hands the prepared entries of a feed to yield, in order, as
// Items does the items; a writer that needs them twice (RSS 1.0) calls it
// twice.
type entries func(yield func(*entry) error) error

// entriesOf hands the entries of a slice.
func entriesOf(ents []entry) entries {
	return func(yield func(*entry) error) error {
		for i := range ents {
			if err := yield(&ents[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// facts are what a feed's root element and channel must know of all its
// entries before the first is written: which namespaces the entries use
// and, for RSS 1.0, which own links are unique.
type facts struct {
	// needed reports whether the format's writer reads the facts (JSON
	// Feed and XMLData do not).
	needed bool
	// owned is the format's rule of the extension namespaces it never
	// writes (nil: no bindings are learnt).
	owned                        func(uri string) bool
	images, updates, dates, html bool
	enclosures                   int        // the most enclosures of one entry
	bindings                     namespaces // of the entries' extensions, first binding of each prefix
	links                        map[string]int
}

func newFacts(f Format) *facts {
	fc := &facts{needed: true}
	switch f {
	case RSS1:
		fc.owned, fc.links = ownedByRSS1, map[string]int{}
	case RSS2:
		fc.owned = leftOutOfRSS2
	case Atom:
		fc.owned = ownedByAtom
	default:
		fc.needed = false
	}
	return fc
}

// add learns what one entry needs of the root element.
func (fc *facts) add(e *entry) {
	fc.images = fc.images || e.image != ""
	fc.updates = fc.updates || !e.updated.IsZero()
	fc.dates = fc.dates || !e.date.IsZero()
	fc.html = fc.html || e.description != ""
	fc.enclosures = max(fc.enclosures, len(e.enclosures))
	if fc.owned != nil {
		for _, x := range e.extensions {
			if bindable(x, fc.owned) {
				fc.bindings.bind(x.Prefix, x.URI)
			}
		}
	}
	if fc.links != nil && e.ownLink {
		fc.links[e.link]++
	}
}

// covers reports whether the root element the facts made declares every
// namespace of the format that e uses.
func (fc *facts) covers(e *entry) bool {
	if !fc.needed {
		return true
	}
	ok := (e.image == "" || fc.images) && (e.updated.IsZero() || fc.updates) && len(e.enclosures) <= fc.enclosures
	if fc.links != nil { // RSS 1.0 declares dc and content only when used
		ok = ok && (e.date.IsZero() || fc.dates) && (e.description == "" || fc.html)
	}
	return ok
}

// about is an RSS 1.0 entry's rdf:about: its own link when no other entry,
// nor the channel (channelAbout), has that link; else its id.
func (fc *facts) about(e *entry, channelAbout string) string {
	if e.ownLink && fc.links[e.link] == 1 && e.link != channelAbout {
		return e.link
	}
	return e.id
}
