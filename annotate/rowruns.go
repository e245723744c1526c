package annotate

import (
	"strconv"
	"strings"
)

// Records of several table rows (issue 19): a notices table whose row 1
// holds the date, the reference and the title link and row 2 a
// <td colspan> description; a tenders table whose row 1 is the title link
// and row 2 the date, category and office; a decisions table whose three
// rows end with a spacer row; a catalogue whose date cell spans the
// record's rows (rowspan). When the rows carry no class that tells a
// record's first row from the others (none, or odd/even on both rows of
// a record), runsOf, which keys runs by the elements' looks, finds no
// runs, and every row was an item: half of them without a link, or the
// title links of one column, without dates. rowRuns finds such records by
// the rows' shapes instead: their cells, and whether they hold a link and
// text.

// rowShapeKey keys a table row by what differs between the rows of one
// record and stays the same from record to record: its cells' tags and
// column spans, whether it holds a link and whether it holds text.
// Classes are left out: odd/even, row1/row2 mark records, not their
// rows' parts. A cell's rowspan is left out too: a catalogue record
// without its description row has no date cell spanning two rows, and
// it is a record all the same (the rows a rowspan covers have fewer
// cells).
//
// The fine key also says which cells hold text, and their rowspans: a
// header row of td cells ("Date", "Notice") has the shape of a
// description row whose first cell is blank, but not its fine shape. Heads are keyed coarsely first, so
// that a record with an empty reference cell still starts one, then
// finely, so that a description row holding a link (a PDF) and a blank
// first cell starts none where a head row is a date and a title link.
func rowShapeKey(tr *node, fine bool) uint64 {
	h := hashString("tr shape")
	mix := func(v int) {
		h ^= uint64(v)
		h *= 1099511628211
	}
	text := tr.tables().text
	for _, ch := range tr.children() {
		tag := ch.tag()
		if tag != "td" && tag != "th" {
			continue
		}
		raw := text[ch.start:ch.open]
		mix(int(tag[1]))
		mix(colspan(raw))
		if fine {
			mix(spanOf(raw, "rowspan"))
			mix(b2i(ch.textBytes > 0))
		}
	}
	mix(b2i(tr.links > 0))
	mix(b2i(tr.textBytes > 0))
	return h
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxRowRun is the most rows a record of rowRuns holds.
const maxRowRun = 3

// rowRuns returns the ways to cut a table's rows (p's children, rows
// only) into records of k consecutive rows each, k from 2 to maxRowRun.
// A record starts at a row of a head shape and takes the rows up to the
// next row of that shape. A head shape is the shape of one of the first
// rows (past blank rows), tried while the first oddPeel+1 shapes last
// (a header row, a pager), and taken when all of these hold:
//
//   - two rows or more have it, half the gaps between them or more hold
//     k-1 rows, k from 2 to maxRowRun (the median gap), and none more
//     than maxRowRun-1: a table of one row an item has no gaps, and a
//     record may lack a row (a notice without its description);
//   - no record holds two rows of one coarse shape each with 12 bytes of
//     link text or more (a title; a "PDF" link in a description is
//     none): rows that group
//     a varying number of items (a day's heading row over one or two)
//     are no records of one item;
//   - no row before the first head (blank rows aside) has a fine shape
//     that the gaps hold: a head shape that starts one row into each
//     record leaves the first record's head row before it.
//
// The last record takes at most k rows, of the shapes the gaps hold, so
// that a footer row stays out. A header row of the shape of the records'
// second row (a legacy table's header of td cells, the shape of its
// description rows) may make a second cut, each record from its second
// row to the next one's first: scoring chooses ("runs that start with
// text before their title").
func rowRuns(p *node) [][]record {
	kids := p.children()
	var rows []int
	for i, ch := range kids {
		if !ch.recordable() {
			continue
		}
		if ch.tag() != "tr" {
			return nil
		}
		rows = append(rows, i)
	}
	if len(rows) < 2*minRecords {
		return nil
	}
	shapes, fine := make([]uint64, len(rows)), make([]uint64, len(rows))
	for j, i := range rows {
		shapes[j], fine[j] = rowShapeKey(kids[i], false), rowShapeKey(kids[i], true)
	}
	var out [][]record
	tried := 0
	for first := 0; first < len(rows) && tried <= oddPeel; first++ {
		if kids[rows[first]].textBytes == 0 || shapeBefore(shapes[:first], shapes[first]) {
			continue // a blank row; a shape tried already
		}
		tried++
		// Cut at the heads of the coarse shape and of the fine one,
		// the more regular cut is kept, the coarse one when they are as
		// regular.
		recs, regular := rowRunsFrom(kids, rows, shapes, shapes, fine, first)
		if fineRecs, fineRegular := rowRunsFrom(kids, rows, fine, shapes, fine, first); fineRegular > regular {
			recs = fineRecs
		}
		if recs != nil {
			out = append(out, recs)
		}
	}
	return out
}

// titled reports whether a row's links hold text enough for a title.
func titled(tr *node) bool { return tr.linkTextBytes >= 12 }

// shapeBefore reports whether the shape s is among shapes.
func shapeBefore(shapes []uint64, s uint64) bool {
	for _, t := range shapes {
		if t == s {
			return true
		}
	}
	return false
}

// rowRunsFrom returns the records that start at the rows of the shape of
// rows[first] (shapes: the rows' coarse or fine shapes), when they make
// records of rowRuns' kind, and the share of the gaps between their
// heads that hold k-1 rows; nil otherwise. Two rows of a record that
// hold a title's link are two items when their coarse shapes agree,
// whichever cut.
func rowRunsFrom(kids []*node, rows []int, shapes, coarse, fine []uint64, first int) ([]record, float64) {
	head := shapes[first]
	var heads []int // in rows
	for j := first; j < len(rows); j++ {
		if shapes[j] == head {
			heads = append(heads, j)
		}
	}
	if len(heads) < minRecords {
		return nil, 0
	}
	gaps := make([]int, 0, len(heads)-1)
	inGaps, fineInGaps := map[uint64]bool{}, map[uint64]bool{}
	for j := 0; j+1 < len(heads); j++ {
		gaps = append(gaps, heads[j+1]-heads[j]-1)
		for g := heads[j] + 1; g < heads[j+1]; g++ {
			inGaps[shapes[g]], fineInGaps[fine[g]] = true, true
		}
	}
	k := median(gaps) + 1
	if k < 2 || k > maxRowRun {
		return nil, 0
	}
	regular := 0
	for _, g := range gaps {
		if g >= maxRowRun {
			return nil, 0
		}
		if g == k-1 {
			regular++
		}
	}
	if 2*regular < len(gaps) {
		return nil, 0
	}
	for j := 0; j < first; j++ {
		if kids[rows[j]].textBytes > 0 && fineInGaps[fine[j]] {
			return nil, 0
		}
	}
	recs := make([]record, 0, len(heads))
	for h, j := range heads {
		var last int // the record's last row, in rows
		if h+1 < len(heads) {
			last = heads[h+1] - 1
		} else {
			last = j
			for last+1 < len(rows) && last+1-j < k && inGaps[shapes[last+1]] {
				last++
			}
		}
		for a := j; a < last; a++ {
			for b := a + 1; b <= last; b++ {
				if coarse[a] == coarse[b] && titled(kids[rows[a]]) && titled(kids[rows[b]]) {
					return nil, 0 // two rows of one shape with titles: two items
				}
			}
		}
		recs = append(recs, record{nodes: kids[rows[j] : rows[last]+1 : rows[last]+1]})
	}
	return recs, float64(regular) / float64(len(gaps))
}

// periodicSteps writes steps that select the heads of records of a few
// sibling rows of one look (rowRuns), which their tag and classes do
// not tell from the rows after them: every k-th of their tag among
// their parent's children, from the first head (`tr[position() mod 2 =
// 1]`, bounded when rows of that place stand before the first head or
// after the last one in a list of one parent), when the heads stand so;
// then those holding a link, those holding none, and those of the first
// head's shape, coarse or fine (rowShapeXPath), which hold where a
// record lacks a row. itemXPath tries each in turn and keeps the first
// that selects the heads and nothing else.
func periodicSteps(step string, records []record) []string {
	if len(records) < minRecords || records[0].head().tag() != "tr" {
		return nil
	}
	head := records[0].head()
	out := []string{step + "[.//a[@href]]", step + "[not(.//a[@href])]", step + rowShapeXPath(head, false), step + rowShapeXPath(head, true)}
	place := func(n *node) (pos, of int) {
		for _, c := range n.parent().children() {
			if !c.isText() && c.tag() == n.tag() {
				of++
				if c.start <= n.start {
					pos = of
				}
			}
		}
		return pos, of
	}
	first, _ := place(head)
	second, _ := place(records[1].head())
	k := second - first
	if k < 2 || k > maxRowRun || head.parent() != records[1].head().parent() {
		return out
	}
	parent := head.parent()
	lo, hi, of := first, first, 0
	for _, r := range records {
		pos, n := place(r.head())
		if pos%k != first%k {
			return out
		}
		if r.head().parent() == parent {
			lo, hi, of = min(lo, pos), max(hi, pos), n
		} else {
			parent = nil // across parents: positions alone
		}
	}
	cond := "position() mod " + strconv.Itoa(k) + " = " + strconv.Itoa(first%k)
	periodic := []string{step + "[" + cond + "]"}
	if parent != nil {
		bounded := cond
		if lo > k {
			bounded += " and position() >= " + strconv.Itoa(lo)
		}
		if hi+k <= of {
			bounded += " and position() <= " + strconv.Itoa(hi)
		}
		if bounded != cond {
			periodic = append(periodic, step+"["+bounded+"]")
		}
	}
	return append(periodic, out...)
}

// rowShapeXPath writes predicates that hold for the table rows of tr's
// shape (rowShapeKey, coarse or fine): their number of cells, the
// column spans, whether they hold a link, and for the fine shape which
// cells hold text (a no-break space is none, as the tree counts it).
func rowShapeXPath(tr *node, fine bool) string {
	text := tr.tables().text
	var b strings.Builder
	cells := 0
	for _, ch := range tr.children() {
		tag := ch.tag()
		if tag != "td" && tag != "th" {
			continue
		}
		cells++
		cell := "*[self::td or self::th][" + strconv.Itoa(cells) + "]"
		if c := colspan(text[ch.start:ch.open]); c > 1 {
			b.WriteString("[" + cell + "[@colspan = " + strconv.Itoa(c) + "]]")
		}
		if fine {
			blank := "normalize-space(translate(., '\u00a0', ' '))"
			if ch.textBytes > 0 {
				b.WriteString("[" + cell + "[" + blank + " != '']]")
			} else {
				b.WriteString("[" + cell + "[" + blank + " = '']]")
			}
		}
	}
	link := "[.//a[@href]]"
	if tr.links == 0 {
		link = "[not(.//a[@href])]"
	}
	return "[count(td | th) = " + strconv.Itoa(cells) + "]" + b.String() + link
}
