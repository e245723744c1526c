package annotate

import (
	"slices"
	"strconv"
	"strings"
)

// Odd rows at a list's ends (issue 19): a table whose first row is a
// pager (`<td colspan="3">Pages: <a>1</a> <a>2</a> … Next »</td>`), a
// line of letters A–Z, or a row of links to sort by (`<td><a
// href="?sort=title">Title</a></td><td><a href="?sort=date">Date</a></td>`),
// above rows that are the items, was taken as item 1 when neither it
// nor the items have classes: strayRecords tells records apart by their
// classes, and these have none. oddRecords tells them apart by their
// shape.

// oddPeel bounds the rows looked at from each end of a list: a pager
// and a row of sort links, at most.
const oddPeel = 2

// oddSample bounds the rows that say what the list's items are like,
// as the fields are voted on their first 40 records.
const oddSample = 40

// oddRecords drops from a candidate of elements the records of a line
// of navigation at its start or end, not an item: up to two at each end,
// past any without a link (a header row, which the fields leave out).
// It judges the records' rows: the elements under the ancestor that
// holds them all, which are the records themselves in a list of one
// parent, and the table's rows for the links of a column, one in each
// cell (a row of sort links gives three records there). A row is such a
// line when all of these hold:
//
//   - it is made of short links: two or more, none with more than 20
//     bytes of text, and beside them at most 12 bytes of other text and
//     two a link ("Pages:", " | ");
//   - the items' rows are not: their median text per link is at least
//     twice its own (a title against "1", "A", "Date"), or their median
//     text outside links (a date, a description) is at least twice its
//     own and 8 bytes more;
//   - its shape is not theirs (most of the first 40): twice their usual
//     number of links or more; for a table row, another number of
//     cells, a cell spanning columns (colspan) where the rows have
//     none, header cells (th) where they have data cells, or a link in
//     a column where fewer than a quarter of them have one (a sort link
//     above the dates); for another element, elements not kindred to
//     their most common shape (kindred).
//
// A real item fails one of these: the first item without its date has
// the items' cells and links; a featured one has more text beside its
// links; one with a short title has one link, or the cells and links
// of the others; an item with the items' title link and date at their
// places (datedTitles) is one, whatever it lacks. What it does not see: a line of a single link ("Next
// »" alone), one among the items rather than at an end, and, in a list
// across parents, the ends of each parent's list but the first and
// last (docs/ANNOTATE.md). The rows left out must be fewer than the
// items' rows sampled.
func (c *candidate) oddRecords() {
	if c.kind != "elements" || len(c.records) <= minRecords || c.valid < minRecords {
		return
	}
	top := commonAncestor(c.records[0].nodes[0], c.records[len(c.records)-1].nodes[0])
	if top == nil {
		return
	}
	rowOf := func(i int) *node { return rowUnder(c.records[i].nodes[0], top) }
	// The rows that may be odd, from each end: the first rows that may
	// hold an item, while they are made of short links. Most lists
	// stop at their first record.
	type row struct {
		n        *node
		from, to int // its records
	}
	var heads, tails []row
	i := 0
	for i < len(c.records) && len(heads) < oddPeel {
		r := row{n: rowOf(i), from: i}
		for r.to = i + 1; r.to < len(c.records) && rowOf(r.to) == r.n; r.to++ {
		}
		if mayBeItem(r.n) {
			if !shortLinks(r.n) {
				break
			}
			heads = append(heads, r)
		}
		i = r.to
	}
	for j := len(c.records) - 1; j >= i && len(tails) < oddPeel; {
		r := row{n: rowOf(j), to: j + 1}
		for r.from = j; r.from > i && rowOf(r.from-1) == r.n; r.from-- {
		}
		if mayBeItem(r.n) {
			if !shortLinks(r.n) {
				break
			}
			tails = append(tails, r)
		}
		j = r.from - 1
	}
	if len(heads) == 0 && len(tails) == 0 {
		return
	}
	// The items' rows, sampled between those.
	lo, hi := 0, len(c.records)
	if len(heads) > 0 {
		lo = heads[len(heads)-1].to
	}
	if len(tails) > 0 {
		hi = tails[len(tails)-1].from
	}
	var rows []*node
	for k := lo; k < hi && len(rows) < oddSample; k++ {
		if n := rowOf(k); mayBeItem(n) && (len(rows) == 0 || rows[len(rows)-1] != n) {
			rows = append(rows, n)
		}
	}
	u := usualOf(rows)
	var dated *datedTitles // read only when a row would be left out
	oddOne := func(r row) bool {
		if !u.oddOne(r.n) {
			return false
		}
		if r.to-r.from > 1 {
			return true
		}
		// A record with the items' title link and date at their
		// places is an item without some part (a picture, a text).
		if dated == nil {
			dated = datedTitlesOf(c.records[lo:hi], func(record) bool { return true })
		}
		return !dated.has(c.records[r.from])
	}
	var odd []row
	for _, r := range heads {
		if !oddOne(r) {
			break // an item: those after it are items too
		}
		odd = append(odd, r)
	}
	first := len(odd)
	for _, r := range tails {
		if !oddOne(r) {
			break
		}
		odd = append(odd, r)
	}
	slices.Reverse(odd[first:])
	if len(odd) == 0 || len(odd) >= len(rows) || len(rows) < minRecords {
		return
	}
	var strays []*node
	for _, r := range odd {
		for k := r.from; k < r.to; k++ {
			strays = append(strays, c.records[k].nodes[0])
		}
	}
	c.leaveOut(strays)
}

// commonAncestor returns the deepest element holding both a and b (nil
// when none, or when it is the tree's root).
func commonAncestor(a, b *node) *node {
	for a.depth > b.depth {
		a = a.parent()
	}
	for b.depth > a.depth {
		b = b.parent()
	}
	for a != b {
		a, b = a.parent(), b.parent()
	}
	if a == b && a != nil && a.up >= 0 && a.tag() != "#root" {
		return a
	}
	return nil
}

// rowUnder returns n's ancestor (or n) whose parent is top.
func rowUnder(n, top *node) *node {
	for n.up >= 0 && n.parent() != top {
		n = n.parent()
	}
	return n
}

// mayBeItem reports whether a record's node has what an item needs, a
// link and text, as sumsOf counts it.
func mayBeItem(n *node) bool { return n.links > 0 && n.textBytes >= 3 }

// shortLinks reports whether a record is made of short links: two or
// more, none with more than 20 bytes of text, and beside them at most
// 12 bytes of other text and two a link. Its counts say it for most
// records; only one that passes them has its links' texts read.
func shortLinks(n *node) bool {
	links, plain := int(n.links), int(n.textBytes-n.linkTextBytes)
	if links < 2 || plain > 12+2*links || int(n.linkTextBytes) > 20*links {
		return false
	}
	long := false
	walkUntil(record{nodes: []*node{n}}, func(m *node) (bool, bool) {
		if m.tag() == "a" && m.href() != "" {
			long = m.textBytes > 20
			return false, long
		}
		return m.links > 0, false // a subtree without a link holds none
	})
	return !long
}

// usualRecord is what the items' rows of a list are like: medians and
// the most common shapes of a sample of rows that may be items.
type usualRecord struct {
	n int // rows sampled
	// links, perLink and plain are the medians of the rows' links,
	// their text per link, and their text outside links.
	links, perLink, plain int
	shape                 map[string]int // the most common shape's tags (shapeBag)
	// Of table rows (rows: how many of the sample are rows): the most
	// common number of cells, how many rows have a cell spanning
	// columns, how many have header cells only, and how many have a
	// link in each column.
	rows, cells, spans, headers int
	linkIn                      []int
}

// usualOf reads what the rows of a list's items are like.
func usualOf(rows []*node) usualRecord {
	var u usualRecord
	var links, perLink, plain []int
	var sh shapeTable
	var shapes shapeCounter
	cellCounts := map[int]int{}
	for k, n := range rows {
		u.n++
		links = append(links, int(n.links))
		perLink = append(perLink, int(n.linkTextBytes/n.links))
		plain = append(plain, int(n.textBytes-n.linkTextBytes))
		shapes.add(sh.of(record{nodes: rows[k : k+1]}))
		if n.tag() == "tr" {
			u.rows++
			cs := cellsOf(n)
			cellCounts[cs.cells]++
			if cs.span {
				u.spans++
			}
			if cs.headers {
				u.headers++
			}
			for len(u.linkIn) < len(cs.linkIn) {
				u.linkIn = append(u.linkIn, 0)
			}
			for k, in := range cs.linkIn {
				if in {
					u.linkIn[k]++
				}
			}
		}
	}
	u.links, u.perLink, u.plain = median(links), median(perLink), median(plain)
	if u.n > 0 {
		u.shape = shapeBag(sh.text(shapes.mostCommon()), false)
	}
	top := 0
	for k, m := range cellCounts {
		if m > top || m == top && k < u.cells {
			u.cells, top = k, m
		}
	}
	return u
}

// oddOne reports whether n, a record made of short links, is no item of
// a list whose items are like u (oddRecords gives the rule).
func (u usualRecord) oddOne(n *node) bool {
	links, plain := int(n.links), int(n.textBytes-n.linkTextBytes)
	perLink := int(n.linkTextBytes / n.links)
	if u.perLink < 2*perLink && u.plain < 2*plain+8 {
		return false // the items are made of short links too
	}
	if u.links > 0 && links >= 2*u.links {
		return true // a line of page numbers or letters beside a title link
	}
	if n.tag() != "tr" || u.rows*2 <= u.n {
		var sh shapeTable
		return !kindred(shapeBag(sh.text(sh.of(record{nodes: []*node{n}})), false), u.shape)
	}
	cs := cellsOf(n)
	if cs.cells != u.cells || cs.span && 2*u.spans < u.rows || cs.headers && 2*u.headers < u.rows {
		return true
	}
	for k, in := range cs.linkIn {
		if in && (k >= len(u.linkIn) || 4*u.linkIn[k] < u.rows) {
			return true // a link where the rows have none: a sort link above the dates
		}
	}
	return false
}

// rowCells is what oddOne reads of a table row's cells.
type rowCells struct {
	cells   int
	span    bool   // a cell spans columns
	headers bool   // every cell is a header cell (th)
	linkIn  []bool // whether each cell holds a link
}

// cellsOf reads a table row's cells (its td and th children).
func cellsOf(tr *node) rowCells {
	cs := rowCells{headers: true}
	text := tr.tables().text
	for _, ch := range tr.children() {
		tag := ch.tag()
		if tag != "td" && tag != "th" {
			continue
		}
		cs.cells++
		cs.headers = cs.headers && tag == "th"
		cs.linkIn = append(cs.linkIn, ch.links > 0)
		if colspan(text[ch.start:ch.open]) > 1 {
			cs.span = true
		}
	}
	cs.headers = cs.headers && cs.cells > 0
	return cs
}

// colspan returns the colspan a cell's start tag gives (1 when none or
// unreadable): `<td colspan="3">`, `<TD COLSPAN=3>`.
func colspan(tag string) int { return spanOf(tag, "colspan") }

// spanOf returns the span a cell's start tag gives by the attribute
// named (colspan, rowspan; lower-case): 1 when none or unreadable.
func spanOf(tag, name string) int {
	at := strings.Index(strings.ToLower(tag), name)
	if at < 0 {
		return 1
	}
	rest := strings.TrimLeft(tag[at+len(name):], " \t\r\n\f")
	rest, ok := strings.CutPrefix(rest, "=")
	if !ok {
		return 1
	}
	rest = strings.TrimLeft(rest, " \t\r\n\f\"'")
	v := 0
	for k := 0; k < len(rest) && rest[k] >= '0' && rest[k] <= '9' && v < 1000; k++ {
		v = 10*v + int(rest[k]-'0')
	}
	return max(v, 1)
}

// notPositions writes a predicate that leaves out the nodes by their
// places among their parent's children of their tag, counted from the
// first or, nearer the end, from the last: `[position() != 1 and
// position() != last()]` for a pager row above a table's rows and one
// below. One predicate, as a second would count among what the first
// kept. It is for lists of any length (the identity notAny writes is
// walked again for every node tested); "" when the nodes are not all
// children of one parent, or more than a few. The selectors it gives
// are checked against the records, as every other step.
func notPositions(nodes []*node) string {
	if len(nodes) == 0 || len(nodes) > 2*oddPeel {
		return ""
	}
	parent := nodes[0].parent()
	var conds []string
	for _, n := range nodes {
		if n.parent() != parent || parent == nil {
			return ""
		}
		before, after, seen := 0, 0, false
		for _, ch := range parent.children() {
			switch {
			case ch == n:
				seen = true
			case ch.isText() || ch.tag() != n.tag():
			case seen:
				after++
			default:
				before++
			}
		}
		if before <= after {
			conds = append(conds, "position() != "+strconv.Itoa(before+1))
		} else if after == 0 {
			conds = append(conds, "position() != last()")
		} else {
			conds = append(conds, "position() != last() - "+strconv.Itoa(after))
		}
	}
	return "[" + strings.Join(conds, " and ") + "]"
}
