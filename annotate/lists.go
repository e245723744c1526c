package annotate

import (
	"cmp"
	"hash/maphash"
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dynamo-feeds/dynamo/dates"
)

// record is the part of the page that makes one item: an element (a list
// item, a table row, a card) or a run of siblings that starts with the same
// kind of element each time (a heading and the paragraphs after it, a dt
// and its dd).
//
// A run cut at separators (a legacy line: a date, a link, a <br>) may
// start before its head, the node of the run's key: lead is the number
// of its nodes before it.
type record struct {
	nodes []*node
	lead  int
}

// head is the record's node that names it: its first, or for a run the
// node of the run's key (after the text of its line before it).
func (r record) head() *node { return r.nodes[r.lead] }

func (r record) start() int { return int(r.nodes[0].start) }
func (r record) end() int   { return int(r.nodes[len(r.nodes)-1].end) }

// contains reports whether n lies in the record.
func (r record) contains(n *node) bool {
	for _, m := range r.nodes {
		if isAncestor(m, n) {
			return true
		}
	}
	return false
}

// candidate is a structure that may hold the items: records that repeat,
// under one parent or under parents that repeat themselves (one list per
// year, one table body per section).
type candidate struct {
	kind string // "elements" or "runs"
	// byShape: runs of table rows cut by the rows' shapes (rowRuns),
	// whose heads the selectors tell by their places or shapes.
	byShape bool
	head    *node // the first record's first node, naming the structure
	parents int
	records []record
	strays  []*node // the parents whose records strayGroups dropped
	// strayRecs are the records' first nodes strayRecords dropped.
	strayRecs []*node
	// featured are the blocks featuredItems found beside the records,
	// whose items Suggest added to fields.items: no records of c.
	featured []*node

	// sums are what prescore reads of the records, summed as they are
	// found, while their nodes are fresh in the caches: read again
	// later, each record's first node was a wait for memory.
	sums recordSums

	// What scoring found.
	valid, invalid int // records with a link and text; records with text and no link
	avgText        float64
	score          float64
	factors        []factor
	fields         *fieldChoice // chosen for the best candidates only
	rejected       string       // why the field choice failed, if it did
	description    string       // describe's, once asked
}

// factor is one reason a candidate's score is what it is, for --explain.
type factor struct {
	name  string
	value float64
}

func (c *candidate) mul(name string, v float64) {
	c.score *= v
	if v != 1 {
		if c.factors == nil {
			c.factors = make([]factor, 0, 4) // one allocation for most: few get more
		}
		c.factors = append(c.factors, factor{name, v})
	}
}

// minRecords is the fewest items a list may have.
const minRecords = 2

// skipRecordTags are never records: they hold no item on their own.
var skipRecordTags = map[string]bool{
	"br": true, "hr": true, "img": true, "input": true, "option": true, "meta": true, "link": true,
	"script": true, "style": true, "col": true, "colgroup": true, "wbr": true, "source": true, "param": true,
	"area": true, "base": true, "title": true, "noscript": true, "template": true, "svg": true, "path": true,
	"button": true, "label": true, "select": true, "textarea": true, "iframe": true, "thead": true, "caption": true,
}

// findCandidates lists the structures that may hold the items: those
// whose records can score (recordSums.scorable). A page of table rows or
// posts has a structure of cells or links in each, tens of thousands,
// most of which cannot; they are left out as they are found, before any
// is allocated or scored.
func findCandidates(t *treeBuilder) []*candidate {
	var out []*candidate
	type groupKey struct {
		parentPath uint64
		runs       bool // a kind of two, as a bool: the key is hashed for every group of every parent
		key        uint64
	}
	// The cells of a table's rows make one list whatever classes mark
	// a row's place: a grid's first and last rows (Drupal's "row-first",
	// "row-last") were lists apart from the others. Such a row is keyed
	// as the row it would be without those classes.
	crossKeyOf := func(p *node, tag string) groupKey {
		path := p.pathKey
		if lk := p.look(); p.tag() == "tr" && slices.ContainsFunc(lk.classes, positional) && p.parent() != nil {
			kept := slices.DeleteFunc(slices.Clone(lk.classes), positional)
			path = t.paths.mix(p.parent().pathKey, t.keyOf(lk.tag, lk.id, kept))
		}
		return groupKey{path, false, hashString(tag)}
	}
	cross := map[groupKey]*candidate{}
	lone := map[groupKey][]*node{} // parents of one line (oneLine)
	var crossOrder []groupKey
	addCross := func(k groupKey, parent *node, recs []record, sums recordSums, kind string) {
		c := cross[k]
		if c == nil {
			c = &candidate{kind: kind, head: recs[0].head()}
			cross[k] = c
			crossOrder = append(crossOrder, k)
		}
		c.parents++
		c.sums.add(sums)
		if len(c.records)+len(recs) > cap(c.records) {
			// Doubled: append grows long slices by a quarter, and a
			// candidate across parents gains a record or two from
			// each of thousands (a heading in each post), so its
			// records were copied dozens of times.
			grown := make([]record, len(c.records), max(2*cap(c.records), len(c.records)+len(recs), 4))
			copy(grown, c.records)
			c.records = grown
		}
		c.records = append(c.records, recs...)
	}
	// The records of each tag among a parent's children: groups[groupOf[tag]],
	// tags in the order they come. All are kept from one parent to the
	// next, emptied, and the records copied for the candidates made of
	// them.
	groupOf := map[string]int{}
	var groups [][]record
	var rc runCounter
	var tags []string
	// arena holds the records of the candidates of one parent's children,
	// copied from groups: one allocation for many candidates, where most
	// have two or three records.
	var arena []record
	// grouped are the candidates of elements whose parent stands among
	// few siblings, for siblingGroups.
	var grouped []*candidate
	for p := range t.withRoot {
		if p.isText() || p.hidden || p.raw || len(p.children()) == 0 {
			continue
		}
		// Elements: the children of one tag.
		if len(groupOf) > 64 {
			groupOf = map[string]int{}
		}
		clear(groupOf)
		tags = tags[:0]
		for k, ch := range p.children() {
			if !ch.recordable() {
				continue
			}
			g, ok := groupOf[ch.tag()]
			if !ok {
				g = len(tags)
				groupOf[ch.tag()] = g
				tags = append(tags, ch.tag())
				if g == len(groups) {
					groups = append(groups, nil)
				}
				groups[g] = groups[g][:0]
			}
			groups[g] = append(groups[g], record{nodes: p.children()[k : k+1 : k+1]})
		}
		// Whether p stands among few siblings: its records may be one
		// of a list's groups (siblingGroups). Asked here, where p is
		// at hand.
		small := false
		if gp := p.parent(); gp != nil && len(tags) > 0 {
			small = len(gp.children()) <= maxGroupSiblings
		}
		for g, tag := range tags {
			recs := groups[g]
			sums := sumsOf(recs)
			if sums.scorable() {
				if cap(arena)-len(arena) < len(recs) {
					// Blocks double up to 1,024 records: a small page
					// needs few.
					arena = make([]record, 0, max(len(recs), min(2*cap(arena), 1024), 32))
				}
				at := len(arena)
				arena = append(arena, recs...)
				c := &candidate{kind: "elements", head: recs[0].nodes[0], parents: 1, records: arena[at:len(arena):len(arena)], sums: sums}
				out = append(out, c)
				if small {
					grouped = append(grouped, c)
				}
			}
			addCross(crossKeyOf(p, tag), p, recs, sums, "elements")
		}
		// Runs: each starts at a child of one key and takes the siblings up
		// to the next.
		lookRuns := rc.runsOf(p)
		for _, runs := range lookRuns {
			sums := sumsOf(runs)
			if sums.scorable() {
				out = append(out, &candidate{kind: "runs", head: runs[0].head(), parents: 1, records: runs, sums: sums})
			}
			addCross(groupKey{p.pathKey, true, runs[0].head().look().key}, p, runs, sums, "runs")
		}
		// Records of a few table rows each, told by the rows' shapes
		// (rowRuns), unless the looks' runs cut them alike.
		if len(tags) == 1 && tags[0] == "tr" {
			for _, runs := range rowRuns(p) {
				if slices.ContainsFunc(lookRuns, func(r []record) bool { return sameRecords(r, runs) }) {
					continue
				}
				sums := sumsOf(runs)
				if sums.scorable() {
					out = append(out, &candidate{kind: "runs", byShape: true, head: runs[0].head(), parents: 1, records: runs, sums: sums})
				}
				k := groupKey{p.pathKey, true, rowShapeKey(runs[0].head(), false)}
				addCross(k, p, runs, sums, "runs")
				cross[k].byShape = true
			}
		}
		if h := oneLine(p); h >= 0 {
			k := groupKey{p.pathKey, true, p.children()[h].look().key}
			lone[k] = append(lone[k], p)
		}
	}
	for _, k := range crossOrder {
		c := cross[k]
		if ps := lone[k]; len(ps) > 0 && c.parents >= 2 {
			// The parents of one dated line join the lines of the
			// others, in page order.
			var recs []record
			for _, p := range ps {
				if r, ok := datedLine(p); ok {
					recs = append(recs, r)
				}
			}
			c.parents += len(recs)
			c.sums.add(sumsOf(recs))
			c.records = append(c.records, recs...)
			slices.SortFunc(c.records, func(a, b record) int { return a.start() - b.start() })
		}
		if c.parents >= 2 && c.sums.scorable() {
			out = append(out, c)
		}
	}
	return siblingGroups(out, grouped)
}

// maxSiblingGroups is the most sibling groups siblingGroups joins: a
// list's pinned, featured and other records, not a page's sections.
const maxSiblingGroups = 3

// maxGroupSiblings bounds the children (text included) of the element
// holding sibling groups: a few groups and a heading or a pager beside
// them. It keeps siblingGroups' look at siblings from growing with a
// page's thousands of rows.
const maxGroupSiblings = 64

// siblingGroups adds to the candidates one list made of the records of
// sibling groups of the same markup: a forum's sticky threads in one
// <div>, the others in the next; a news page's featured stories, then
// the rest. The groups' parents are adjacent siblings of one tag that
// share a stable class but differ in their classes (parents of the same
// look and path are joined across parents already), and their records
// are of one tag and share a stable class. Parents that are many (more
// than maxSiblingGroups of their kind) are records themselves, not
// groups. groups are the candidates of one parent among few siblings
// (findCandidates tells them as it makes them, a long page's thousands
// of row candidates being none). Each group alone stays a candidate:
// scoring chooses.
func siblingGroups(cands, groups []*candidate) []*candidate {
	byParent := make(map[*node][]*candidate, len(groups))
	for _, c := range groups {
		p := c.head.parent()
		byParent[p] = append(byParent[p], c)
	}
	// next returns the group of the parent after c's that continues it.
	next := func(c *candidate) *candidate {
		p := c.head.parent()
		s := nextElement(p)
		if s == nil || s.tag() != p.tag() || s.look().key == p.look().key || !shareClass(s, p) || kinSiblings(p) > maxSiblingGroups {
			return nil
		}
		for _, d := range byParent[s] {
			if d.head.tag() == c.head.tag() && shareClass(d.head, c.head) {
				return d
			}
		}
		return nil
	}
	continues := map[*candidate]bool{}
	for _, c := range groups {
		if continues[c] {
			continue
		}
		chain := []*candidate{c}
		for d := next(c); d != nil && len(chain) <= maxSiblingGroups; d = next(d) {
			continues[d] = true
			chain = append(chain, d)
		}
		if len(chain) < 2 || len(chain) > maxSiblingGroups {
			continue
		}
		merged := &candidate{kind: "elements", head: chain[0].head, parents: len(chain)}
		for _, g := range chain {
			merged.records = append(merged.records, g.records...)
			merged.sums.add(g.sums)
		}
		cands = append(cands, merged)
	}
	return cands
}

// groupsStep writes the XPath step that selects the parents of a
// candidate's records by the tag and the stable classes (as written)
// they all share: "" when they have one parent, or none in common.
func groupsStep(c *candidate) string {
	first := c.head.parent()
	var classes []string
	for _, cl := range strings.Fields(first.look().class) {
		st := stableClasses(cl)
		if len(st) != 1 {
			continue
		}
		shared := true
		for _, r := range c.records {
			p := r.nodes[0].parent()
			shared = shared && p.tag() == first.tag() && hasClasses(p, st)
		}
		if shared {
			classes = append(classes, cl)
		}
	}
	if len(classes) == 0 || c.parents < 2 {
		return ""
	}
	step := xpathName(first.tag())
	for _, cl := range classes {
		step += "[contains(concat(' ', normalize-space(@class), ' '), " + xpathString(" "+cl+" ") + ")]"
	}
	return step
}

// kinSiblings counts n and its siblings of its tag that share a stable
// class with it: more than a few are records themselves (a shop's
// products), whose parts are no list's groups.
func kinSiblings(n *node) int {
	k := 0
	for _, s := range n.parent().children() {
		if s == n || !s.isText() && s.tag() == n.tag() && shareClass(s, n) {
			k++
		}
	}
	return k
}

// nextElement returns the element after n among its siblings, past blank
// text only; nil when something else or nothing follows.
func nextElement(n *node) *node {
	p := n.parent()
	if p == nil {
		return nil
	}
	kids := p.children()
	i := 0
	for i < len(kids) && kids[i] != n {
		i++
	}
	for i++; i < len(kids); i++ {
		switch k := kids[i]; {
		case !k.isText():
			return k
		case k.textBytes > 0:
			return nil
		}
	}
	return nil
}

// shareClass reports whether a and b have a stable class in common.
func shareClass(a, b *node) bool {
	for _, x := range a.look().classes {
		for _, y := range b.look().classes {
			if x == y {
				return true
			}
		}
	}
	return false
}

// positional reports whether a class marks an element's place among
// its siblings ("row-first", "views-row-last", "row-odd"), as the words
// stableClasses drops do alone.
func positional(class string) bool {
	switch class[strings.LastIndexAny(class, "-_")+1:] {
	case "first", "last", "odd", "even":
		return true
	}
	return false
}

// oneLine returns the place among p's children of its only element, when
// that is a link with text before it and nothing after it, or -1: what
// datedLine reads, kept for the end of findCandidates as cheaply as
// asked of every parent.
func oneLine(p *node) int {
	kids := p.children()
	head := -1
	for i, c := range kids {
		switch {
		case c.isText():
		case head >= 0 || c.tag() != "a" || !c.usableLink() || !c.recordable():
			return -1
		default:
			head = i
		}
	}
	if head < 1 || countSignificant(kids[head+1:]) > 0 || countSignificant(kids[:head]) == 0 {
		return -1
	}
	return head
}

// datedLine returns the one line of a parent holding a date and a link
// and nothing else ("2024-06-27 &mdash; <a>#199999: Plan</a>"), as a
// record of the lines cut by <br> (runsOf) that the parent would give
// among others: an archive's month with one post beside months of
// several. Such parents count only with those whose lines runsOf found
// under the same path (findCandidates), and were left out, so that a
// month's heading and its lines were taken for the items.
func datedLine(p *node) (record, bool) {
	head := oneLine(p)
	if head < 0 {
		return record{}, false
	}
	kids := p.children()
	var before strings.Builder
	for _, c := range kids[:head] {
		before.WriteString(c.tables().text[c.start:c.end])
	}
	if !holdsDate(before.String()) {
		return record{}, false
	}
	from := 0
	for from < head && kids[from].textBytes == 0 {
		from++
	}
	return record{nodes: kids[from : head+1 : head+1], lead: head - from}, true
}

func hashString(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// runCounter holds runsOf's counts, kept from one parent to the next.
type runCounter struct {
	count map[uint64]int
	seen  map[uint64]bool
}

// runsOf returns, for each key that starts runs among p's children, the
// runs: from each child of that key to the next one. The last run takes
// as many siblings as runs usually have, so that what follows the list
// (a "more" link, an archive paragraph) stays out of it.
func (rc *runCounter) runsOf(p *node) [][]record {
	var out [][]record
	elements := 0
	for _, ch := range p.children() {
		if ch.recordable() {
			elements++
		}
	}
	if elements < minRecords {
		return nil // no key can start two runs
	}
	if len(rc.count) > 64 || rc.count == nil { // emptying a large map costs its size
		rc.count, rc.seen = map[uint64]int{}, map[uint64]bool{}
	}
	clear(rc.count)
	clear(rc.seen)
	count, seen := rc.count, rc.seen
	pre, preKnown := false, false // whether p is preformatted, once asked
	for _, ch := range p.children() {
		if ch.recordable() {
			count[ch.look().key]++
		}
	}
	for _, ch := range p.children() {
		k := ch.look().key
		if !ch.recordable() || count[k] < minRecords || seen[k] {
			continue
		}
		seen[k] = true
		var heads []int
		for i, c := range p.children() {
			if !c.isText() && c.look().key == k {
				heads = append(heads, i)
			}
		}
		// Runs only say something when something stands between heads,
		// in at least half the gaps: heads with nothing between them
		// but one odd sibling (a line of links after the last of a
		// directory's entries) are elements, not runs, and the run
		// holding that sibling would make it part of an item.
		gaps := 0
		for j := 0; j+1 < len(heads); j++ {
			for i := heads[j] + 1; i < heads[j+1]; i++ {
				if c := p.children()[i]; !c.isText() || c.textBytes > 0 {
					gaps++
					break
				}
			}
		}
		if gaps == 0 || 2*gaps < len(heads)-1 {
			continue
		}
		kids := p.children()
		if !preKnown {
			pre, preKnown = preformatted(p), true
		}
		if pre {
			heads = firstOnLines(kids, heads)
			if len(heads) < minRecords {
				continue
			}
		}
		if !pre {
			if runs := runsEndingAt(kids, heads); runs != nil {
				out = append(out, runs)
				continue
			}
		}
		starts := lineStarts(pre, kids, heads)
		var runs []record
		var sizes []int
		for j, h := range heads {
			from, stop := h, len(kids)
			if starts != nil {
				from = starts[j]
			}
			if j+1 < len(heads) {
				stop = heads[j+1]
				if starts != nil {
					stop = starts[j+1]
				}
			}
			nodes := kids[from:stop]
			if j+1 < len(heads) {
				sizes = append(sizes, countSignificant(nodes))
			} else {
				// At least up to its head.
				nodes = trimRun(nodes, max(median(sizes), countSignificant(nodes[:h-from])+1))
			}
			lead := h - from
			for lead > 0 && nodes[0].isText() && nodes[0].textBytes == 0 {
				nodes, lead = nodes[1:], lead-1
			}
			runs = append(runs, record{nodes: trimTrailingSpace(nodes), lead: lead})
		}
		out = append(out, runs)
	}
	return out
}

// runsEndingAt returns the runs that end at each head, when the heads are
// separators after their items: empty elements (a Joomla blog's
// "<span class="article_seperator">&nbsp;</span>" after each item's
// tables), nothing but blank text after the last, and before the first
// the siblings of a run's shape, up to the previous head, that would be
// no run's when the runs started at the heads (the first item was lost,
// or, cut at the items' first nodes, every item began at another's
// second node). nil otherwise.
func runsEndingAt(kids []*node, heads []int) []record {
	for _, h := range heads {
		if kids[h].textBytes > 0 || kids[h].links > 0 {
			return nil
		}
	}
	last := heads[len(heads)-1]
	if countSignificant(kids[last+1:]) > 0 {
		return nil
	}
	// The first item: the siblings before the first head, back as far as
	// the second run's, each of the same look as its own.
	body := kids[heads[0]+1 : heads[1]]
	from, k := heads[0], len(body)-1
	for ; k >= 0; k-- {
		b := body[k]
		if b.isText() && b.textBytes == 0 {
			continue
		}
		for from--; from >= 0 && kids[from].isText() && kids[from].textBytes == 0; from-- {
		}
		if from < 0 || kids[from].isText() != b.isText() || !b.isText() && kids[from].look().key != b.look().key {
			return nil
		}
	}
	runs := make([]record, 0, len(heads))
	for j, h := range heads {
		if j > 0 {
			from = heads[j-1] + 1
		}
		nodes := kids[from : h+1]
		lead := h - from
		for lead > 0 && nodes[0].isText() && nodes[0].textBytes == 0 {
			nodes, lead = nodes[1:], lead-1
		}
		runs = append(runs, record{nodes: nodes, lead: lead})
	}
	return runs
}

// lineStarts returns where each run starts when the runs are lines cut
// by separators: when a <br> (or <hr>), or in preformatted text a
// newline, stands between every two heads and some line holds something
// before its head (a legacy page's "04.03.2014 - <a>Title</a><br>", a
// "what's new" <pre> of "2024-03-28  <a>Title</a>" lines), a run starts
// after the last separator before its head, so that what stands before a
// link on its line is its item's (run from head to head, each item took
// the next line's date). A text node that a newline cuts is whole in one
// run (see lineStartIn). The first run takes as many nodes before its
// head as the others usually have, back to a separator or the parent's
// start (past a lead-in sentence). nil when the runs start at their
// heads.
func lineStarts(pre bool, kids []*node, heads []int) []int {
	starts := make([]int, len(heads))
	var leads []int
	before := false
	// lineStart returns where the line holding kids[i] starts when a
	// separator stands at i: i+1 after it, i when the line starts inside
	// the text kids[i]; -1 when none stands at i.
	lineStart := func(i int) int {
		switch {
		case separates(kids[i]):
			return i + 1
		case pre && kids[i].isText():
			return lineStartIn(kids[i], i)
		}
		return -1
	}
	for j := 1; j < len(heads); j++ {
		starts[j] = -1
		for i := heads[j] - 1; i > heads[j-1]; i-- {
			if at := lineStart(i); at >= 0 {
				starts[j] = at
				break
			}
		}
		if starts[j] < 0 {
			return nil // not lines: two heads on one line
		}
		k := countSignificant(kids[starts[j]:heads[j]])
		before = before || k > 0
		leads = append(leads, k)
	}
	if !before {
		return nil
	}
	want := median(leads)
	starts[0] = heads[0]
	for i, k := heads[0]-1, 0; i >= 0 && k < want; i-- {
		at := lineStart(i)
		if at > i {
			break
		}
		if !kids[i].isText() || kids[i].textBytes > 0 {
			k++
		}
		starts[0] = i
		if at == i {
			break
		}
	}
	return starts
}

// separates reports whether n ends a line among inline siblings.
func separates(n *node) bool {
	return !n.isText() && (n.tag() == "br" || n.tag() == "hr")
}

// firstOnLines returns the heads that are the first on their line of
// preformatted text: a line of a "what's new" <pre> holding two links
// ("2024-03-28  <a>Title</a> [<a>zip</a>]") is one item, not two.
func firstOnLines(kids []*node, heads []int) []int {
	var out []int
	for j, h := range heads {
		if j == 0 || lineBreakIn(kids[heads[j-1]+1:h]) {
			out = append(out, h)
		}
	}
	return out
}

// firstOnLineXPath is the XPath predicate that keeps, of the siblings
// step selects, those first on their line of preformatted text, as
// firstOnLines does: the nearest of its siblings before it that is
// either one of them or a line's end (a <br>, an <hr>, a text holding a
// newline) is not one of them.
func firstOnLineXPath(step string) string {
	return "[not(preceding-sibling::node()[self::" + step + " or self::br or self::hr or self::text()[contains(., '\n')]][1][self::" + step + "])]"
}

// lineBreakIn reports whether a line of preformatted text ends among
// the siblings: at a <br> or <hr>, or at a newline in a text.
func lineBreakIn(sibs []*node) bool {
	for _, n := range sibs {
		if separates(n) || n.isText() && strings.IndexByte(n.tables().text[n.start:n.end], '\n') >= 0 {
			return true
		}
	}
	return false
}

// preformatted reports whether n's text keeps its white space, so that a
// newline in it ends a line as a <br> does elsewhere: n is in a <pre> or
// in one of the elements read the same way.
func preformatted(n *node) bool {
	for ; n != nil; n = n.parent() {
		switch n.tag() {
		case "pre", "listing", "xmp", "plaintext":
			return true
		}
	}
	return false
}

// lineStartIn returns where the line after a newline in the text t (the
// sibling at i) starts: i+1, after t, when t has no newline (-1) or
// nothing but spaces after its last; i when the next line starts inside
// t ("\n2024-03-28  " before a link), so that t belongs to the line after
// it, unless what t holds of the line before it, up to its first
// newline, is a date: that line's date after its link ("  2024-03-28\n1. "),
// which stays with it.
func lineStartIn(t *node, i int) int {
	text := t.tables().text[t.start:t.end]
	first, last := strings.IndexByte(text, '\n'), strings.LastIndexByte(text, '\n')
	if first < 0 {
		return -1
	}
	if strings.TrimSpace(text[last+1:]) == "" || holdsDate(text[:first]) {
		return i + 1
	}
	return i
}

// holdsDate reports whether a run of up to six of the first twelve of
// s's words is read as a date with a year, once the marks around it are
// trimmed as dateIn trims them ("- 2024-03-28", "(12 March 2005)"): a
// date after a link stands close to it, and a long text costs no more.
func holdsDate(s string) bool {
	if !strings.ContainsAny(s, "0123456789") {
		return false
	}
	words := strings.Fields(html.UnescapeString(s))
	words = words[:min(len(words), 12)]
	for i := range words {
		for j := min(len(words), i+6); j > i; j-- {
			w := strings.TrimRightFunc(strings.TrimLeftFunc(strings.Join(words[i:j], " "), dateLead), dateTrail)
			if mayBeDate(w) && dates.MayParse(w) {
				if _, ok := dates.Parse(w, time.UTC); ok {
					return true
				}
			}
		}
	}
	return false
}

// countSignificant counts elements and non-blank text nodes.
func countSignificant(nodes []*node) int {
	n := 0
	for _, c := range nodes {
		if !c.isText() || c.textBytes > 0 {
			n++
		}
	}
	return n
}

// trimRun keeps the first n significant nodes (and the blank text between
// them).
func trimRun(nodes []*node, n int) []*node {
	if n <= 0 {
		return nodes
	}
	k := 0
	for i, c := range nodes {
		if !c.isText() || c.textBytes > 0 {
			k++
			if k == n {
				return nodes[:i+1]
			}
		}
	}
	return nodes
}

func trimTrailingSpace(nodes []*node) []*node {
	for len(nodes) > 1 && nodes[len(nodes)-1].isText() && nodes[len(nodes)-1].textBytes == 0 {
		nodes = nodes[:len(nodes)-1]
	}
	return nodes
}

func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	return s[len(s)/2]
}

// recordStats sums the aggregates of a record's nodes.
type recordStats struct {
	text, linkText, links, headings, images int
}

func statsOf(r record) recordStats {
	var s recordStats
	for _, n := range r.nodes {
		s.text += int(n.textBytes)
		s.linkText += int(n.linkTextBytes)
		s.links += int(n.links)
		s.headings += int(n.headings)
		s.images += int(n.images)
	}
	return s
}

// recordSums are what prescore reads of a candidate's records: how many
// have a link and text (valid), how many have text and no link, and over
// the valid ones their text (each counted up to 600 bytes), their links,
// and how many hold a heading.
type recordSums struct {
	valid, invalid, text, links, headed int
	// itemLook is the look of the first valid record's first node (0:
	// none yet), and looks tells whether another valid record starts
	// with another: strayRecords has nothing to do when none does,
	// which it then learns without reading every record again.
	itemLook int32
	looks    bool
}

// sumsOf sums what prescore reads of records.
func sumsOf(recs []record) recordSums {
	var m recordSums
	for _, r := range recs {
		s := statsOf(r)
		switch {
		case s.text == 0 && s.links == 0, s.links == 0 && headerRow(r):
			// spacer rows and empty cells say nothing, nor does a
			// table's header row: a list in a table has one on top
		case s.links > 0 && s.text >= 3:
			if id := r.head().lookID; m.itemLook == 0 {
				m.itemLook = id
			} else if id != m.itemLook {
				m.looks = true
			}
			m.valid++
			m.text += min(s.text, 600)
			m.links += s.links
			if s.headings > 0 {
				m.headed++
			}
		default:
			m.invalid++
		}
	}
	return m
}

// headerRow reports whether a record is a table's header row: a tr
// whose cells are all header cells (th).
func headerRow(r record) bool {
	if len(r.nodes) != 1 || r.nodes[0].tag() != "tr" {
		return false
	}
	cells := 0
	for _, ch := range r.nodes[0].children() {
		switch {
		case ch.isText():
		case ch.tag() == "th":
			cells++
		default:
			return false
		}
	}
	return cells > 0
}

// scorable reports whether records summing to m can score above 0: a
// list needs minRecords records with a link and text (prescore).
func (m recordSums) scorable() bool { return m.valid >= minRecords }

func (m *recordSums) add(o recordSums) {
	m.looks = m.looks || o.looks || m.itemLook != 0 && o.itemLook != 0 && m.itemLook != o.itemLook
	if m.itemLook == 0 {
		m.itemLook = o.itemLook
	}
	m.valid += o.valid
	m.invalid += o.invalid
	m.text += o.text
	m.links += o.links
	m.headed += o.headed
}

// prescore scores a candidate from the subtree aggregates alone, cheaply,
// to choose the few that are looked at closely. A list of items has many
// records, each with a link and some text; records that hold no link are
// what a list of items is not (a table's header row, a column of cells);
// lists in navigation, headers, footers and sidebars are menus.
//
// It reads the sums findCandidates kept (sumsOf its records). The text
// is summed as an int: a sum of whole numbers, as float64 summed them
// before, is exact in either far beyond any page's length.
func (c *candidate) prescore() {
	c.valid, c.invalid = c.sums.valid, c.sums.invalid
	text, links, headed := float64(c.sums.text), c.sums.links, c.sums.headed
	if !c.sums.scorable() {
		c.score = 0
		return
	}
	n := float64(c.valid)
	c.avgText = text / n
	c.score = math.Pow(n, 0.9) * math.Sqrt(c.avgText)
	c.factors = nil
	c.mul("records without a link", math.Pow(n/float64(c.valid+c.invalid), 2))
	container := c.head.parent()
	if container.inNav {
		c.mul("in navigation, a header, a footer or a sidebar", 0.3)
	}
	if container.inMain || c.head.inMain {
		c.mul("in the main content", 1.4)
	}
	if float64(headed) >= 0.6*n {
		c.mul("records with headings", 1.3)
	}
	if c.avgText < 16 {
		c.mul("very short records (a menu?)", 0.5)
	}
	if perRecord := float64(links) / n; perRecord > 12 {
		c.mul("many links per record (a container of lists?)", 0.5)
	}
}

// Past manyRecords records that may be items, the statistics that score
// a candidate from its records are read on a sample of them: detailScore's
// shares (of the records linking to pages of their own, holding several
// items, of the most common shape), and the usual record and parent
// (most common shapes, median links and text) that strayGroups compares
// each parent with, which judges the parents of the sample first. The
// sample is sampleBlocks runs of consecutive records, the first run at
// the list's start, the last at its end, the others spread evenly
// between: a share or a median read on thousands of records spread over
// the whole list decides what the whole list's decides, and runs, rather
// than records far apart, keep together what only neighbours show (the
// records of one parent, of one item, linking to one page). What the
// counts mean in the whole list is kept: shares are of the records read,
// the distinct targets are estimated for the whole list (count), and
// what a sample cannot tell is counted on every record: how many records
// each parent holds (partKinds; strayGroups asks whether one parent
// holds more than every other), findCandidates' sums (the records
// counted, which --explain reports and prescore scores, and whether any
// record starts with another look, which one odd record decides), and
// each record's fields.
//
// Below manyRecords every record is read, as before: no page of the
// corpus (testdata/corpus) comes near it. On the tests' generated pages
// compared, up to 10 MiB, the suggestion is as it was, and --explain but
// for the scores of a few candidates that lost
// (docs/benchmarks/annotate.md; TestSampledAsWhole compares the
// annotated pages).
//
// manyRecords is a variable only so that a test can read every record
// (export_test.go).
var manyRecords = 4096

// sampleBlocks is the number of runs of a sample.
const sampleBlocks = 32

// spreadSample says which of n records, visited in order, a statistic
// reads: all of them up to manyRecords, else the runs of the sample.
type spreadSample struct {
	n     int
	block int // the first run that does not end before the record last asked of
}

// sampled reports whether only some of the records are read.
func (s *spreadSample) sampled() bool { return s.n > manyRecords }

// has reports whether the k-th record is read; asked with k increasing.
// Each run holds manyRecords/sampleBlocks records, run b from
// b*(n-run)/(sampleBlocks-1) on: the runs do not overlap, as n >
// sampleBlocks*run.
func (s *spreadSample) has(k int) bool {
	if !s.sampled() {
		return true
	}
	run := manyRecords / sampleBlocks
	for ; s.block < sampleBlocks; s.block++ {
		start := s.block * (s.n - run) / (sampleBlocks - 1)
		if k < start+run {
			return k >= start
		}
	}
	return false
}

// detailScore refines the score of one of the best candidates with what
// takes a walk of its records: whether they link to different pages,
// whether their structure agrees, and whether one record holds several
// items.
func (c *candidate) detailScore(dc *detailCounter) {
	if c.valid < minRecords {
		return
	}
	var d detailCounts
	found := false
	for _, s := range dc.seen {
		if sameRecords(s.records, c.records) {
			d, found = s.counts, true
			break
		}
	}
	if !found {
		d = dc.count(c.records, c.valid)
		dc.seen = append(dc.seen, detailed{c.records, d})
	}
	n, read := float64(c.valid), float64(d.read)
	if share := d.hrefs / n; share < 0.9 {
		c.mul("records linking to the same pages", math.Max(share, 0.2))
	}
	if m := float64(d.multi) / read; m > 0.3 {
		c.mul("records holding several items", 1-0.6*m)
	}
	if agree := float64(d.top) / read; agree < 0.5 {
		c.mul("records of different shapes", 0.5+agree)
	}
	if d.parts > 1 {
		c.mul("records that are the parts of one item in each parent", 1/float64(d.parts))
	}
	if c.kind == "runs" && periodHeads(c.records) {
		c.mul("records under headings naming a month or a year (groups of items)", 0.5)
	}
}

// periodHeads reports whether most of the first records (of runs) start
// at a heading that names a month or a year and nothing else ("June
// 2024"): an archive's months, each over its items, which had the items'
// headings' bonus and won over the items' lines when the months hold one
// or two.
func periodHeads(records []record) bool {
	n, period := 0, 0
	for _, r := range records[:min(len(records), 40)] {
		h := r.head()
		if !isHeading(h.tag()) && h.tag() != "b" && h.tag() != "strong" {
			continue
		}
		n++
		if namesPeriod(textWithin(h, 40)) {
			period++
		}
	}
	return n >= minRecords && period*10 >= n*6
}

// textWithin returns the text of n's subtree, unescaped, or "" when it
// has more than max bytes.
func textWithin(n *node, max int) string {
	if int(n.textBytes) > max {
		return ""
	}
	var b strings.Builder
	var add func(m *node)
	add = func(m *node) {
		for _, c := range m.children() {
			if c.isText() {
				b.WriteString(c.tables().text[c.start:c.end])
			} else if !c.hidden {
				add(c)
			}
		}
	}
	add(n)
	return html.UnescapeString(b.String())
}

// namesPeriod reports whether s is a year ("2024") or a month and a year
// ("June 2024", "Juni 2024", "Jun. 2024"), in a language the dates
// package reads.
func namesPeriod(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return false
	}
	year, err := strconv.Atoi(f[len(f)-1])
	if err != nil || year < 1900 || year > 2100 {
		return false
	}
	if len(f) == 1 {
		return true
	}
	_, ok := dates.Parse("1 "+f[0]+" "+f[1], time.UTC)
	return ok && strings.ContainsFunc(f[0], unicode.IsLetter)
}

// detailCounts are what detailScore counts in a candidate's records with
// a link and text, of which it read read (all, or the spread sample of
// them): how many pages they link to (in the whole list: counted, or
// estimated from the sample), and of those read, how many hold several
// items and how many have the most common shape; and, for a list across
// parents whose records are the parts of one item in each
// (partKinds.parts), how many parts.
type detailCounts struct {
	read              int
	hrefs             float64
	multi, top, parts int
}

// detailed is a list of records counted by detailScore: two candidates
// may hold the same records (one list, found in its parent and across
// parents once a stray one is left out), counted once.
type detailed struct {
	records []record
	counts  detailCounts
}

// detailCounter counts detailScore's figures for the best candidates of
// a page: the lists of records counted so far, and, kept from one list
// to the next, the targets of one list's links and the table that finds
// how many of them differ.
type detailCounter struct {
	seen  []detailed
	hrefs []string
	table []hrefSlot
	seed  maphash.Seed
}

// hrefSlot is a place in distinct's table: a target's hash, and 1 + its
// index in hrefs (0: empty).
type hrefSlot struct {
	hash  uint64
	at    int32
	again bool // the target came again
}

// distinct returns how many distinct targets hrefs holds, and how many of
// them it holds once. It is a set of
// their hashes with open addressing, in a table reused from one list to
// the next, the targets of one hash compared: a map of a long list's
// targets (sized to its tens of thousands of records, filled once and
// read for its length) was about half of the counting.
func (dc *detailCounter) distinct() (int, int) {
	size := 1
	for size < 2*len(dc.hrefs) {
		size <<= 1
	}
	if cap(dc.table) < size {
		dc.table = make([]hrefSlot, size)
	} else {
		dc.table = dc.table[:size]
		clear(dc.table)
	}
	mask, n, again := uint64(size-1), 0, 0
	for i, s := range dc.hrefs {
		h := maphash.String(dc.seed, s)
		for j := h & mask; ; j = (j + 1) & mask {
			slot := &dc.table[j]
			if slot.at == 0 {
				*slot = hrefSlot{hash: h, at: int32(i + 1)}
				n++
				break
			}
			if slot.hash == h && dc.hrefs[slot.at-1] == s {
				if !slot.again {
					slot.again = true
					again++
				}
				break
			}
		}
	}
	return n, n - again
}

// sameRecords reports whether two lists of records are the same nodes.
func sameRecords(a, b []record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i].nodes) != len(b[i].nodes) {
			return false
		}
		for j := range a[i].nodes {
			if a[i].nodes[j] != b[i].nodes[j] {
				return false
			}
		}
	}
	return true
}

// count counts detailScore's figures over records, of which valid have
// a link and text: over all of those, or, when they are many, over the
// spread sample of them (spreadSample), the figures then standing for
// the whole list (detailCounts.read). The parts are counted over every
// parent, as partKinds counts the records each holds (the runs cut
// parents in two), the links found only of the first parents, the only
// ones it names.
func (dc *detailCounter) count(records []record, valid int) detailCounts {
	if dc.seed == (maphash.Seed{}) {
		dc.seed = maphash.MakeSeed()
	}
	hrefs := dc.hrefs[:0]
	read, multi := 0, 0
	var kinds partKinds
	shapes := map[string]*int{}
	var shape []byte
	sample := spreadSample{n: valid}
	at := -1 // the record's place among those with a link and text
	for _, r := range records {
		s := statsOf(r)
		if s.links == 0 || s.text < 3 {
			continue
		}
		if at++; !sample.has(at) {
			first := ""
			if kinds.keepsHref(r.nodes[0].parent()) {
				if first, _ = longLinks(r); first == "" {
					first = firstLink(r)
				}
			}
			kinds.add(r.nodes[0].parent(), first)
			continue
		}
		read++
		first, long := longLinks(r)
		if long > 0 {
			hrefs = append(hrefs, first)
		} else if first = firstLink(r); first != "" {
			hrefs = append(hrefs, first)
		}
		kinds.add(r.nodes[0].parent(), first)
		if long >= 3 && !oneLinkedHeading(r) {
			multi++
		}
		shape = appendShape(shape[:0], r)
		k := shapes[string(shape)]
		if k == nil {
			k = new(int)
			shapes[string(shape)] = k
		}
		*k++
	}
	top := 0
	for _, k := range shapes {
		top = max(top, *k)
	}
	dc.hrefs = hrefs
	distinct, once := dc.distinct()
	d := detailCounts{read: read, hrefs: float64(distinct), multi: multi, top: top, parts: kinds.parts()}
	if sample.sampled() {
		// The targets a sample holds more than once are the list's few
		// that many records share (an author's page, a category), or
		// those of the records of one item, which stand together in a
		// run: each counts once in the whole list too. Each one it
		// holds once stands for valid/read records, each with a target
		// of its own: a list of 100,000 posts, each with a link to its
		// comments and one to the news category, has 50,001 targets,
		// as its sample of 4,096 records 2,048 once and one 2,048
		// times. Targets that come twice far apart, which no sample
		// finds, are counted as many.
		d.hrefs = float64(distinct-once) + float64(once)*float64(valid)/float64(read)
	}
	return d
}

// strayGroups drops from a candidate made across parents the records of
// the parents that look like none of the others: a one-line "sorted by:
// [thread] [subject] [author]" list above an archive, of the same tag
// under the same path as the archive's lists, is not part of it; nor are
// that line's links part of a list of the archive's title links, one in
// each item.
//
// A parent's records are kept when one of them is kindred to the
// records' most common shape (the elements in it, its nodes and their
// children, counted by tag, are mostly the same) and holds about as many
// links as most (from half to twice the median: a line of three links
// to the archive's other orders is not an item with one title link, though
// both hold a few elements and links), and the parent itself
// has mostly the tags, each counted once, of the parents' most common
// shape: lists of a month's posts differ in how many they hold, not in
// what their items are made of. The parents dropped must hold fewer
// records with a link and text than those kept. Those left are summed and
// prescored again, as findCandidates and prescore would have had the
// stray ones not been there.
//
// Only candidates across parents: one list split into several (by month,
// by section) is merged on purpose, and each part holds items of the
// list's shape; a record of one parent's list that looks unlike the
// others is the fields' business.
func (c *candidate) strayGroups() {
	if c.parents < 2 || c.valid < minRecords {
		return
	}
	// Each record's shape and each parent's, by number: a long list has
	// one or two shapes in tens of thousands of records, written once
	// into a buffer each and looked up there. What is read of each
	// record is kept beside its shape, read once: the passes below read
	// it again for every record, and each read of a record's nodes, far
	// apart in a long page's tree, waited for memory.
	//
	// The usual record (its most common shape, its median links and
	// text) and the usual parent are read on the spread sample of the
	// records that may be items (spreadSample), as detailScore reads
	// the share of the most common shape; the other records' shapes are read only when a parent
	// is judged below, as far as needed. What each parent holds (its
	// records, their text) is counted over all of them: the rules below
	// ask whether one parent holds more records than every other, which
	// no sample tells.
	var sh shapeTable
	recs := make([]strayRecord, len(c.records))
	sampleSize := min(c.valid, manyRecords)
	links := make([]int, 0, sampleSize)
	texts := make([]int, 0, sampleSize)
	var records, parents shapeCounter
	sample := spreadSample{n: c.valid}
	at := -1 // the record's place among those that may be items
	for i, r := range c.records {
		rec := &recs[i]
		rec.parent, rec.shape = r.nodes[0].parent(), noItem
		s := statsOf(r)
		if s.links == 0 || s.text < 3 {
			continue // as detailScore, only records that may be items
		}
		rec.links, rec.text, rec.shape = int32(s.links), int32(s.text), shapeUnread
		if at++; !sample.has(at) {
			continue
		}
		links = append(links, s.links)
		texts = append(texts, s.text)
		rec.shape, rec.sampled = sh.of(r), true
		records.add(rec.shape)
		if i == 0 || rec.parent != recs[i-1].parent {
			parents.add(sh.of(record{nodes: []*node{rec.parent}}))
		}
	}
	wantRecord, wantParent := shapeBag(sh.text(records.mostCommon()), false), shapeBag(sh.text(parents.mostCommon()), true)
	wantLinks := median(links)
	wantText := -1 // median(texts), taken when first asked
	// The parents' records: how many each holds, their text, and the
	// most text one of them holds.
	type group struct {
		from, to, valid, text, most int
		sampled                     bool // it holds a record of the sample
	}
	groups := make([]group, 0, c.parents)
	for i := 0; i < len(c.records); {
		// A parent's records are consecutive: findCandidates adds each
		// parent's at once.
		g := group{from: i, to: i}
		for ; g.to < len(recs) && recs[g.to].parent == recs[i].parent; g.to++ {
			if recs[g.to].shape != noItem {
				text := int(recs[g.to].text)
				g.sampled = g.sampled || recs[g.to].sampled
				g.valid++
				g.text += text
				g.most = max(g.most, text)
			}
		}
		groups = append(groups, g)
		i = g.to
	}
	// How many parents hold each number of records, and all their text.
	sizes := map[int]int{}
	valid, allText := 0, 0
	for _, g := range groups {
		if g.valid > 0 {
			sizes[g.valid]++
			valid += g.valid
			allText += g.text
		}
	}
	// Whether a shape is kindred to the common one, kept: a long list
	// has one or two shapes in thousands of parents.
	recordKin, parentKin := map[int32]bool{}, map[int32]bool{}
	// stray reports whether a parent's records are left out.
	stray := func(g group) bool {
		if g.valid == 0 {
			return false
		}
		alike := false
		for j := g.from; j < g.to && !alike; j++ {
			rec := &recs[j]
			if n := int(rec.links); rec.shape != noItem && n <= 2*wantLinks && 2*n >= wantLinks {
				if rec.shape == shapeUnread {
					rec.shape = sh.of(c.records[j])
				}
				alike = sh.kin(recordKin, rec.shape, false, wantRecord)
			}
		}
		parent := recs[g.from].parent
		alike = alike && sh.kin(parentKin, sh.of(record{nodes: []*node{parent}}), true, wantParent)
		if alike {
			// Parents that each hold as many records (a title link in
			// each item) and one that holds more, with less text in
			// each (a line of short links to the archive's other
			// orders, of the items' tags): that one is no item.
			if len(sizes) == 2 && sizes[g.valid] == 1 {
				size, others, text := 0, valid-g.valid, allText-g.text
				for k := range sizes {
					if k != g.valid {
						size = k
					}
				}
				if others >= 2*minRecords && g.valid > size && 2*g.text*others < text*g.valid {
					alike = false
				}
			}
		}
		// A parent holding several records, fewer than the others,
		// each with less than half the text most records have: a menu
		// of short links ("Home", "Documents") in the cell beside a
		// legacy page's list, of the list's tags. (A parent of one
		// record with a short title is an item of a list of one a
		// parent: a card, a day's post.)
		if alike && g.valid >= minRecords && 2*g.valid < valid {
			if wantText < 0 {
				wantText = median(texts)
			}
			alike = 2*g.most >= wantText
		}
		return !alike
	}
	if sample.sampled() {
		// The parents holding records of the sample are judged first,
		// the first and the last among them: when none is left out,
		// none is, and the others' shapes are not read. A parent left
		// out among them (a line of links above the list, a menu
		// beside it, strays that recur along it) has every parent
		// judged, as below the sample's size. What this misses is a
		// stray parent, or a few, between the runs of the sample.
		found := false
		for _, g := range groups {
			if g.sampled && stray(g) {
				found = true
				break
			}
		}
		if !found {
			return
		}
	}
	gone := make([]bool, len(groups))
	var strays []*node
	kept, dropped, kinds := 0, 0, 0
	for gi, g := range groups {
		if !stray(g) {
			kept += g.valid
			kinds++
		} else {
			dropped += g.valid
			strays = append(strays, recs[g.from].parent)
			gone[gi] = true
		}
	}
	if dropped == 0 || dropped >= kept || kept < minRecords {
		return
	}
	// The records kept, made only now: most candidates keep them all.
	keep := make([]record, 0, len(c.records))
	for gi, g := range groups {
		if !gone[gi] {
			keep = append(keep, c.records[g.from:g.to]...)
		}
	}
	c.records, c.parents, c.sums, c.strays = keep, kinds, sumsOf(keep), strays
	c.prescore()
}

// strayRecord is what strayGroups reads of a record: its first node's
// parent, the number of its shape (noItem: not a record that may be an
// item; shapeUnread: one whose shape is not read yet) and, for one that
// may, its links and text.
type strayRecord struct {
	parent      *node
	shape       int32
	links, text int32 // as the nodes count them
	sampled     bool  // of the spread sample: it says what the usual record is
}

// strayRecord.shape's values that are no shape's number.
const (
	noItem      = -1
	shapeUnread = -2
)

// shapeTable numbers the shapes (appendShape's text) of records: each
// distinct shape is kept once.
type shapeTable struct {
	ids   map[string]int32
	texts []string
	buf   []byte
}

// of returns the number of the record's shape.
func (t *shapeTable) of(r record) int32 {
	t.buf = appendShape(t.buf[:0], r)
	if id, ok := t.ids[string(t.buf)]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[string]int32{}
	}
	id := int32(len(t.texts))
	s := string(t.buf)
	t.ids[s] = id
	t.texts = append(t.texts, s)
	return id
}

// text returns a shape's text ("" for -1, no shape).
func (t *shapeTable) text(id int32) string {
	if id < 0 {
		return ""
	}
	return t.texts[id]
}

// kin is kindred(shapeBag(shape, once), want), its answers kept in seen.
func (t *shapeTable) kin(seen map[int32]bool, id int32, once bool, want map[string]int) bool {
	k, ok := seen[id]
	if !ok {
		k = kindred(shapeBag(t.texts[id], once), want)
		seen[id] = k
	}
	return k
}

// shapeCounter finds the most common of the shapes added (the first of
// those as common), by number.
type shapeCounter struct {
	count  []int
	top    int
	common int32
}

// mostCommon is the most common shape's number, or -1 when none was
// added.
func (sc *shapeCounter) mostCommon() int32 {
	if sc.top == 0 {
		return -1
	}
	return sc.common
}

func (sc *shapeCounter) add(id int32) {
	for int(id) >= len(sc.count) {
		sc.count = append(sc.count, 0)
	}
	sc.count[id]++
	if k := sc.count[id]; k > sc.top {
		sc.top, sc.common = k, id
	}
}

// shapeBag counts the tags of a shape (appendShape's text): each node's
// own, and its children's; each at most once when once is set.
func shapeBag(shape string, once bool) map[string]int {
	bag := map[string]int{}
	for _, f := range strings.FieldsFunc(shape, func(r rune) bool { return r == ' ' || r == ')' }) {
		if tag, children, ok := strings.Cut(f, "("); ok {
			bag["/"+tag]++ // a node of the record: apart from its children's tags
			f = children
		}
		if f != "" {
			bag[f]++
		}
	}
	if once {
		for k := range bag {
			bag[k] = 1
		}
	}
	return bag
}

// kindred reports whether two records' tag counts are more than half the
// same (the tags both have, counted at the fewer, over the tags either
// has, counted at the more): an item with an extra <em> or without its
// <img> is kindred to the others ("li(a em i)" to "li(a i)": 3 of 4), a
// label and three links are not kindred to a link and an author
// ("li(b a a a)" to "li(a i)": 2 of 7).
func kindred(a, b map[string]int) bool {
	shared, all := 0, 0
	for k, x := range a {
		y := b[k]
		shared += min(x, y)
		all += max(x, y)
	}
	for k, y := range b {
		if _, ok := a[k]; !ok {
			all += y
		}
	}
	return 2*shared > all
}

// repeatsLinksOf penalizes the candidates whose links all appear in a
// better candidate with more text per record: a sidebar of "recent posts"
// repeats the main list's titles.
//
// The targets of a candidate's links are gathered only when it is
// compared with another: most candidates share a stretch of the page with
// every candidate having more text (they are one list seen at two levels,
// or parts of its records), and those are never compared. A small
// candidate (a menu's few links) compared with a long list is looked for
// in the list's links rather than the list's links made a set: on a page
// of 70,000 rows the sets of the long lists, made for a menu of two
// links, were 7 % of the suggestion.
func repeatsLinksOf(cands []*candidate) {
	links := make([][]string, len(cands))
	linksOf := func(i int) []string {
		if links[i] == nil {
			links[i] = make([]string, 0, len(cands[i].records))
			for _, r := range cands[i].records {
				if h := firstLink(r); h != "" {
					links[i] = append(links[i], h)
				}
			}
		}
		return links[i]
	}
	sets := make([]map[string]bool, len(cands))
	setOf := func(i int) map[string]bool {
		if sets[i] == nil {
			sets[i] = make(map[string]bool, len(cands[i].records))
			for _, h := range linksOf(i) {
				sets[i][h] = true
			}
		}
		return sets[i]
	}
	for i, b := range cands {
		for j, a := range cands {
			if i == j || a.avgText <= b.avgText || overlapping(a, b) || len(setOf(i)) == 0 {
				continue
			}
			var shared int
			if len(sets[i]) <= smallLinkSet {
				// Once a's first links are found, looking in them is
				// cheaper than reading the table again.
				if links[j] != nil || mayLinkTo(a, sets[i]) {
					shared = sharedLinks(sets[i], linksOf(j))
				}
			} else {
				for h := range sets[i] {
					if setOf(j)[h] {
						shared++
					}
				}
			}
			if 2*shared >= len(sets[i]) {
				b.mul("links that repeat another list's (a sidebar of recent items?)", 0.5)
				break
			}
		}
	}
}

// mayLinkTo reports whether any link in the stretch of the page that
// c's records cover may have one of the targets in set: false only when
// none has, and then none of its records' first links is one. It reads
// the tree's table of hrefs, where each is kept as an offset in the page
// (those copied, decoded from entities or an encoding, have none and are
// all compared): the first links of a list of 70,000 records, found by a
// walk of each for a menu's two targets that the list does not link to,
// were a tenth of a suggestion.
func mayLinkTo(c *candidate, set map[string]bool) bool {
	t := c.head.tables()
	from, to := int32(c.records[0].start()), int32(c.records[len(c.records)-1].end())
	left := int(t.numHrefs)
	for _, block := range t.hrefs {
		for _, r := range block[:min(len(block), left)] {
			var h string
			switch {
			case r.n < 0:
				h = t.copies[r.at]
			case r.at < from || r.at >= to:
				continue
			default:
				h = t.text[r.at : r.at+r.n]
			}
			if set[strings.TrimSpace(h)] {
				return true
			}
		}
		left -= len(block)
	}
	return false
}

// smallLinkSet is the most targets a candidate may have for repeatsLinksOf
// to look for them in another's links rather than in a set of those.
const smallLinkSet = 16

// sharedLinks counts the targets of set (at most smallLinkSet) that are
// among links.
func sharedLinks(set map[string]bool, links []string) int {
	var found [smallLinkSet]string
	n := 0
	for _, h := range links {
		if set[h] && !slices.Contains(found[:n], h) {
			found[n] = h
			if n++; n == len(set) {
				break
			}
		}
	}
	return n
}

// overlapping reports whether two candidates share a stretch of the page:
// then they are one list seen at two levels.
func overlapping(a, b *candidate) bool {
	as, ae := a.records[0].start(), a.records[len(a.records)-1].end()
	bs, be := b.records[0].start(), b.records[len(b.records)-1].end()
	return as < be && bs < ae
}

// longLinks returns the first target of the record's links whose text is
// long enough to be a title, and how many distinct targets such links
// have, counted up to 3 (what detailScore asks: one, or several items).
func longLinks(r record) (string, int) {
	var found [3]string
	n := 0
	walkUntil(r, func(m *node) (bool, bool) {
		if m.tag() == "a" && m.href() != "" && m.textBytes >= 12 && !strings.HasPrefix(strings.TrimSpace(m.href()), "#") {
			if h := strings.TrimSpace(m.href()); !slices.Contains(found[:n], h) {
				found[n] = h
				n++
			}
			return false, n == len(found)
		}
		// A subtree without a link, or with less text than a long
		// link's, holds none (the counts leave out hidden nodes, which
		// the walk passes over too).
		return m.links > 0 && m.textBytes >= 12, false
	})
	return found[0], n
}

// oneLinkedHeading reports whether the record's first heading holds a
// long link (12 bytes of text or more, as longLinks counts) and no other
// heading does. A record headed so (a release's name over its notes and
// its assets) is one item, however many long links follow the heading:
// a record holding several items holds several headings that link, or
// one over them that does not (a month's heading over its posts, a
// wiki's section heading and its "edit" link).
func oneLinkedHeading(r record) bool {
	linked, first := 0, false
	walkUntil(r, func(n *node) (bool, bool) {
		if isHeading(n.tag()) {
			if n.linkTextBytes >= 12 {
				linked++
			}
			if !first && linked == 0 {
				return false, true // the first heading holds no link
			}
			first = true
			return false, linked > 1
		}
		return n.headings > 0, false
	})
	return first && linked == 1
}

// firstLink returns the target of the record's first link to a page.
func firstLink(r record) string {
	found := ""
	walkUntil(r, func(n *node) (bool, bool) {
		if n.tag() == "a" && n.usableLink() {
			found = strings.TrimSpace(n.href())
			return false, true
		}
		return n.links > 0, false // a subtree without a link holds none
	})
	return found
}

// appendShape appends a coarse description of a record's structure to
// b: its elements' tags to a small depth.
func appendShape(b []byte, r record) []byte {
	for _, n := range r.nodes {
		if n.isText() {
			continue
		}
		b = append(b, n.tag()...)
		b = append(b, '(')
		for _, ch := range n.children() {
			if !ch.isText() && !ch.hidden {
				b = append(b, ch.tag()...)
				b = append(b, ' ')
			}
		}
		b = append(b, ')')
	}
	return b
}

// walk visits the nodes of a record in document order; visit returns
// false to skip a node's subtree.
func walk(r record, visit func(*node) bool) {
	walkUntil(r, func(n *node) (bool, bool) { return visit(n), false })
}

// walkUntil is walk for a search: visit also says when to stop, so that
// the nodes after the one sought are not read. It keeps its place with
// an explicit stack, as pages may nest deeply: a stack of the lists of
// siblings being walked, each with the next to visit, so that an element
// of 80,000 children (a whole list, looked at for a few) does not have
// them all pushed first.
func walkUntil(r record, visit func(*node) (descend, stop bool)) {
	type level struct {
		nodes []*node
		next  int
	}
	stack := make([]level, 1, 16)
	stack[0] = level{nodes: r.nodes}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == len(top.nodes) {
			stack = stack[:len(stack)-1]
			continue
		}
		n := top.nodes[top.next]
		top.next++
		if n.hidden {
			continue
		}
		descend, stop := visit(n)
		if stop {
			return
		}
		if descend {
			if kids := n.children(); len(kids) > 0 {
				stack = append(stack, level{nodes: kids})
			}
		}
	}
}

// describe names a candidate as a CSS-like path, for --explain: the
// records' tag and the classes they all share, under their ancestors.
func (c *candidate) describe() string {
	if c.description == "" {
		c.description = string(c.appendDescription(make([]byte, 0, 96))) // most: one allocation
	}
	return c.description
}

// appendDescription appends describe's text to b. others writes it into
// one buffer to learn whether it was seen before: a page may have tens of
// thousands of candidates described alike (a footer in each post).
func (c *candidate) appendDescription(b []byte) []byte {
	// Up to three ancestors, written outermost first.
	var up [3]*node
	k := 0
	n := c.head.parent()
	for ; n != nil && n.tag() != "#root" && k < len(up); k++ {
		up[k] = n
		n = n.parent()
	}
	if n != nil && n.tag() != "#root" {
		b = append(b, "… > "...)
	}
	for i := k - 1; i >= 0; i-- {
		b = appendSelectorStep(b, up[i])
		b = append(b, " > "...)
	}
	if c.head.isText() {
		b = append(b, "text"...)
	} else {
		b = append(b, c.head.tag()...)
	}
	if classes := c.head.look().classes; len(classes) > 0 {
		// How often each class is among the records' classes: in each
		// record, once, to be common to them all. One pass over the
		// records, which may be tens of thousands; a record whose first
		// node looks as the head does (same) has each class as often as
		// the head has it.
		var counts [8]int
		common := counts[:0]
		if len(classes) > len(counts) {
			common = make([]int, 0, len(classes))
		}
		common = common[:len(classes)]
		same := 0
		for _, r := range c.records {
			if r.head().lookID == c.head.lookID {
				same++
				continue
			}
			for i, cl := range classes {
				for _, x := range r.head().look().classes {
					if x == cl {
						common[i]++
					}
				}
			}
		}
		for i, cl := range classes {
			for _, x := range classes {
				if x == cl {
					common[i] += same
				}
			}
			if common[i] == len(c.records) {
				b = append(append(b, '.'), cl...)
			}
		}
	}
	if c.kind == "runs" {
		lines := false
		for _, r := range c.records {
			if lines = r.lead > 0; lines {
				break
			}
		}
		last := c.records[0].lead == len(c.records[0].nodes)-1
		switch {
		case lines && last:
			b = append(b, " and the siblings before it, back to the previous"...)
		case lines && preformatted(c.head):
			b = append(b, " and the rest of its line (from newline to newline)"...)
		case lines:
			b = append(b, " and the rest of its line (from <br> to <br>)"...)
		default:
			b = append(b, " and the siblings up to the next"...)
		}
	}
	switch {
	case c.parents > 1 && c.parents == len(c.records):
		b = append(strconv.AppendInt(append(b, " (one in each of "...), int64(c.parents), 10), " elements)"...)
	case c.parents > 1:
		b = append(strconv.AppendInt(append(b, " (in "...), int64(c.parents), 10), " lists)"...)
	}
	return b
}

// appendSelectorStep appends one element as a CSS step: its tag, id and
// stable classes.
func appendSelectorStep(b []byte, n *node) []byte {
	b = append(b, n.tag()...)
	if n.look().id != "" && !strings.ContainsAny(n.look().id, " \t") {
		b = append(append(b, '#'), n.look().id...)
	}
	for _, c := range n.look().classes {
		b = append(append(b, '.'), c...)
	}
	return b
}

// strayRecords drops from a candidate of elements the records that are
// not items though they share the items' tag and parent: a top bar of
// links (`<div class="top">`) among the `<div class="site">` entries of a
// directory, directly under <body>, or a footer row after a table's
// rows. Taken as an item, such a sibling before the list numbered every
// item after it one too far (issue 19).
//
// A record is left out when the records' classes (their stable ones)
// are mostly one set and its own are not that set, and it does not look
// like the records of that set either: its shape (its elements and
// their children, by tag) is not kindred to their most common shape, it
// holds less than half or more than twice their usual number of links,
// or less than half their usual text (a line of two short links beside
// entries of a title and a sentence). An item that differs only in its classes (a "promoted" entry of
// the items' shape) stays, and so do the records of a list whose
// classes differ from record to record, which say nothing. Those left
// out must be fewer than those kept; the rest is summed and prescored
// again, as for strayGroups, and the selectors leave them out too.
func (c *candidate) strayRecords() {
	// Then the odd records at the ends that classes cannot tell
	// (oddrows.go), whatever this leaves out or not.
	defer c.oddRecords()
	if c.kind != "elements" || len(c.records) <= minRecords || c.valid < minRecords || !c.sums.looks {
		return // the records that may be items all have one look
	}
	// The records' class sets, counted by look (a table by look
	// number: a list across parents may hold a quarter of a million
	// cells) and then by set, in one pass over the records.
	looks := c.records[0].nodes[0].tables().looks
	byLook := make([]int32, 2*len(looks)) // each look's records, then those that may be items
	items := byLook[len(looks):]
	first, same := c.records[0].nodes[0].lookID, true
	for _, r := range c.records {
		n := r.nodes[0]
		byLook[n.lookID]++
		if n.links > 0 && n.textBytes >= 3 {
			items[n.lookID]++
		}
		same = same && n.lookID == first
	}
	if same {
		return // most lists: one look in every record
	}
	byLook = byLook[:len(looks)]
	bySet := map[string]int{}
	for id, k := range byLook {
		if k > 0 {
			bySet[strings.Join(looks[id].classes, " ")] += int(k)
		}
	}
	common, top := "", 0
	for s, k := range bySet {
		if k > top || (k == top && s < common) {
			common, top = s, k
		}
	}
	if 2*top <= len(c.records) {
		return // no set of classes most records have
	}
	// The looks of the common set, and the records of another set that
	// may be items: most often none (a header row or a date cell of a
	// class of its own has no link).
	usual := make([]bool, len(looks))
	odd := 0
	for id, k := range byLook {
		if k > 0 {
			usual[id] = strings.Join(looks[id].classes, " ") == common
			if !usual[id] {
				odd += int(items[id])
			}
		}
	}
	if odd == 0 {
		return
	}
	// The usual record: the most common shape and the median links and
	// text of the first records of the common set that may be items.
	var sh shapeTable
	var shapes shapeCounter
	var links, texts []int
	for _, r := range c.records {
		if len(links) == sampleRecords {
			break
		}
		if n := r.nodes[0]; usual[n.lookID] && n.links > 0 && n.textBytes >= 3 {
			links = append(links, int(n.links))
			texts = append(texts, int(n.textBytes))
			shapes.add(sh.of(r))
		}
	}
	if len(links) < minRecords {
		return
	}
	want, wantLinks, wantText := shapeBag(sh.text(shapes.mostCommon()), false), median(links), median(texts)
	kin := map[int32]bool{}
	var dated *datedTitles // read only when a record would be left out
	var strays []*node
	for _, r := range c.records {
		n := r.nodes[0]
		if usual[n.lookID] || n.links == 0 || n.textBytes < 3 {
			continue // of the common set, or no item (a header row: the fields leave it out)
		}
		l, text := int(n.links), int(n.textBytes)
		if l <= 2*wantLinks && 2*l >= wantLinks && 2*text >= wantText && sh.kin(kin, sh.of(r), false, want) {
			continue // of the items' shape and size: an item, whatever its classes
		}
		if dated == nil {
			dated = datedTitlesOf(c.records, func(r record) bool { return usual[r.nodes[0].lookID] })
		}
		if dated.has(r) {
			continue // the items' title link and date: an item without a picture or a text
		}
		strays = append(strays, n)
	}
	if len(strays) == 0 || 2*len(strays) >= len(c.records) {
		return
	}
	c.leaveOut(strays)
}

// datedTitles is where most of a list's records hold their title link
// and their date: the places (relative keys) of their first link with 12
// bytes of text or more and of their first text that holds a date. A
// record with both at those places is an item, though it lacks a part
// the others have (a picture, an excerpt, a category) and so differs
// from them in shape, size or classes.
type datedTitles struct{ link, date string }

// datedTitlesOf reads the places on the first records that usual
// reports: each must be held by more than half of them, else both are
// "" and has reports no record.
func datedTitlesOf(recs []record, usual func(record) bool) *datedTitles {
	links, dates := map[string]int{}, map[string]int{}
	n := 0
	for _, r := range recs {
		if n == sampleRecords {
			break
		}
		if !usual(r) {
			continue
		}
		n++
		l, d := titleAndDate(r)
		links[l]++
		dates[d]++
	}
	most := func(m map[string]int) string {
		for k, v := range m {
			if k != "" && 2*v > n {
				return k
			}
		}
		return ""
	}
	return &datedTitles{link: most(links), date: most(dates)}
}

// has reports whether r holds a link with text (of any length: a short
// title is a title) and a date at the list's places.
func (d *datedTitles) has(r record) bool {
	if d.link == "" || d.date == "" {
		return false
	}
	link, date := false, false
	walkUntil(r, func(m *node) (bool, bool) {
		switch {
		case !link && m.tag() == "a" && m.href() != "" && m.textBytes > 0:
			link = relKey(r, m) == d.link
		case !date && m.isText() && m.textBytes > 0 && holdsDate(m.tables().text[m.start:m.end]):
			date = relKey(r, m) == d.date
		}
		return !m.isText(), link && date
	})
	return link && date
}

// titleAndDate returns the relative keys of the record's first link
// with 12 bytes of text or more and of its first text that holds a date
// ("" for none).
func titleAndDate(r record) (link, date string) {
	walkUntil(r, func(m *node) (bool, bool) {
		switch {
		case link == "" && m.tag() == "a" && m.href() != "" && m.textBytes >= 12:
			link = relKey(r, m)
		case date == "" && m.isText() && m.textBytes > 0 && holdsDate(m.tables().text[m.start:m.end]):
			date = relKey(r, m)
		}
		return !m.isText(), link != "" && date != ""
	})
	return link, date
}

// leaveOut drops the records whose first nodes are strays (in the
// records' order), adds them to strayRecs, and sums and prescores the
// rest again. The caller checks that they are fewer than those kept.
func (c *candidate) leaveOut(strays []*node) {
	keep := make([]record, 0, len(c.records)-len(strays))
	parents := 0
	k := 0
	for _, r := range c.records {
		if k < len(strays) && r.nodes[0] == strays[k] {
			k++
			continue
		}
		if len(keep) == 0 || r.nodes[0].parent() != keep[len(keep)-1].nodes[0].parent() {
			parents++
		}
		keep = append(keep, r)
	}
	all := append(c.strayRecs[:len(c.strayRecs):len(c.strayRecs)], strays...)
	slices.SortFunc(all, func(a, b *node) int { return cmp.Compare(a.start, b.start) })
	c.records, c.parents, c.sums, c.strayRecs = keep, parents, sumsOf(keep), all
	c.head = keep[0].nodes[0]
	c.prescore()
}
