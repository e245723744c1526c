package annotate

import (
	"bytes"
	"html"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/dates"
	"github.com/dynamo-feeds/dynamo/values"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// fieldChoice is what each item of a list gets: its title, link,
// description and date, found in every record at the same place
// (the same path from the record's top), so that the choice holds for
// the whole list and can be written as selectors.
type fieldChoice struct {
	items                            []itemChoice
	titleKey, linkKey, descKey, date string // the places chosen, as relative paths
	dropped                          int    // records left out: no title
	unlinked                         int    // records left out: no link where most have one
	sampled                          bool   // only the first records were looked at
	// datesUnread are the items whose dates were not read, as those found
	// before them will not fit in Options.MaxBytes (skipUnfitDates).
	datesUnread int
}

// itemChoice is one item's fields, as nodes of the page.
type itemChoice struct {
	rec     record
	title   *node // the element whose content is the title
	titleAt *node // the element at the title's place, title being the deepest one holding its text
	link    *node // the <a> whose start tag is the link
	desc    *node // an element whose content, or a text node that, is the description
	// dateStart and dateEnd delimit the date in the text, dateAt, in
	// which it was found; equal when none.
	dateStart, dateEnd int
	dateAt             *node

	titleText string
}

// chooser chooses the fields of a candidate's records.
type chooser struct {
	p   *page
	loc *time.Location
	// dates keeps isDate's answers: records repeat their dates and the
	// words around them.
	dates map[string]bool
	// at is the place find gave last, and its buffers; scratch holds a
	// record's candidates past the records voted on, which are picked
	// from at once. Each is used by one record and one field at a time.
	at      place
	levels  [2][]*node
	scratch []scored
	// dateIn's buffers.
	words [][2]int
	marks []runeMark
	src   []int32
	// maxBytes is Options.MaxBytes: when positive, the dates of a whole
	// list are read only until they are known to be left out
	// (skipUnfitDates).
	maxBytes int
	// annotated says the page has annotations already, whose records
	// itemSpans may leave alone: skipUnfitDates is not tried then.
	annotated bool
	// guard is the page's, made once for skipUnfitDates and the
	// annotations (pageGuard).
	guard *guard
}

// pageGuard returns the guard of the page, made on the first call: a
// dozen milliseconds on a 10 MiB page, which both skipUnfitDates and
// the annotations need.
func (ch *chooser) pageGuard() *guard {
	if ch.guard == nil {
		ch.guard = newGuard(ch.p.text)
	}
	return ch.guard
}

// scored is a node that may be a field of a record, with its place in the
// record and how well it fits.
type scored struct {
	n     *node
	key   string
	score float64
	text  string
	// for dates: the range found in the text
	start, end int
}

// choose picks the fields of every record of c. Each field is first
// chosen in each record alone; the place most records agree on is then
// used in every record that has something there, so that one odd record
// does not get another field as its title.
//
// limit, when positive, bounds the records looked at: enough to compare
// candidates on a long page; the one chosen is then looked at whole.
func (ch *chooser) choose(c *candidate, limit int) *fieldChoice {
	fc := &fieldChoice{sampled: limit > 0 && len(c.records) > limit}
	// Sized once: grown by append, a long list's were copied a dozen
	// times.
	size := len(c.records)
	if fc.sampled {
		size = limit
	}
	recs := make([]record, 0, size)
	for i, r := range c.records {
		if limit > 0 && i == limit {
			break
		}
		if statsOf(r).text > 0 {
			recs = append(recs, r)
		}
	}
	// Each place is voted on the first records, looking everywhere in
	// them; the other records are then only looked at there.
	n := min(len(recs), voteSample)
	titles := make([][]scored, n)
	for i := 0; i < n; i++ {
		titles[i] = ch.titleCandidates(nil, recs[i], nil)
	}
	fc.titleKey = voteTitle(titles)
	titleAt := parsePlace(fc.titleKey)
	fc.items = make([]itemChoice, 0, len(recs))
	linksOf := make([][]scored, 0, len(recs))
	for i, r := range recs {
		cands := ch.scratch
		if i < n {
			cands = titles[i]
		} else {
			cands = ch.titleCandidates(cands[:0], r, ch.find(r, titleAt))
			ch.scratch = cands
		}
		title := pick(cands, fc.titleKey)
		if title == nil {
			fc.dropped++
			continue
		}
		fc.items = append(fc.items, itemChoice{rec: r, title: narrowTitle(title.n), titleAt: title.n, titleText: title.text})
		if len(fc.items) <= voteSample {
			linksOf = append(linksOf, ch.linkCandidates(nil, r, title.n, nil))
		} else {
			linksOf = append(linksOf, nil)
		}
	}
	if len(fc.items) == 0 {
		return fc
	}
	// When most records link somewhere, one that does not (a "dates for
	// your diary" box, a heading row) is not an item.
	linked := 0
	for _, it := range fc.items {
		if statsOf(it.rec).links > 0 {
			linked++
		}
	}
	if linked*10 >= len(fc.items)*6 && linked < len(fc.items) {
		kept, keptLinks := fc.items[:0], linksOf[:0]
		for i, it := range fc.items {
			if statsOf(it.rec).links > 0 {
				kept, keptLinks = append(kept, it), append(keptLinks, linksOf[i])
			} else {
				fc.unlinked++
			}
		}
		fc.items, linksOf = kept, keptLinks
	}
	// Links, descriptions and dates, voted the same way over the records
	// kept.
	n = min(len(fc.items), voteSample)
	fc.linkKey = vote(n, func(i int) []scored { return linksOf[i] })
	linkAt := parsePlace(fc.linkKey)
	descsOf := make([][]scored, n)
	datesOf := make([][]scored, n)
	for i := range fc.items {
		it := &fc.items[i]
		cands := linksOf[i]
		if i >= n {
			cands = ch.linkCandidates(ch.scratch[:0], it.rec, it.title, ch.find(it.rec, linkAt))
			ch.scratch = cands
		}
		if l := pick(cands, fc.linkKey); l != nil {
			it.link = l.n
		}
		if i < n {
			descsOf[i] = ch.descCandidates(nil, it, nil)
			datesOf[i] = ch.dateCandidates(nil, it.rec, it.title, nil)
		}
	}
	fc.descKey = voteMajority(n, func(i int) []scored { return descsOf[i] }, 0.4)
	fc.date = voteMajority(n, func(i int) []scored { return datesOf[i] }, 0.5)
	descAt, dateAt := parsePlace(fc.descKey), parsePlace(fc.date)
	// Every description first, then every date: whether the dates can
	// fit is known only once the descriptions are.
	for i := range fc.items {
		it := &fc.items[i]
		if fc.descKey != "" {
			at := ch.find(it.rec, descAt)
			var descs []scored
			switch {
			case i < n:
				descs = descsOf[i]
			case len(at.nodes) > 1:
				// With one node at the place or none, what would be
				// picked is what atPlace gives below: every candidate
				// descCandidates finds there is that node, which atPlace
				// takes too (it has text, neither holds nor lies in the
				// title, nor holds the link). Its text need not be read.
				descs = ch.descCandidates(ch.scratch[:0], it, at)
				ch.scratch = descs
			}
			if d := pick(descs, fc.descKey); d != nil {
				it.desc = d.n
			} else {
				// The place chosen holds the description in every
				// record that has something there, prose or not: so the
				// annotations and the selectors made of them agree.
				it.desc = atPlace(at, it)
			}
		}
	}
	var unfit *dateBound
	if limit == 0 && ch.maxBytes > 0 {
		unfit = ch.unfitDates(fc, dateAt)
	}
	for i := range fc.items {
		it := &fc.items[i]
		if i >= n && unfit != nil && unfit.over() && !unfit.inDesc[i] {
			if m := ch.dateGuess(it, dateAt); m != nil {
				it.dateStart, it.dateEnd, it.dateAt = int(m.start), int(m.end), m
			}
			fc.datesUnread++
			continue
		}
		var dates []scored
		switch {
		case i < n:
			dates = datesOf[i]
		case fc.date != "":
			dates = ch.dateCandidates(ch.scratch[:0], it.rec, it.title, ch.find(it.rec, dateAt))
			ch.scratch = dates
		}
		d := pick(dates, fc.date)
		if d != nil && fc.date != "" {
			it.dateStart, it.dateEnd, it.dateAt = d.start, d.end, d.n
			if unfit != nil {
				unfit.addDate(i, it)
			}
		}
		if unfit != nil && !unfit.inDesc[i] && (ch.dateGuess(it, dateAt) != nil) != (d != nil) {
			unfit.misguessed = true
		}
	}
	return fc
}

// skipUnfitDates says whether choose stops reading a whole list's
// dates once those found are known to be left out of the annotated page
// (unfitDates); TestDateSkip turns it off, to compare with reading every
// date.
var skipUnfitDates = true

// dateBound is a lower bound of the size fit reckons for the annotated
// page written compactly, with every date in it: the page, and the
// comments of the titles, links, descriptions and of the dates read so far
// that itemSpans will insert, each asked as itemSpans asks it. The
// channel's comments are not counted. Once the bound is over the limit,
// fit leaves out every date, whatever the dates not yet read (they only
// add comments), and writes the rest compactly; and as it reckons what is
// left without the dates, the descriptions it leaves out or keeps are the
// same.
type dateBound struct {
	size, limit int
	g           *guard
	// index is each item's index, as itemSpans numbers them; 0 for an
	// item it leaves out.
	index []int
	// inDesc says of each item that a text at the date's place lies in
	// its description: whether the description is kept depends on its
	// date (descriptionEmpty leaves the date out of it), which is read.
	inDesc []bool
	// dateBytes is what a date's comments add with index 1, written
	// compactly; scale is 2 on a UTF-16 page.
	dateBytes, scale int
	// misguessed says that of an item whose date was read, dateGuess
	// said otherwise (a text with a digit and no date, "v1.2"): the
	// notes would count the dates not read wrongly, and every date is
	// read.
	misguessed bool
}

// over reports whether the page with the dates read so far is known not
// to fit (every date will be left out), and the dates not read may be
// counted by dateGuess.
func (b *dateBound) over() bool { return b.size > b.limit && !b.misguessed }

// addDate counts the date just read of item i.
func (b *dateBound) addDate(i int, it *itemChoice) {
	if k := b.index[i]; k > 0 && b.g.spanSafe(it.dateStart, it.dateEnd) {
		b.size += b.scale * (b.dateBytes + digits(k) - 1)
	}
}

// unfitDates returns the bound of the page with the list's titles, links
// and descriptions, to which choose adds the dates it reads, or nil when
// no date may be skipped: the page has annotations (itemSpans would leave
// some records alone), there is no date, or the first items' dates lie
// in their descriptions. A description that a date
// may lie in is not counted (whether it is kept depends on the date).
func (ch *chooser) unfitDates(fc *fieldChoice, dateAt *placeKey) *dateBound {
	if !skipUnfitDates || ch.annotated || fc.date == "" {
		return nil
	}
	// A page that would fit with every item's title, link and
	// description and half its dates, written compactly, has its dates
	// read: at most the last half could be skipped, which saves less
	// than the bound costs (font-tables: 2,346 dates of 37,339 skipped,
	// 5 % more CPU). The sizes are each item's with the last index.
	each, date := 0, compactBytes("item:extension", dateAttrs)+digits(len(fc.items))-1
	for _, f := range []struct{ key, name string }{{fc.titleKey, "item:title"}, {fc.linkKey, "item:link"}, {fc.descKey, "item:description"}} {
		if f.key != "" {
			each += compactBytes(f.name, "") + digits(len(fc.items)) - 1
		}
	}
	scale := 1
	if ch.p.utf16 {
		scale = 2 // two bytes a character: comments are ASCII
	}
	if len(ch.p.raw)+scale*(each*len(fc.items)+date*len(fc.items)/2) <= ch.maxBytes {
		return nil
	}
	// A list whose first items hold their dates in their descriptions
	// (podcast-dl: "<dd>18 July 2005 · …</dd>") has them all read: the
	// bound would cost a pass over the items for nothing.
	held, first := 0, min(len(fc.items), voteSample)
	for i := range first {
		if ch.dateInDesc(&fc.items[i], dateAt) {
			held++
		}
	}
	if 2*held > first {
		return nil
	}
	b := &dateBound{size: len(ch.p.raw), limit: ch.maxBytes, g: ch.pageGuard(),
		index: make([]int, len(fc.items)), inDesc: make([]bool, len(fc.items)), scale: scale}
	titleBytes, linkBytes := compactBytes("item:title", ""), compactBytes("item:link", "")
	descBytes := compactBytes("item:description", "")
	b.dateBytes = compactBytes("item:extension", dateAttrs)
	g, k := b.g, 0
	for i := range fc.items {
		it := fc.items[i] // a copy: itemSpans' edits are its own
		if keepSafeFields(&it, g) != titleKept {
			continue
		}
		k++
		b.index[i] = k
		// Each comment that opens an annotation writes the index; the
		// byte counts have one digit of it.
		added, extra := titleBytes, digits(k)-1
		if it.link != nil {
			added += linkBytes + extra
		}
		// A description its date may lie in is not counted: whether it
		// is kept depends on where its date ends.
		b.inDesc[i] = ch.dateInDesc(&fc.items[i], dateAt)
		if it.desc != nil && !b.inDesc[i] {
			added += descBytes + extra
		}
		b.size += b.scale * (added + extra)
	}
	return b
}

// dateInDesc reports whether a text at the date's place that may hold a
// date lies in the item's description.
func (ch *chooser) dateInDesc(it *itemChoice, dateAt *placeKey) bool {
	if it.desc == nil {
		return false
	}
	s, e := int(it.desc.start), int(it.desc.end)
	if !it.desc.isText() {
		s, e = it.desc.inner()
	}
	for _, m := range ch.find(it.rec, dateAt).nodes {
		if int(m.start) < e && int(m.end) > s && ch.mayHoldDate(m) {
			return true
		}
	}
	return false
}

// compactBytes is what an annotation's comments add to a page, written
// compactly, with the index 1.
func compactBytes(name, attrs string) int {
	return len(compactComment(openComment(name, "1", attrs))) + len(compactComment(closeComment(name)))
}

// digits is how many decimal digits k has.
func digits(k int) int {
	n := 1
	for ; k >= 10; k /= 10 {
		n++
	}
	return n
}

// dateGuess returns, for an item whose date is not read, the first text
// at the date's place with a digit in it, or nil: the notes count it as
// its date (the annotated page leaves every date out, and its notes say
// how many dates it left out: docs/ANNOTATE.md). choose reads every date
// once it guesses otherwise than a date read.
func (ch *chooser) dateGuess(it *itemChoice, dateAt *placeKey) *node {
	for _, m := range ch.find(it.rec, dateAt).nodes {
		if ch.mayHoldDate(m) {
			return m
		}
	}
	return nil
}

// mayHoldDate reports whether dateCandidates may find a date in n: a
// text of at most 300 bytes with a digit, or an entity that may write
// one (dateIn's first test), or one in an encoding not read here.
func (ch *chooser) mayHoldDate(n *node) bool {
	if !n.isText() {
		return ch.holdsMachineDate(n)
	}
	return n.textBytes > 0 && n.textBytes <= 300 &&
		(ch.p.enc != nil || strings.ContainsAny(ch.p.text[n.start:n.end], "0123456789&"))
}

// holdsMachineDate reports whether n is an element whose start tag
// carries a whole date for machines, which the wrapper reads from a date
// annotation holding it (wrapper.MachineDate: <time datetime>, hCalendar's
// <abbr title>, microdata's <span content>, GitHub's <relative-time
// datetime>), closed by its own end tag,
// with some text to annotate and no more than a date's. Most elements are
// passed over by their tag, and most <span>s by a look at their start tag
// for a value of four digits after an '=' (every ISO 8601 date starts with
// its year), before the tag is tokenized. Not an element whose text is a
// whole date of another day (machineDateRead).
func (ch *chooser) holdsMachineDate(n *node) bool {
	if !wrapper.MayCarryMachineDate(n.tag()) {
		return false
	}
	if n.textBytes == 0 || n.textBytes > 300 {
		return false
	}
	tag := ch.p.text[n.start:n.open]
	for i := strings.IndexByte(tag, '='); i >= 0; {
		v := strings.TrimLeft(tag[i+1:], "\"' \t\n")
		if len(v) >= 4 && isNumber4(v) {
			m, ok := wrapper.TagDate(tag, ch.loc)
			return ok && ch.closedInline(n) && ch.machineDateRead(n, m)
		}
		j := strings.IndexByte(tag[i+1:], '=')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// closedInline reports whether element n's markup ends with its own end
// tag and crosses no block. An element the parser closed (a <time> left
// open, ended by the </li> or </dt> after it) holds more than its date:
// an annotation around it would hold the next block's markup, or a text
// cut short ("26 February 20") that the wrapper reads as another day.
func (ch *chooser) closedInline(n *node) bool {
	raw := ch.p.text[n.start:n.end]
	i := strings.LastIndex(raw, "</")
	if i < 0 {
		return false
	}
	name := strings.TrimRight(raw[i+2:], " \t\n\r\f>")
	return strings.EqualFold(name, n.tag()) && !wrapper.CrossesBlocks(raw)
}

// isNumber4 reports whether s starts with four ASCII digits.
func isNumber4(s string) bool {
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// atPlace returns the node with the most text at a place of the item's
// record that neither holds nor lies in the item's title, nor holds its
// link.
func atPlace(at *place, it *itemChoice) *node {
	var best *node
	for _, n := range at.nodes {
		if n.textBytes == 0 || isAncestor(n, it.title) || isAncestor(it.titleAt, n) || it.link != nil && isAncestor(n, it.link) {
			continue
		}
		if best == nil || n.textBytes > best.textBytes {
			best = n
		}
	}
	return best
}

// voteSample is how many records the places of the fields are voted on.
const voteSample = 40

// voteNodes bounds the nodes of a record that its fields are looked for
// in while the places are voted on (walkVoted).
const voteNodes = 2000

// walkVoted is walk over a record whose fields are voted on, stopped
// after voteNodes nodes. An item's fields lie near its top, and a record
// of more nodes is not an item but a whole list or section (the
// candidates made of the page's lists, or of its header, content and
// footer): looking at every node of such records, as was done, is what
// cost most on a page of 80,000 small items (tenths of a second to a
// second and a half, for a candidate that then loses), and it finds the
// fields of the first items there, which the order of the candidates
// (the first ones score best) picks anyway.
func walkVoted(r record, visit func(*node) bool) {
	seen := 0
	walkUntil(r, func(n *node) (bool, bool) {
		if seen++; seen > voteNodes {
			return false, true
		}
		return visit(n), false
	})
}

// place is the nodes of a record at a place (a relative key), in
// document order: past the records the places are voted on, a field is
// only looked for there. Every node at the place has the place's key as
// its relKey, so it need not be computed again.
type place struct {
	key   string
	nodes []*node
	set   map[*node]bool // for many nodes; nil when few
}

// has reports whether n is at the place.
func (p *place) has(n *node) bool {
	if p.set != nil {
		return p.set[n]
	}
	for _, m := range p.nodes {
		if m == n {
			return true
		}
	}
	return false
}

// walkAt is walk, kept, when there is a place, to the nodes at it and
// their ancestors: no other node can be the field there, so what a
// visit finds is the same. Those nodes are visited as walk visits them,
// in document order, without reading the rest of the record: down the
// path from the record's top to each node at the place in turn. The
// nodes at a place are in document order, and the path to each shares
// with the path to the one before it a first part that was visited
// already; when a node of that part was not descended into (hidden, or
// its visit said not to), walk would not reach the node at the end.
func walkAt(r record, at *place, visit func(*node) bool) {
	if at == nil {
		walkVoted(r, visit)
		return
	}
	if at.set != nil { // with many nodes, looking is no cheaper
		walk(r, visit)
		return
	}
	var bufs [2][16]*node
	prev, path := bufs[0][:0], bufs[1][:0]
	// open is how many nodes of prev, from its top, were descended into.
	open := 0
	top := r.nodes[0].depth
	for _, m := range at.nodes {
		path = path[:0]
		for a := m; a != nil && a.depth >= top; a = a.parent() {
			path = append(path, a)
		}
		slices.Reverse(path)
		shared := 0
		for shared < len(prev) && shared < len(path) && prev[shared] == path[shared] {
			shared++
		}
		if shared > open {
			continue // below a node not descended into
		}
		open = len(path)
		for i := shared; i < len(path); i++ {
			if path[i].hidden || !visit(path[i]) {
				open = i
				break
			}
		}
		prev, path = path, prev
	}
}

// keyFor returns the relative key of a node of r: the place's when there
// is one (the node is at it), or relKey's.
func (p *place) keyFor(r record, n *node) string {
	if p != nil {
		return p.key
	}
	return relKey(r, n)
}

// placeKey is a relative key read into its steps, once for every record
// it is looked for in.
type placeKey struct {
	key   string
	top   string // the name of the record's top node
	occ   int    // how many earlier top nodes of the record have that name
	steps []string
	// stepLooks says of each step, by look (node.lookID), whether the
	// elements of the look are at it: 1 yes, 2 no, 0 not asked yet. find
	// asks it of every child on the way down in every record, and the
	// children of a list's records have a few looks between them.
	stepLooks [][]uint8
}

// isStep reports whether n is at step k (its stepName is the step).
func (pk *placeKey) isStep(k int, n *node) bool {
	if pk.stepLooks == nil {
		pk.stepLooks = make([][]uint8, len(pk.steps))
	}
	known := pk.stepLooks[k]
	if int(n.lookID) >= len(known) {
		// Room for every look of the tree, which has them all by now.
		grown := make([]uint8, len(n.tables().looks))
		copy(grown, known)
		known, pk.stepLooks[k] = grown, grown
	}
	switch known[n.lookID] {
	case 1:
		return true
	case 2:
		return false
	}
	is := n.stepName() == pk.steps[k]
	known[n.lookID] = 2
	if is {
		known[n.lookID] = 1
	}
	return is
}

// parsePlace reads a relative key.
func parsePlace(key string) *placeKey {
	pk := &placeKey{key: key}
	if key == "" {
		return pk
	}
	first, rest, more := strings.Cut(key, " > ")
	topName, occText, _ := strings.Cut(first, "@")
	pk.top = topName
	for _, c := range occText {
		pk.occ = pk.occ*10 + int(c-'0')
	}
	for more {
		var step string
		step, rest, more = strings.Cut(rest, " > ")
		pk.steps = append(pk.steps, step)
	}
	return pk
}

// find returns the nodes of a record at a place, by following the key's
// steps down from the record's top nodes. The place is the chooser's,
// good until the next call.
func (ch *chooser) find(r record, pk *placeKey) *place {
	out := &ch.at
	out.key, out.nodes, out.set = pk.key, nil, nil
	if pk.key == "" {
		return out
	}
	level, next := ch.levels[0][:0], ch.levels[1][:0]
	seen := 0
	for _, top := range r.nodes {
		name := top.tag()
		if top.isText() {
			name = "#text"
		}
		if name == pk.top {
			if seen == pk.occ {
				level = append(level, top)
				break
			}
			seen++
		}
	}
	for k := range pk.steps {
		next = next[:0]
		for _, n := range level {
			for _, c := range n.children() {
				if !c.hidden && pk.isStep(k, c) {
					next = append(next, c)
				}
			}
		}
		level, next = next, level
	}
	ch.levels[0], ch.levels[1] = level, next
	out.nodes = level
	if len(level) > 8 {
		out.set = make(map[*node]bool, len(level))
		for _, n := range level {
			out.set[n] = true
		}
	}
	return out
}

// vote returns the place (relative key) that the most records have a
// candidate at, weighing each record's best candidates first; ties go to
// the place with the best total score.
func vote(n int, cands func(i int) []scored) string {
	return voteMajority(n, cands, 0)
}

// voteMajority is vote, returning "" unless the place chosen is found in
// at least the given share of the records.
func voteMajority(n int, cands func(i int) []scored, share float64) string {
	count := map[string]int{}
	total := map[string]float64{}
	for i := 0; i < n; i++ {
		best := map[string]float64{}
		for _, s := range cands(i) {
			if v, seen := best[s.key]; !seen || s.score > v {
				best[s.key] = s.score
			}
		}
		for k, v := range best {
			count[k]++
			total[k] += v
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestVal := "", math.Inf(-1)
	for _, k := range keys {
		// How often a place is there counts most; its average fitness,
		// squashed into (0, 2), decides between places about as common.
		avg := total[k] / float64(count[k])
		v := float64(count[k]) * (1 + avg/(1+math.Abs(avg)))
		if v > bestVal {
			best, bestVal = k, v
		}
	}
	if best != "" && float64(count[best]) < share*float64(n) {
		return ""
	}
	return best
}

// voteTitle votes the title's place on the records' candidates (vote),
// passing over a label: a place whose texts are repeated verbatim in
// most records voted on ("Fixed" under each release's heading, "Added"
// under some and "Security" under others, "Release notes" beside each
// version) while a heading, a link or a term at another place varies
// (labelPlace). The list's score weighs titles repeated across
// its records ("the same title in many records"), but gives no other
// place of the records their title.
func voteTitle(titles [][]scored) string {
	var labels []string
	cands := func(i int) []scored { return titles[i] }
	for {
		key := vote(len(titles), cands)
		if !labelPlace(titles, key, labels) {
			return key
		}
		labels = append(labels, key)
		cands = func(i int) []scored {
			var kept []scored
			for _, s := range titles[i] {
				if !slices.Contains(labels, s.key) {
					kept = append(kept, s)
				}
			}
			return kept
		}
	}
}

// labelPlace reports whether the place key is a label, not a title: in
// at least three of the records, most of them holding a text another
// holds too (repeatedMostly), while another place, not in passed, holds
// a heading, a link or a term (titleBase at least titleTagBase) in at
// least half as many records, with a text of its own in most of them. A list whose every title is
// the same ("Minutes" beside each date) keeps it: no such place varies.
func labelPlace(titles [][]scored, key string, passed []string) bool {
	// The place's texts first: most places chosen vary, and the other
	// places need not be looked at.
	records, counts := 0, map[string]int{}
	for _, cands := range titles {
		if s := pick(cands, key); s != nil {
			records++
			counts[s.text]++
		}
	}
	if records < 3 || !repeatedMostly(counts, records) {
		return false
	}
	// The other places' texts, one a record.
	type texts struct {
		records int
		seen    map[string]bool
		named   bool // a heading, a link or a term is there
	}
	places := map[string]*texts{}
	for _, cands := range titles {
		done := map[string]bool{key: true}
		for _, s := range cands {
			if done[s.key] || slices.Contains(passed, s.key) {
				continue
			}
			done[s.key] = true
			t := places[s.key]
			if t == nil {
				t = &texts{seen: map[string]bool{}}
				places[s.key] = t
			}
			t.records++
			t.seen[s.text] = true
			if base, _ := titleBase(s.n); base >= titleTagBase {
				t.named = true
			}
		}
	}
	for _, t := range places {
		if t.named && 2*t.records >= records && 2*len(t.seen) > t.records {
			return true
		}
	}
	return false
}

// repeatedMostly reports whether most of records (more than half) hold
// a text that another record holds verbatim too, given how many records
// hold each text: labels repeat ("Added" under most releases, "Fixed"
// under others), titles do not. A place whose subsections vary from
// release to release holds no one text in every record, but its texts
// are still a few words each repeated.
func repeatedMostly(counts map[string]int, records int) bool {
	repeated := 0
	for _, c := range counts {
		if c > 1 {
			repeated += c
		}
	}
	return 2*repeated > records
}

// pick returns the best candidate at the place key, or nil.
func pick(cands []scored, key string) *scored {
	var best *scored
	for i := range cands {
		if cands[i].key == key && (best == nil || cands[i].score > best.score) {
			best = &cands[i]
		}
	}
	return best
}

// relKey names a node's place in its record: the path of tags and stable
// classes from the record's top node (which is named with how many earlier
// nodes of the record have its key, for runs) down to it.
func relKey(r record, n *node) string {
	var steps []string
	for a := n; a != nil && a.depth >= r.nodes[0].depth; a = a.parent() {
		for pos, top := range r.nodes {
			if top != a {
				continue
			}
			// The top node is named by its tag alone: records of one list
			// differ in their classes (odd, even, a category).
			occ := 0
			for _, prev := range r.nodes[:pos] {
				if prev.tag() == top.tag() {
					occ++
				}
			}
			name := top.tag()
			if top.isText() {
				name = "#text"
			}
			steps = append(steps, name+"@"+itoa(occ))
			return joinReversed(steps)
		}
		steps = append(steps, a.stepName())
	}
	return joinReversed(steps)
}

// stepName names a node in a relative key: "#text", or its tag and
// stable classes. It is kept in the node's look, as keys are compared
// along every record.
func (n *node) stepName() string { return n.look().stepName() }

// stepName is the step of the elements of the look (node.stepName).
func (lk *look) stepName() string {
	if lk.step != "" {
		return lk.step
	}
	s := lk.tag
	for _, c := range lk.classes {
		s += "." + c
	}
	lk.step = s
	return s
}

func joinReversed(steps []string) string {
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return strings.Join(steps, " > ")
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// hints are words in class names or ids that name a field (or, for the
// channel, a part of the page). Each set has a bit of its own, in which
// hasHint keeps its answer for each look (look.hintsAsked, hintsFound).
type hints struct {
	bit   uint8
	words []string
}

// titleHints and descHints are words in class names that name the field.
// The channel's sets, siteNameHints and taglineHints, take the next bits.
var (
	titleHints = &hints{1 << 0, []string{"title", "headline", "heading", "subject", "topictitle", "name", "hdr"}}
	descHints  = &hints{1 << 1, []string{"summary", "excerpt", "desc", "snippet", "teaser", "standfirst", "intro", "body", "content", "text", "abstract", "note"}}
	dateHints  = &hints{1 << 2, []string{"date", "time", "published", "posted", "created", "when", "timestamp", "age", "meta"}}
	linkHints  = &hints{1 << 3, []string{"permalink", "more", "readmore", "read-more", "bookmark"}}
)

// hasHint reports whether the node's class or id holds one of the words.
// The answer depends on the look alone, so it is kept there: a list's
// elements share a few looks, and the fields' choice asks of each node of
// each record (lower-casing and searching the class every time was a
// twelfth of a long table's suggestion). A look without class or id, as
// the text's and the root's shared by every tree, is never written.
func hasHint(n *node, h *hints) bool {
	lk := n.look()
	if lk.class == "" && lk.id == "" {
		return false
	}
	if lk.hintsAsked&h.bit == 0 {
		lk.hintsAsked |= h.bit
		if namedBy(lk, h.words) {
			lk.hintsFound |= h.bit
		}
	}
	return lk.hintsFound&h.bit != 0
}

// namedBy reports whether the look's class or id holds one of the words.
func namedBy(lk *look, words []string) bool {
	// The class and the id apart: no hint holds a space, so none is found
	// across the two, and strings.ToLower copies neither when it is lower
	// case already.
	for _, s := range [2]string{lk.class, lk.id} {
		if s == "" {
			continue
		}
		s = strings.ToLower(s)
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// titleCandidates scores the elements of a record that may hold its
// title: headings, links, bold text, cells and elements named like titles.
//
// The candidates are appended to out.
func (ch *chooser) titleCandidates(out []scored, r record, at *place) []scored {
	order := 0
	walkAt(r, at, func(n *node) bool {
		if n.isText() || n.textBytes == 0 {
			return false
		}
		base, ok := titleBase(n)
		if !ok {
			return true
		}
		// A link around its heading (and the heading's subtitle) is the
		// title, narrowed to the heading, almost as surely as the
		// heading: its place holds when the heading's classes differ
		// between records, as generated class names do.
		linkedHeading := n.tag() == "a" && isHeading(narrowTitle(n).tag())
		if linkedHeading {
			base = 4.5
		}
		if n.textBytes > 400 || at != nil && !at.has(n) || blockParts(n) > 1 && !linkedHeading {
			// Too long for a title, not at the place, or holding two
			// blocks (a card's link around its title's, company's and
			// place's divs), which the wrapper reads as no title
			// (wrapper.CrossesBlocks): look inside.
			return true
		}
		text := ch.p.textOf(n)
		if linkedHeading {
			text = ch.p.textOf(narrowTitle(n))
		}
		if isBoilerplate(text) || isNumberish(text) && !(base >= titleTagBase && ch.releaseName(text)) || ch.isDate(text) {
			// A number or a code is no title, but a release's version
			// ("3.19.0", "2024.06", "[3.19.0] - 2024-03-04") in a
			// heading, a link, bold text or a term is the release's
			// name. A version the dates package reads ("2024.06.01") is
			// a date.
			return true
		}
		runes := utf8.RuneCountInString(text)
		score := base
		if hasHint(n, titleHints) || (n.parent() != nil && n.tag() == "a" && hasHint(n.parent(), titleHints)) {
			score += 3
		}
		switch {
		case runes >= 8 && runes <= 160 || base >= titleTagBase && isVersion(text):
			// A version is a release's whole name, however short:
			// "v4.2.1" is no shorter a title than "Release 4.2.1".
			score += 2
		case runes > 200:
			score -= 3
		}
		if n.tag() != "a" && (n.links > 0 && n.linkTextBytes*2 < n.textBytes || n.links > 1) {
			// Text around links, or several links (a topic's and its
			// starter's): a line, not a title.
			score -= 2
		}
		if base >= titleTagBase && n.tag() != "a" && n.links == 1 && n.linkTextBytes*2 >= n.textBytes && ch.linkAndDate(n, text) {
			// A heading of a link and a date ("<a>Version 4.2</a> – 4
			// March 2024"): the link is the title, and the date stays
			// the date, which inside the title could not be annotated.
			score -= 2
		}
		if n.tag() == "a" && n.parent() != nil && (isHeading(n.parent().tag()) || n.parent().tag() == "b" || n.parent().tag() == "strong") {
			score += 1
		}
		if n.links == 0 && n.tag() != "a" && !isHeading(n.tag()) && ancestorLink(n, r) == nil {
			score -= 1 // a title usually links to its story
		}
		if isHeading(n.tag()) {
			if a := ancestorLink(n, r); a != nil && firstHeading(a) != n {
				score -= 2 // the subtitle under a link's heading
			}
		}
		score -= 0.1 * float64(order)
		order++
		out = append(out, scored{n: n, key: at.keyFor(r, n), score: score, text: text})
		return true
	})
	return out
}

// titleBase is what titleCandidates scores an element for its kind, and
// whether that kind may hold a title at all: headings first, then links,
// then the bold and the terms (titleTagBase), then cells and plain text
// elements.
func titleBase(n *node) (float64, bool) {
	switch tag := n.tag(); {
	case isHeading(tag):
		return 5, true
	case tag == "a" && n.href() != "":
		return 3, true
	case tag == "b" || tag == "strong" || tag == "cite" || tag == "dt":
		return titleTagBase, true
	case tag == "td" || tag == "th" || tag == "font" || tag == "span" || tag == "div" || tag == "p" || tag == "em" || tag == "i":
		return 0, true
	}
	return 0, false
}

// titleTagBase is the least titleBase of the elements that are marked as
// a title or a name (headings, links, bold text, terms) rather than only
// holding text: a version is a title there, and a place whose text
// varies there outweighs a label (labelPlace).
const titleTagBase = 1.5

// blockParts counts the block-level children of n that hold text.
func blockParts(n *node) int {
	k := 0
	for _, c := range n.children() {
		if !c.isText() && c.textBytes > 0 && wrapper.IsBlockTag(c.tag()) {
			k++
		}
	}
	return k
}

// narrow returns the deepest element that holds all of n's text, so that
// the title's annotation goes inside its link and heading markup.
func narrow(n *node) *node {
	for {
		var only *node
		for _, c := range n.children() {
			if c.textBytes == 0 {
				continue
			}
			if only != nil || c.isText() {
				return n
			}
			only = c
		}
		if only == nil || only.textBytes != n.textBytes || only.look().void {
			return n
		}
		n = only
	}
}

// narrowTitle is narrow for a title: a link around blocks (a <div>
// holding the heading and its subtitle) narrows to its first heading, as
// the wrapper reads a title of several blocks as none
// (wrapper.CrossesBlocks).
func narrowTitle(n *node) *node {
	m := narrow(n)
	if n.tag() == "a" && blockParts(m) > 1 {
		if h := firstHeading(m); h != nil {
			return narrow(h)
		}
	}
	return m
}

// firstHeading returns the first heading holding text inside n, or nil.
func firstHeading(n *node) *node {
	for _, c := range n.children() {
		if c.isText() || c.textBytes == 0 {
			continue
		}
		if isHeading(c.tag()) {
			return c
		}
		if h := firstHeading(c); h != nil {
			return h
		}
	}
	return nil
}

// ancestorLink returns the <a href> around n inside the record, or nil.
func ancestorLink(n *node, r record) *node {
	if !r.contains(n) {
		return nil
	}
	top := r.nodes[0].depth
	for a := n.parent(); a != nil && a.depth >= top; a = a.parent() {
		if a.tag() == "a" && a.href() != "" {
			return a
		}
		for _, top := range r.nodes {
			if a == top {
				return nil
			}
		}
	}
	return nil
}

// linkCandidates scores the links that may be the record's link: the
// title's own link first, then "read more" links, the whole card's link,
// and other links to pages.
func (ch *chooser) linkCandidates(out []scored, r record, title *node, at *place) []scored {
	first := len(out)
	add := func(n *node, score float64) {
		if at == nil || at.has(n) {
			out = append(out, scored{n: n, key: at.keyFor(r, n), score: score})
		}
	}
	if title.tag() == "a" && title.usableLink() {
		add(title, 10)
	}
	if a := ancestorLink(title, r); a != nil && a.usableLink() {
		add(a, 9)
	}
	if h := r.head(); h.tag() == "a" && h.usableLink() && r.contains(title) {
		add(h, 8)
	}
	// The longest link inside the title.
	var inside *node
	walk(record{nodes: []*node{title}}, func(n *node) bool {
		if n.tag() == "a" && n.usableLink() && (inside == nil || n.textBytes > inside.textBytes) {
			inside = n
		}
		return true
	})
	if inside != nil && inside.textBytes*2 >= title.textBytes {
		add(inside, 9)
	}
	if at != nil && len(out) > first {
		// Past the vote, what is found is only picked from, at the
		// place: a link found above scores 8 or more, one found below at
		// most 5 (1, and 4 for "read more"), so it would not be picked.
		return out
	}
	order := 0
	walkAt(r, at, func(n *node) bool {
		if n.tag() != "a" || n.href() == "" {
			return true
		}
		if at != nil && !at.has(n) || !n.usableLink() || ch.lineReference(n, r) {
			return false
		}
		if at != nil && len(at.nodes) == 1 {
			// Every candidate is then the node at the place: the score,
			// which only chooses between the candidates at a place,
			// decides nothing, and the link's text need not be read.
			out = append(out, scored{n: n, key: at.key})
			return false
		}
		text := ch.p.textOf(n)
		score := 1.0
		lt := strings.ToLower(strings.Trim(text, " .…→»›>&;:-"))
		switch {
		case isReadMore(lt) || hasHint(n, linkHints):
			score += 4
		case isBoilerplate(text) || isNumberish(text) && !strings.ContainsAny(text, "-/"):
			score -= 1
		}
		href := strings.ToLower(n.href())
		for _, bad := range []string{"add-to-cart", "login", "vote", "hide?", "reply", "share", "profile", "/user", "member", "/author/", "/tag/", "/category/", "/categories", "page=", "action=", "mailto:", "#comment", "#respond", "lastposter"} {
			if strings.Contains(href, bad) {
				score -= 3
				break
			}
		}
		if i := strings.LastIndexByte(href, '.'); i > 0 {
			switch href[i:] {
			case ".mp3", ".mp4", ".m4a", ".ogg", ".jpg", ".jpeg", ".png", ".gif", ".zip", ".webp":
				score -= 2
			}
		}
		if strings.Contains(href, "#") {
			score -= 1
		}
		score -= 0.05 * float64(order)
		order++
		out = append(out, scored{n: n, key: at.keyFor(r, n), score: score})
		return false
	})
	return out
}

// lineReference reports whether the link n is a line's reference, not
// its record's link: it stands in a list item inside the record (not
// the record itself) whose text is at least three times its own and more than 24
// bytes (a change in a release's notes, "Fix the loader (#4012)", whose
// link leads to the change's pull request). A record whose title has no
// link of its own (a version heading) then gets no link, and the page's
// with a fragment, rather than its first change's. A read-more link
// ("Continue reading" in a list of a teaser's links) is the record's.
func (ch *chooser) lineReference(n *node, r record) bool {
	var li *node
	for a := n.parent(); a != nil && r.contains(a); a = a.parent() {
		if slices.Contains(r.nodes, a) {
			return false
		}
		if a.tag() == "li" {
			li = a
			break
		}
	}
	if li == nil || li.textBytes <= 24 || li.textBytes < 3*n.textBytes {
		return false
	}
	return !isReadMore(strings.ToLower(strings.Trim(ch.p.textOf(n), " .…→»›>&;:-")))
}

// usableLink is usableHref of the node's href ("" for all but <a>),
// kept: every candidate holding a link asks about it.
func (n *node) usableLink() bool {
	if n.linkOK == 0 {
		n.linkOK = 2
		if usableHref(n.href()) {
			n.linkOK = 1
		}
	}
	return n.linkOK == 1
}

// usableHref reports whether a link leads to a page: not an anchor on this
// page, not a script.
func usableHref(href string) bool {
	return plainLink(href) || parsedUsable(href)
}

// parsedUsable is usableHref for any link: it parses the link as the
// wrapper will.
func parsedUsable(href string) bool {
	h := strings.ToLower(strings.TrimSpace(href))
	if h == "" || strings.HasPrefix(h, "#") || strings.HasPrefix(h, "javascript:") || strings.HasPrefix(h, "mailto:") ||
		strings.HasPrefix(h, "data:") || strings.HasPrefix(h, "vbscript:") {
		return false
	}
	ref := urlBreaks.Replace(strings.TrimSpace(html.UnescapeString(href)))
	if _, err := url.Parse(ref); err != nil {
		return false
	}
	// Nor one the wrapper refuses: a host holding '>' or '"', which
	// url.Parse takes, is no host once escaped (FuzzSuggest finding).
	_, problem := values.ResolveLink(linkBase, ref)
	return problem == ""
}

// plainLink reports whether href is a path ("/2024/03/post/",
// "news.php?id=12", "/12/#comments") or an http(s) URL with a plain host,
// made of ASCII letters, digits and "/._-~?=#&" alone (no '&' starting
// an entity): such a link always
// leads to a page, and most links of most pages are such, so usableHref
// need not parse them. A path starting "//" names a host, and is parsed;
// one starting "#" is an anchor on this page.
func plainLink(href string) bool {
	rest := href
	if after, ok := strings.CutPrefix(href, "https://"); ok {
		rest = after
	} else if after, ok := strings.CutPrefix(href, "http://"); ok {
		rest = after
	}
	if rest != href {
		host := strings.IndexByte(rest, '/')
		if host < 0 {
			host = len(rest)
		}
		if host == 0 {
			return false
		}
		for i := 0; i < host; i++ {
			if c := rest[i]; !isASCIILetter(c) && !isDigit(c) && c != '.' && c != '-' {
				return false
			}
		}
		rest = rest[host:]
	} else if rest == "" || rest[0] == '#' || strings.HasPrefix(rest, "//") {
		return false
	}
	amp := false
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !isASCIILetter(c) && !isDigit(c) && !strings.ContainsRune("/._-~?=#&", rune(c)) {
			return false
		} else if c == '&' {
			amp = true
		}
	}
	// A '&' separates a query's parameters ("viewtopic.php?f=2&t=10",
	// as the page's "&amp;" reads), unless it starts an entity that
	// parsedUsable's unescaping reads ("&copy=1" holds "©").
	return !amp || html.UnescapeString(href) == href
}

// linkBase stands for the page's URL in usableHref: what it refuses is in
// the link itself.
var linkBase, _ = url.Parse("https://example.com/")

// urlBreaks removes what the URL standard drops anywhere in a URL.
var urlBreaks = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// descCandidates scores the elements and text of a record that may be its
// description: longer text outside the title and the link, preferably in a
// paragraph or an element named like a summary.
func (ch *chooser) descCandidates(out []scored, it *itemChoice, at *place) []scored {
	title, link := it.title, it.link
	walkAt(it.rec, at, func(n *node) bool {
		if n == title || isAncestor(n, title) && n.textBytes-title.textBytes < 25 {
			return n != title
		}
		if isAncestor(n, title) || (link != nil && isAncestor(n, link) && n != link) {
			return true // it holds the title or the link: look inside
		}
		if isAncestor(it.titleAt, n) {
			// It lies in the element at the title's place (a link
			// around a heading and more, narrowed to the heading), whose
			// text the selectors take as the title: as atPlace, no
			// description there.
			return false
		}
		if n.tag() == "a" || n.textBytes < 25 || n.skip {
			return n.tag() != "a"
		}
		if n.linkTextBytes*2 > n.textBytes || at != nil && !at.has(n) {
			return true
		}
		runes, prose, counted := ch.longProse(n)
		if !counted {
			text := ch.p.textOf(n)
			prose, runes = isProse(text) && !ch.isDate(text), utf8.RuneCountInString(text)
		}
		if !prose {
			return true
		}
		score := float64(min(runes, 300)) / 30
		if hasHint(n, descHints) {
			score += 3
		}
		if n.tag() == "p" || n.tag() == "dd" {
			score++
		}
		if n.isText() {
			score -= 0.5
		}
		out = append(out, scored{n: n, key: at.keyFor(it.rec, n), score: score})
		return true
	})
	return out
}

// isProse reports whether a text reads like a sentence: five words or
// more, mostly letters (textCounts.prose). A line of figures ("03-12-2024
// 09:41 PM by mossy", "21 Replies 904 Views") is no description.
func isProse(s string) bool {
	if !hasFields(s, 5) {
		return false // most short texts, known without counting
	}
	var c textCounts
	c.add(s)
	return c.prose()
}

// countedTextBytes is the visible text past which descCandidates counts
// a node's text (longProse) rather than making it: more than any
// description holds, the text of a whole list or section.
const countedTextBytes = 4096

// longProse is, for a node of more than countedTextBytes of visible text,
// what descCandidates asks of its text: its runes, and whether it is
// prose and no date. counted is false, and the text is to be read, for a
// shorter node, one whose markup only the tokenizer reads, or one whose
// text is short enough to be a date. The text of a whole list's node in
// the records its fields are voted on (a package index's table, 4.5 MB)
// was made, and read once, for this alone.
func (ch *chooser) longProse(n *node) (runes int, prose, counted bool) {
	if n.textBytes <= countedTextBytes {
		return 0, false, false
	}
	c, ok := ch.p.countsOf(n)
	runes, bytes := c.joined()
	if !ok || bytes <= maxDateBytes {
		return 0, false, false // isDate reads it
	}
	return runes, c.prose(), true // isDate reads no text of more than maxDateBytes
}

// hasFields reports whether s has at least n words, as strings.Fields
// splits them, without making the list.
func hasFields(s string, n int) bool {
	if n <= 0 {
		return true
	}
	words, inWord := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			inWord = true
			if words++; words >= n {
				return true
			}
		}
	}
	return false
}

// isAncestor reports whether a is n or holds it.
func isAncestor(a, n *node) bool {
	for ; n != nil && n.depth >= a.depth; n = n.parent() {
		if n == a {
			return true
		}
	}
	return false
}

// dateCandidates finds the dates in a record's text, outside its title:
// a whole text that the dates package reads, or the longest run of words
// in it that it reads ("Posted on March 12, 2024 by Ann" gives "March 12,
// 2024"). rankDates then favours the dates nearest the title and
// disfavours a last post's or update's.
func (ch *chooser) dateCandidates(out []scored, r record, title *node, at *place) []scored {
	found := len(out)
	walkAt(r, at, func(n *node) bool {
		if title != nil && n == title {
			return false
		}
		if !n.isText() {
			// An element carrying its whole date in an attribute is the
			// date, its text ("Mar 4", "09:30") not looked at: the
			// annotation holds the element, whose attribute the wrapper
			// reads.
			if (at == nil || at.has(n)) && (title == nil || !isAncestor(n, title)) && ch.holdsMachineDate(n) {
				out = append(out, scored{n: n, key: at.keyFor(r, n), score: 3, start: int(n.start), end: int(n.end)})
				return false
			}
			return true
		}
		if n.textBytes == 0 || n.textBytes > 300 || at != nil && !at.has(n) {
			return true
		}
		start, end, ok := ch.dateIn(n)
		if !ok {
			return true
		}
		score := 1.0
		for a, k := n.parent(), 0; a != nil && k < 3; a, k = a.parent(), k+1 {
			if a.tag() == "time" || hasHint(a, dateHints) {
				score += 2
				break
			}
		}
		out = append(out, scored{n: n, key: at.keyFor(r, n), score: score, start: start, end: end})
		return true
	})
	ch.rankDates(out[found:], r, title)
	return out
}

// dateIn returns the byte range of a date in a text node.
//
// It is asked of every text of the records voted on, and a record may be
// a whole list of tens of thousands of items (a list of lists): so a text
// without a digit is passed over before it is decoded, and the runs of
// words in which a date is looked for are never copied. A run is a
// stretch of the text as the wrapper reads it (decoded from the page's
// encoding, valid UTF-8, its entities decoded: "06/27/2024 &nbsp;|&nbsp;
// Ad" is "06/27/2024", a space, "|", a space and "Ad"), and what isDate
// asks of it first (no more than 80 bytes, a digit, a sixth of its bytes
// other than spaces digits) is read from counts made once for the text.
// A mark outside ASCII ("·", "•") or a '|' is a word of its own even
// when written against its neighbours ("27/06/2024&middot;Reference").
// The run found is mapped back to the page's bytes, an entity whole.
func (ch *chooser) dateIn(n *node) (int, int, bool) {
	raw := ch.p.text[n.start:n.end]
	if ch.p.enc == nil && !strings.ContainsAny(raw, "0123456789&") {
		// No digit, nor an entity that may write one: no date.
		return 0, 0, false
	}
	decoded := ch.p.decode(raw)
	// text is decoded with its entities decoded; src, when it has any,
	// maps each of text's runes to the rune of decoded its entity (or
	// itself) starts at.
	text, src := decoded, []int32(nil)
	if strings.IndexByte(decoded, '&') >= 0 {
		text, src = unescapeMapped(decoded, ch.src[:0])
		ch.src = src
	}
	whole := joinFields(text)
	if !strings.ContainsAny(whole, "0123456789") {
		return 0, 0, false
	}
	if utf8.RuneCountInString(whole) <= 60 && ch.isDate(whole) {
		return int(n.start), int(n.end), true
	}
	// Words, as rune offsets; and for each rune offset, where the rune
	// starts in text and the digits and the other bytes before it.
	words, marks := ch.words[:0], ch.marks[:0]
	var m runeMark
	r, inWord, from, cjk := 0, false, 0, false
	for i, c := range text {
		m.at = int32(i)
		marks = append(marks, m)
		switch {
		case c >= '0' && c <= '9':
			m.digits++
		case c != ' ':
			m.other += int32(utf8.RuneLen(c))
			if c >= utf8.RuneSelf {
				m.wide++
				cjk = cjk || dates.RewritesCJK(c)
			}
		}
		space := unicode.IsSpace(c)
		if !space && !inWord {
			inWord, from = true, r
		}
		if space && inWord {
			inWord = false
			words = append(words, [2]int{from, r})
		}
		if !space && separatesDate(text[i:], c) {
			// A mark is a word of its own: end the word it ends.
			if from < r {
				words = append(words, [2]int{from, r})
			}
			words = append(words, [2]int{r, r + 1})
			inWord = false
		}
		r++
	}
	m.at = int32(len(text))
	marks = append(marks, m)
	if inWord {
		words = append(words, [2]int{from, r})
	}
	ch.words, ch.marks = words, marks
	if len(words) > 40 {
		return 0, 0, false
	}
	// marksBefore[k] is how many of the first k words end runs
	// (endsRun): a run with one inside it is no date,
	// known without isDate (MayParse of every run around a middle dot
	// was a third of dateIn on a page of 70,000 "date · words" texts). A
	// text with a rune Parse rewrites first has none counted.
	// never[k] is whether word k is one in which no date is read
	// (dates.NeverInDate), for the runs it starts or ends: asked once of
	// each word, and again of a run's first or last word only when the
	// run trims it.
	//
	// mayBefore[k] is how many of the first k words may let a run of
	// several words in ASCII through dates.MayParse (dates.MayParseWord):
	// a run with none is one MayParse turns away, known without reading
	// the run again (asked of every run of a classified ad's
	// description, it was a fifth of the page's suggestion).
	var marksBefore, mayBefore [41]int
	var never, may [40]bool
	for k, w := range words {
		marksBefore[k+1] = marksBefore[k]
		may[k] = dates.MayParseWord(text[marks[w[0]].at:marks[w[1]].at], false)
		mayBefore[k+1] = mayBefore[k]
		if may[k] {
			mayBefore[k+1]++
		}
		if cjk {
			continue
		}
		ends, nv := runEnd(text[marks[w[0]].at:marks[w[1]].at])
		never[k] = nv
		if ends {
			marksBefore[k+1]++
		}
	}
	// edgeNever reports whether the part from..to of word k, what a run
	// keeps of it, is one in which no date is read.
	edgeNever := func(k, from, to int) bool {
		if from == words[k][0] && to == words[k][1] {
			return never[k]
		}
		return dates.NeverInDate(text[marks[from].at:marks[to].at])
	}
	// edgeMay is edgeNever's for dates.MayParseWord, of a run's first
	// word when first.
	edgeMay := func(k, from, to int, first bool) bool {
		if !first && from == words[k][0] && to == words[k][1] {
			return may[k]
		}
		return dates.MayParseWord(text[marks[from].at:marks[to].at], first)
	}
	runeAt := func(k int) rune {
		c, _ := utf8.DecodeRuneInString(text[marks[k].at:])
		return c
	}
	bestFrom, bestTo := -1, -1
	for i := range words {
		for j := min(len(words), i+8); j > i; j-- {
			if marksBefore[j-1]-marksBefore[i+1] > 0 {
				continue // words i+1 to j-2 stand between spaces
			}
			a, b := words[i][0], words[j-1][1]
			for a < b && (dateLead(runeAt(a)) || unicode.IsSpace(runeAt(a))) {
				a++
			}
			for b > a && (dateTrail(runeAt(b-1)) || unicode.IsSpace(runeAt(b-1))) {
				b--
			}
			if b-a <= bestTo-bestFrom || b-a < 6 {
				continue
			}
			// isDate's first tests, from the counts.
			digits, other := marks[b].digits-marks[a].digits, marks[b].other-marks[a].other
			if digits == 0 || marks[b].at-marks[a].at > maxDateBytes || 6*digits < digits+other {
				continue
			}
			several := j-1 > i && a < words[i][1] && b > words[j-1][0]
			if several && !cjk && (edgeNever(i, a, words[i][1]) || edgeNever(j-1, words[j-1][0], b)) {
				// A run of several words whose first or last word, as
				// trimmed, is one in which no date is read ("Call
				// 555-0111", "after 5pm. £650"), as the words inside it
				// are (endsRun).
				continue
			}
			if several && marks[b].wide == marks[a].wide && mayBefore[j-1] == mayBefore[i+1] &&
				!edgeMay(i, a, words[i][1], true) && !edgeMay(j-1, words[j-1][0], b, false) {
				continue // in ASCII, and no word of it MayParse lets through
			}
			if !ch.readsDate(text[marks[a].at:marks[b].at]) {
				continue
			}
			bestFrom, bestTo = a, b
		}
	}
	if bestFrom < 0 {
		return 0, 0, false
	}
	if src != nil {
		bestFrom, bestTo = int(src[bestFrom]), int(src[bestTo])
	}
	return ch.p.byteOffsets(int(n.start), int(n.end), bestFrom, bestTo)
}

// separatesDate reports whether c, the first rune of s, is a word of its
// own for dateIn: a mark outside ASCII (dates.MarksOnly: "·", "•")
// or a '|', written against a word ("27/06/2024&#124;Ref").
func separatesDate(s string, c rune) bool {
	if c < utf8.RuneSelf {
		return c == '|'
	}
	return dates.MarksOnly(s[:utf8.RuneLen(c)])
}

// endsRun reports whether a word of a text ends the runs of words dateIn
// reads as dates: a word of marks outside ASCII (dates.MarksOnly), on
// which dates.Parse fails, or a '|' or '/' standing alone, which on a
// page separate fields ("06/27/2024 | Ad", "2024-06-27 / By Ann") and
// which Parse would read as spaces, taking the words after them into the
// date's annotation.
func endsRun(w string) bool {
	ends, _ := runEnd(w)
	return ends
}

// runEnd is endsRun, and whether w is a word in which no date is read
// (dates.NeverInDate), which ends runs.
func runEnd(w string) (ends, never bool) {
	never = dates.NeverInDate(w)
	return never || w == "|" || w == "/", never
}

// unescapeMapped decodes the entities of s as the wrapper does
// (html.UnescapeString, one entity at a time), and returns with it, in
// src (whose room is reused), the rune of s each of its runes comes from:
// an entity's runes all come from its '&'. src has one more entry, the
// runes of s, for a range that ends with the text.
func unescapeMapped(s string, src []int32) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	r := int32(0) // runes of s before i
	for i := 0; i < len(s); {
		if s[i] != '&' {
			c, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(c)
			src = append(src, r)
			i += size
			r++
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '#' {
			j++
			if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
				j++
			}
		}
		for j < len(s) && (isASCIIAlnum(s[j])) {
			j++
		}
		if j < len(s) && s[j] == ';' {
			j++
		}
		for _, c := range html.UnescapeString(s[i:j]) {
			b.WriteRune(c)
			src = append(src, r)
		}
		r += int32(j - i) // an entity is ASCII: one rune a byte
		i = j
	}
	return b.String(), append(src, r)
}

func isASCIIAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// dateLead reports whether dateIn trims r from the start of a run of
// words: an opening bracket or a mark that stands before a date ("(12
// March 2005", "· 12 March 2005"). A switch, not strings.ContainsRune of
// the marks: asked at both ends of every run of every text tried, the
// search of a string holding marks outside ASCII was a fifth of dateIn.
func dateLead(r rune) bool {
	switch r {
	case '(', '[', ',', ';', '|', '·', '–', '—', '-':
		return true
	}
	return false
}

// dateTrail reports whether dateIn trims r from the end of a run of
// words: a closing bracket or a mark after a date ("12 March 2005):",
// "12 March 2005 ·").
func dateTrail(r rune) bool {
	switch r {
	case ')', ']', ',', ';', ':', '|', '·', '–', '—', '-', '.':
		return true
	}
	return false
}

// runeMark is what dateIn knows of a rune offset in a text: where the
// rune starts, and the digits and the bytes other than digits and spaces
// before it.
type runeMark struct{ at, digits, other, wide int32 }

// maxDateBytes is the longest text isDate reads.
const maxDateBytes = 80

// isDate reports whether the dates package reads s as a date with a day,
// a month and a year: "Mar 14" is no date a feed can carry, and a year
// alone ("2023", which dates.Parse reads as 1 January, for webmasters who
// write one) or a number (a topic's views, "3382") is no item's date.
func (ch *chooser) isDate(s string) bool {
	if len(s) > maxDateBytes {
		return false
	}
	// Every date the dates package reads is at least a sixth digits ("3
	// September 2024"); most titles are not, and the test is cheaper than
	// a parse.
	digits, other := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c != ' ':
			other++
		}
	}
	if digits == 0 || 6*digits < digits+other {
		return false
	}
	return ch.readsDate(s)
}

// readsDate is isDate past its counts of s's digits and other bytes, for
// dateIn, which has them for every run of words it tries. A value
// dates.Parse reads as a whole year or month (dates.Partial: "2003-12")
// is refused, as mayBeDate refuses numbers alone.
//
// The texts parsed are kept with their verdict, and one kept is answered
// before dates.MayParse reads it: every text kept passed it, and most
// dates come again (a list's days), where most texts MayParse turns away
// do not (titles with two numbers).
func (ch *chooser) readsDate(s string) bool {
	if !mayBeDate(s) {
		return false
	}
	if ok, known := ch.dates[s]; known {
		return ok
	}
	if !dates.MayParse(s) {
		return false
	}
	_, ok := dates.Parse(s, ch.loc)
	ok = ok && !dates.Partial(s)
	if ch.dates == nil {
		ch.dates = map[string]bool{}
	}
	ch.dates[s] = ok
	return ok
}

// mayBeDate reports whether s may be a date the suggester takes: false
// only when it is not. Such a date has a day, a month and a year, and
// every layout dates.Parse reads one with has two numbers with something
// between them, read from runs of ASCII digits in s (rewritten,
// reordered, split off as a zone, never split in two). The forms Parse
// reads with a single number are a number alone ("2003", ISO 8601:2000's
// "031231"), which on a page is a count, a year or a code far more often
// than a day, and is never an item's date. So a text with one run of
// digits ("Budget 2024", a title with its number; a topic's views "3382")
// is no date, which Parse would find out only after trying every layout
// it has (each failure an error value): for such titles it was a sixth of
// a long list's suggestion. FuzzMayBeDate checks it against dates.Parse.
func mayBeDate(s string) bool {
	runs, inRun := 0, false
	for i := 0; i < len(s); i++ {
		digit := '0' <= s[i] && s[i] <= '9'
		if digit && !inRun {
			if runs++; runs == 2 {
				return true
			}
		}
		inRun = digit
	}
	return false
}

// readMorePhrases are the words of a link to the rest of a story ("read
// more"), lower-case, in the languages sites are commonly written in:
// never a title, and the link an item's link is likely to be. isReadMore
// and boilerplate both read them from here, so that a language added is
// added to both.
var readMorePhrases = []string{
	// English
	"read more", "more", "continue reading", "full story", "details", "more info", "learn more",
	"show notes", "permalink", "see more", "read the full story", "read full story", "keep reading",
	"read full article", "view more",
	// German, French
	"weiterlesen", "mehr", "mehr lesen", "mehr erfahren", "lire la suite", "suite", "lire plus", "en savoir plus",
	// Dutch
	"meer", "lees verder", "lees meer", "verder lezen",
	// Italian
	"leggi tutto", "leggi di più", "continua a leggere", "leggi l'articolo", "continua",
	// Spanish, Portuguese
	"leer más", "leer mas", "seguir leyendo", "ver más", "más", "leia mais", "ler mais", "continue lendo",
	"continuar a ler", "saiba mais", "mais",
	// Polish, Czech
	"czytaj dalej", "czytaj więcej", "więcej", "číst dále", "více",
	// Swedish, Norwegian, Danish
	"läs mer", "läs vidare", "mer", "les mer", "les videre", "læs mere", "læs videre", "mere",
	// Finnish
	"lue lisää", "lisää", "lue koko juttu", "jatka lukemista",
	// Russian
	"подробнее", "читать далее", "читать дальше", "далее", "ещё", "еще",
	// Turkish
	"devamını oku", "devamı", "devamını okuyun", "daha fazla",
	// Japanese
	"続きを読む", "続き", "もっと見る", "詳細", "詳しくはこちら",
	// Chinese
	"阅读全文", "閱讀全文", "阅读更多", "閱讀更多", "继续阅读", "繼續閱讀", "更多", "查看更多", "详细", "詳情", "详情",
	// Korean
	"더보기", "더 보기", "자세히 보기", "자세히", "계속 읽기",
}

// readMore is readMorePhrases as a set.
var readMore = phraseSet(readMorePhrases)

// readMorePrefixes are the read-more phrases of 9 bytes or more, by
// their first byte: those isReadMore finds at the start of a longer text.
var readMorePrefixes = func() (by [256][]string) {
	for _, p := range readMorePhrases {
		if len(p) >= 9 {
			by[p[0]] = append(by[p[0]], p)
		}
	}
	return by
}()

// boilerplate is link and label text that is never a title: the
// read-more phrases and these.
var boilerplate = phraseSet(readMorePhrases, []string{
	"link", "view", "here", "click here", "comments", "reply", "share", "download",
	"watch", "listen", "older posts", "newer posts", "next", "previous",
	"home", "download mp3", "leave a comment", "add to basket",
	"add to cart", "hide", "top", "back to top",
})

// phraseSet is the set of the phrases of every list.
func phraseSet(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			m[p] = true
		}
	}
	return m
}

func isBoilerplate(s string) bool {
	u := strings.Trim(s, " .…→»›>&;:!-–—|()[]")
	if f := asciiFields(u); f >= 0 && f != 2 && len(u) > longestBoilerplate {
		// ASCII (which lower-casing keeps the length of) longer than
		// every phrase, and not two words as "12 comments" is: most
		// titles, which need not be lower-cased (a copy) to know it.
		return false
	}
	var buf [longestBoilerplate + 1]byte
	var t string
	if f := asciiFields(u); f >= 0 && len(u) <= len(buf) {
		// Short ASCII, lower-cased into the stack: looked up without a
		// copy (strings.ToLower made one for each short title).
		for i := 0; i < len(u); i++ {
			c := u[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if boilerplate[string(buf[:len(u)])] {
			return true
		}
		if !bytes.Contains(buf[:len(u)], []byte("comment")) && !bytes.Contains(buf[:len(u)], []byte("repl")) {
			return false
		}
		t = string(buf[:len(u)])
	} else {
		t = strings.ToLower(u)
		if boilerplate[t] {
			return true
		}
	}
	// "12 comments", "No comments:", "1 Comment"
	if !strings.Contains(t, "comment") && !strings.Contains(t, "repl") {
		return false
	}
	if f := strings.Fields(t); len(f) == 2 && (strings.HasPrefix(f[1], "comment") || strings.HasPrefix(f[1], "repl")) {
		return true
	}
	return false
}

// longestBoilerplate is the length of the longest ASCII phrase of
// boilerplate ("read the full story"; TestLongestBoilerplate checks it):
// the others are not ASCII, which isBoilerplate lower-cases anyway.
const longestBoilerplate = 19

// asciiFields returns how many fields strings.Fields finds in s, or -1
// when s is not ASCII.
func asciiFields(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return -1
		}
		space := c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// isReadMore reports a link's text, lower-cased and trimmed, that is a
// read-more phrase, or begins with one of 9 bytes or more as a word of
// its own ("read more about the plan", "lees verder »").
func isReadMore(s string) bool {
	if readMore[s] {
		return true
	}
	if s == "" {
		return false
	}
	for _, p := range readMorePrefixes[s[0]] {
		if len(s) > len(p) && strings.HasPrefix(s, p) {
			if r, _ := utf8.DecodeRuneInString(s[len(p):]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// isNumberish reports text that is a number, a count or a short code: a
// rank, a page number, a price, a file size, two letters ("OK", "Re",
// "v2"). Two characters of a script written without spaces (Han, kana,
// Hangul: 通知, 港湾, 공지) are a word, not a code.
func isNumberish(s string) bool {
	letters, runes := 0, 0
	for _, r := range s {
		runes++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters == 0 || runes > 2 {
		return letters == 0
	}
	wide := 0
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			wide++
		}
	}
	return wide < 2
}

// releaseName reports whether s names a release by its version: a
// version (isVersion), bare or in brackets as Keep a Changelog writes it
// unlinked ("[4.2.1]"), alone or followed by the release's date
// ("4.2.1 - 2024-03-04", "[4.2.1] (2024-03-04)").
func (ch *chooser) releaseName(s string) bool {
	s = strings.TrimSpace(s)
	ver, rest, _ := strings.Cut(s, " ")
	if len(ver) > 2 && (ver[0] == '[' && ver[len(ver)-1] == ']' || ver[0] == '(' && ver[len(ver)-1] == ')') {
		ver = ver[1 : len(ver)-1]
	}
	if !isVersion(ver) {
		return false
	}
	return strings.Trim(rest, releaseSeparators) == "" || ch.isDateBeside(rest)
}

// releaseSeparators are what a release's name and its date are written
// apart with: "4.2.1 - 2024-03-04", "[4.2.1] (2024-03-04)".
const releaseSeparators = " -–—:,()[]"

// isDateBeside reports whether rest, the text beside a release's name,
// is its date once the separators around it are trimmed.
func (ch *chooser) isDateBeside(rest string) bool {
	rest = strings.Trim(rest, releaseSeparators)
	return rest != "" && ch.isDate(rest)
}

// linkAndDate reports whether the text of n, which holds one link, is
// that link's and a date beside it ("4.2.1 - 2024-03-04", "Version 4.2 –
// 4 March 2024", the link's text first or last).
func (ch *chooser) linkAndDate(n *node, text string) bool {
	var link *node
	walk(record{nodes: []*node{n}}, func(m *node) bool {
		if link == nil && m.tag() == "a" {
			link = m
		}
		return link == nil
	})
	if link == nil {
		return false
	}
	lt := ch.p.textOf(link)
	rest, ok := strings.CutPrefix(text, lt)
	if !ok {
		if rest, ok = strings.CutSuffix(text, lt); !ok {
			return false
		}
	}
	return ch.isDateBeside(rest)
}

// isVersion reports whether s is a release's version: digits with dots
// ("3.19.0", "2024.06", "1.0"), after an optional "v" and before an
// optional suffix that starts with '-', '+' or a letter ("1.0.0-rc.2",
// "2.1b3", "4.0+build.7"), without spaces. isNumberish calls most of
// them a number, which as a heading's or a link's text they are not.
func isVersion(s string) bool {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		s = s[1:]
	}
	dots, i := 0, 0
	for {
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false // no digits first
		}
		if i == len(s) || s[i] != '.' || i+1 == len(s) || !isDigit(s[i+1]) {
			break
		}
		dots++
		i++
	}
	if dots == 0 {
		return false
	}
	rest := s[i:]
	if rest == "" {
		return true
	}
	if c := rest[0]; c != '-' && c != '+' && !isASCIILetter(c) {
		return false
	}
	for j := 0; j < len(rest); j++ {
		if c := rest[j]; !isDigit(c) && !isASCIILetter(c) && !strings.ContainsRune(".-+", rune(c)) {
			return false
		}
	}
	return true
}
