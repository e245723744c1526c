package wrapper

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// itemAnnot is an item annotation on its way into an item.
type itemAnnot struct {
	a     *annot
	field string // title, link, description, image, extension, enclosure
	pub   *Annotation
}

// itemGroup gathers the annotations of one item.
type itemGroup struct {
	numbered bool  // its index is an integer: it sorts among the numbered items
	number   int64 // that integer
	seq      int   // creation order, which is page order
	label    string
	written  string // the index as written by its first annotation, trimmed
	fields   [len(singleFields)]itemAnnot
	exts     []itemAnnot
	encs     []itemAnnot
	members  []*Annotation
	// Room for the usual item (four fields and an extension), so that
	// gathering it allocates nothing.
	firstMembers [len(singleFields) + 1]*Annotation
	firstExt     [1]itemAnnot
}

// singleFields are the fields an item has at most one of, in the order of
// itemGroup.fields.
var singleFields = [...]string{"title", "link", "description", "image"}

// slot returns the place of a field among singleFields; -1 for extension
// and enclosure, of which an item has any number.
func slot(field string) int {
	for i, f := range singleFields {
		if f == field {
			return i
		}
	}
	return -1
}

// field returns the group's annotation of a field of singleFields, and
// whether it has one.
func (g *itemGroup) field(name string) (itemAnnot, bool) {
	ia := g.fields[slot(name)]
	return ia, ia.a != nil
}

func (g *itemGroup) add(ia itemAnnot) {
	g.members = append(g.members, ia.pub)
	switch ia.field {
	case "extension":
		g.exts = append(g.exts, ia)
	case "enclosure":
		g.encs = append(g.encs, ia)
	default:
		g.fields[slot(ia.field)] = ia
	}
}

// takes reports whether the group has no annotation of this field yet.
func (g *itemGroup) takes(field string) bool {
	i := slot(field)
	return i < 0 || g.fields[i].a == nil
}

// group gathers item annotations into items by their index, and returns
// the items in order: by index for integer indexes (page order among equal
// ones), then the others in page order.
//
//   - An annotation goes to the latest item with its index; when that item
//     already has this field (a duplicate index), it starts another item
//     with the same index, placed after it.
//   - An annotation without an index joins the item of the annotation
//     before it, unless that item already has this field; then it starts
//     a new item.
//   - An index that is not an integer groups like any index, but its items
//     come after the numbered ones.
func group(items []itemAnnot, w *warnings) []*itemGroup {
	var groups []*itemGroup
	latest := make(map[string]*itemGroup, len(items)/len(singleFields)+1) // sized for items of four fields, so that it seldom grows
	reportedIndex := map[string]bool{}
	var current *itemGroup
	var chunk []itemGroup // groups are allocated a chunk at a time; a full chunk is left as it is
	newGroup := func(label string) *itemGroup {
		if len(chunk) == cap(chunk) {
			chunk = make([]itemGroup, 0, len(items)/len(singleFields)+1) // one chunk for items of four fields
		}
		chunk = append(chunk, itemGroup{seq: len(groups), label: label})
		g := &chunk[len(chunk)-1]
		g.members, g.exts = g.firstMembers[:0], g.firstExt[:0]
		groups = append(groups, g)
		return g
	}
	for _, ia := range items {
		raw, has := ia.a.open.attr("index")
		raw = strings.TrimSpace(raw)
		line := ia.a.open.line
		var g *itemGroup
		switch {
		case raw == "":
			what := "has no index"
			if has {
				what = "has an empty index"
			}
			if current != nil && current.takes(ia.field) {
				g = current
				w.add(line, "<%s> %s; it joins the item of the annotation before it (item %s)", ia.a.name, what, current.describe())
			} else {
				g = newGroup("")
				w.add(line, "<%s> %s; it starts a new item", ia.a.name, what)
			}
		default:
			key := raw
			n, err := strconv.ParseInt(raw, 10, 64)
			if err == nil {
				key = strconv.FormatInt(n, 10)
			} else if !reportedIndex[raw] {
				reportedIndex[raw] = true
				w.add(line, "<%s> index %q is not an integer; its item comes after the numbered ones", ia.a.name, raw)
			}
			g = latest[key]
			if g != nil && !g.takes(ia.field) {
				w.add(line, "index %s is used twice for <%s> (first on line %d); the second starts another item with index %s",
					key, ia.a.name, g.fields[slot(ia.field)].a.open.line, key)
				g = nil
			}
			if g == nil {
				g = newGroup(key)
				g.numbered, g.number, g.written = err == nil, n, raw
				latest[key] = g
			}
		}
		g.add(ia)
		current = g
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.numbered != b.numbered {
			return a.numbered
		}
		if a.numbered && a.number != b.number {
			return a.number < b.number
		}
		return a.seq < b.seq
	})
	return groups
}

// draft is an item whose fields are known but not yet its place.
type draft struct {
	g       *itemGroup
	item    *dynamo.Item // in the Resource's items
	ownLink bool
}

// items fills the Resource's items from the groups, in order.
func (b *builder) items(groups []*itemGroup) {
	drafts := make([]draft, 0, len(groups))
	n := 0
	for _, g := range groups {
		n += len(g.exts)
	}
	b.extRoom = make([]dynamo.Extension, n)
	// The items are drafted in place, each kept one after the last: the
	// slot of an item left out is cleared and taken by the next.
	all := make([]dynamo.Item, len(groups))
	for _, g := range groups {
		it := &all[len(drafts)]
		if d, ok := b.draft(g, it); ok {
			drafts = append(drafts, d)
		} else {
			*it = dynamo.Item{}
		}
	}
	b.res.Items = all[:len(drafts):len(drafts)]
	seen := make(map[string]int, len(drafts))  // id as derived → how many items have had it
	used := make(map[string]bool, len(drafts)) // ids given out
	b.indexes = make([]string, 0, len(drafts))
	for i := range drafts {
		d := &drafts[i]
		it := d.item
		it.Index = i + 1
		if !d.ownLink {
			it.Link = b.defaultLink(it.Index)
		}
		if it.Image != nil && it.Image.Link == "" {
			it.Image.Link = it.Link
		}
		it.IDFromContent = !d.ownLink
		it.ID = b.uniqueID(d, seen, used)
		for _, m := range d.g.members {
			m.Item = it.Index
		}
		b.indexes = append(b.indexes, d.g.written)
	}
}

// uniqueID derives the item's id and, when an earlier item has it, makes
// it distinct (the schema requires unique ids) in a way that is the same on
// every poll of the page: the n-th item with an id gets derivedID(id, n).
func (b *builder) uniqueID(d *draft, seen map[string]int, used map[string]bool) string {
	it := d.item
	id := dynamo.ItemID(it.Link, d.ownLink, it.Title, it.Description)
	seen[id]++
	if n := seen[id]; used[id] {
		what := "title and description"
		if d.ownLink {
			what = "link"
		}
		b.warn.add(d.g.members[0].Line, "item %d has the same %s as an earlier item; it gets an id of its own", it.Index, what)
		for used[id] {
			id = derivedID(id, n)
		}
	}
	used[id] = true
	return id
}

// derivedID makes the n-th item sharing an id distinct, the same way on
// every poll of the page, so that ids stay unique within the resource (the
// schema requires it) and stable across versions.
func derivedID(id string, n int) string {
	sum := sha256.Sum256([]byte(id + "\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

// defaultLink is the link of an item without one: the page URL with a
// fragment naming the item.
func (b *builder) defaultLink(index int) string {
	fragment := "item-" + strconv.Itoa(index)
	if b.pageURL == nil {
		return "#" + fragment
	}
	u := *b.pageURL
	u.Fragment, u.RawFragment = fragment, ""
	return uriString(u.String())
}

// draft reads an item's fields into it, which is empty, and applies the
// title defaults; false when the item has nothing to show.
func (b *builder) draft(g *itemGroup, it *dynamo.Item) (draft, bool) {
	d := draft{g: g, item: it}
	line := g.members[0].Line
	if ia, ok := g.field("title"); ok {
		it.Title = b.plainText(ia.a.content(b.text))
		ia.pub.Value = it.Title
		if it.Title == "" {
			b.warn.add(ia.a.open.line, "<item:title> is empty")
		}
	}
	if ia, ok := g.field("link"); ok {
		var problem string
		it.Link, problem = b.link(ia.a.content(b.text))
		ia.pub.Value = it.Link
		if problem != "" {
			b.warn.add(ia.a.open.line, "<item:link> %s; the item gets a link to the page", problem)
		}
		d.ownLink = it.Link != ""
	}
	if ia, ok := g.field("description"); ok {
		it.Description, it.Text = b.description(ia.a.content(b.text))
		ia.pub.Value = it.Description
		if it.Description == "" {
			b.warn.add(ia.a.open.line, "<item:description> is empty")
		}
	}
	if !b.defaultTitle(&d, line) {
		return d, false
	}
	if ia, ok := g.field("image"); ok {
		link := ""
		if d.ownLink {
			link = it.Link
		}
		it.Image = b.image(ia.a, link, it.Title)
		if it.Image != nil {
			ia.pub.Value = it.Image.URL
		}
	}
	if len(g.exts) > 0 {
		// The item's stretch of b.extRoom, capped so that no later
		// append to it writes over the next item's.
		it.Extensions, b.extRoom = b.extRoom[:0:len(g.exts)], b.extRoom[len(g.exts):]
	}
	for _, ia := range g.exts {
		if e, dr, ok := b.extension(ia.a); ok {
			if dynamo.IsLegacyEnclosure(e) && e.Value != "" {
				// dynamo:enclosure names a file the item carries: an
				// enclosure, whose type and length the page does not say.
				it.Enclosures = append(it.Enclosures, dynamo.Enclosure{URL: e.Value})
			} else {
				it.Extensions = append(it.Extensions, e)
				b.dateFields.note(dr, &it.Extensions, len(it.Extensions)-1, ia.pub)
			}
			ia.pub.Value = e.Value
		}
	}
	if len(it.Extensions) == 0 {
		it.Extensions = nil // none kept: nil, not an empty stretch of the room
	}
	for _, ia := range g.encs {
		if e, ok := b.enclosure(ia.a); ok {
			if !slices.ContainsFunc(it.Enclosures, func(x dynamo.Enclosure) bool { return x.URL == e.URL }) {
				it.Enclosures = append(it.Enclosures, e)
			}
			ia.pub.Value = e.URL
		}
	}
	return d, true
}

// defaultTitle gives an untitled item the start of its description's text
// (docs/WRAPPER.md "Defaults"); an item with no description either is titled with its link's
// text or its link, and left out when it has no link of its own: nothing
// would identify it. It reports whether the item is kept.
func (b *builder) defaultTitle(d *draft, line int) bool {
	it := d.item
	if it.Title != "" {
		return true
	}
	if it.Text != "" {
		it.Title = dynamo.TitleFromText(it.Text)
		return true
	}
	var linkText string // the anchor text, when the link is an <a href>
	if ia, ok := d.g.field("link"); ok {
		if content := ia.a.content(b.text); d.ownLink {
			if _, anchor := firstHref(content); anchor {
				linkText = plainText(content)
			}
		}
	}
	switch {
	case d.ownLink && linkText != "":
		it.Title = dynamo.TitleFromText(linkText)
		b.warn.add(line, "item %s has neither title nor description; it is titled with its link's text", d.g.describe())
		return true
	case d.ownLink:
		it.Title = it.Link
		b.warn.add(line, "item %s has neither title nor description; it is titled with its link", d.g.describe())
		return true
	}
	b.warn.add(line, "item %s has no title, no description and no link; left out", d.g.describe())
	for _, m := range d.g.members {
		m.Item = 0
	}
	return false
}

// describe names the group in messages.
func (g *itemGroup) describe() string {
	if g.label == "" {
		return fmt.Sprintf("without index (line %d)", g.members[0].Line)
	}
	return "with index " + g.label
}
