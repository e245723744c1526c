// Package annotate suggests the annotations of a page that has none: it
// finds the repeated structure that holds the page's items (a list, a
// table, a grid of cards, a definition list, the nested tables of a legacy
// layout), chooses each item's title, link, description and date, and
// inserts the annotations as comments. Every byte of the page outside the
// inserted comments is left as it was, so the webmaster can diff the
// result and deploy it; the wrapper (package wrapper) reads the result's
// items back.
//
// The suggester reads the page once into a tree with byte offsets, scores
// every structure whose records repeat (cheaply from subtree counts, then
// closely for the best few), and chooses each field at the place in the
// record that most records agree on, so that one choice holds for the
// whole list. docs/ANNOTATE.md says how, and what it cannot do.
package annotate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo/values"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// Options says where the page came from.
type Options struct {
	// URL is the page's URL; links resolve against it when the result is
	// read back.
	URL string
	// ContentType is the HTTP Content-Type, whose charset decides how the
	// page is read.
	ContentType string
	// Location is the zone of dates written without one; nil means UTC.
	Location *time.Location
	// RSSID and Now are the resource's rssId and timestamp (zero: now),
	// for Follow, whose result is stored.
	RSSID string
	Now   time.Time
	// MaxBytes, when positive, is the most the annotated page may have
	// (dynamo.MaxAnnotatedPageBytes, what Dynamo reads of a page): the
	// items' dates, then their descriptions, are left out, with a note,
	// until it fits, and Suggest fails (dynamo.ErrPageTooLarge) when
	// their titles and links alone do not.
	MaxBytes int
}

// Result is the annotated page and what the suggester found.
type Result struct {
	// Page is the page with the annotations inserted.
	Page []byte
	// Inserted are the inserted comments' places in Page, in order;
	// RemoveInserted(Page, Inserted) is the page as given.
	Inserted []Range
	// List is the structure annotated; Others are the other candidates,
	// best first, each with why it lost.
	List   Structure
	Others []Structure
	// Channel says how the channel's title and description were chosen.
	Channel []string
	// Notes are what the webmaster should know: several lists on the page,
	// records left out, fields found in only some items.
	Notes []string

	raw  []byte
	opts Options
	best *candidate
	page *page

	wrapOnce sync.Once
	wrapped  *wrapper.Result
}

// Wrapped returns Page as the wrapper reads it: the items it gives. It is
// read on the first call rather than by Suggest, as neither the CLI nor
// the playground (which wraps the page it shows itself) needs it, and on
// a long page it costs a third of the suggestion.
func (r *Result) Wrapped() *wrapper.Result {
	r.wrapOnce.Do(func() {
		loc := r.opts.Location
		if loc == nil {
			loc = time.UTC
		}
		r.wrapped = wrapper.Wrap(r.Page, wrapper.Options{URL: r.opts.URL, ContentType: r.opts.ContentType, Location: loc, RSSID: "annotate"})
	})
	return r.wrapped
}

// Structure describes a candidate structure for --explain.
type Structure struct {
	Path    string  // where its records are, as a CSS-like path
	Records int     // the records with a link and text
	Score   float64 // higher is likelier to be the list of items
	Factors []Factor
	// The places chosen for each field, as paths from the record's top
	// (empty when not chosen or not found); for the annotated list only.
	Title, Link, Description, Date string
	Why                            string // for the others: why they lost
}

// Factor is one reason for a score.
type Factor struct {
	Name  string
	Value float64
}

// ErrNoList is returned for a page in which no repeated structure with
// links was found.
var ErrNoList = errors.New("no list of items found: no structure repeats with a link and text in each record")

// maxDetailed bounds the candidates looked at closely, and maxChosen those
// whose fields are chosen to decide between them.
// sampleRecords bounds the records whose fields are chosen to compare
// candidates.
const (
	maxDetailed   = 12
	maxChosen     = 4
	sampleRecords = 200
)

// Suggest annotates page. It fails only when the page holds no list of
// items, is in an encoding that cannot be edited in place, or would not
// fit in opts.MaxBytes with its items' titles and links alone.
func Suggest(raw []byte, opts Options) (*Result, error) {
	p, err := newPage(raw, opts.ContentType)
	if err != nil {
		return nil, err
	}
	loc := opts.Location
	if loc == nil {
		loc = time.UTC
	}
	t := p.tree(func(body string) []existingTag { return wrapper.CommentTags(body) }, false)
	found := findCandidates(t)
	// A candidate that scores nothing here never scores anything: every
	// later factor multiplies, and every later step stops at the first
	// candidate that scores nothing. Dropping those keeps the others in
	// their order, and spares sorting them.
	cands := found[:0]
	for _, c := range found {
		if c.prescore(); c.score > 0 {
			cands = append(cands, c)
		}
	}
	clear(found[len(cands):])
	sortCandidates(cands)
	top := cands[:min(len(cands), maxDetailed)]
	var counted detailCounter
	for _, c := range top {
		c.strayGroups()
		c.strayRecords()
		c.detailScore(&counted)
	}
	repeatsLinksOf(top)
	resortCandidates(cands, len(top))
	ch := &chooser{p: p, loc: loc, maxBytes: opts.MaxBytes, annotated: len(t.comments) > 0}
	for i := 0; i < len(cands) && i < maxChosen; i++ {
		c := cands[i]
		if c.score == 0 {
			break
		}
		c.fields = ch.choose(c, sampleRecords)
		c.fieldScore(p)
	}
	resortCandidates(cands, maxChosen)
	ch.chooseRisen(cands)
	// The best of those whose fields were chosen: one that was not may
	// now score above those that lost points for their fields.
	var best *candidate
	for i, c := range cands {
		if c.fields != nil && c.score > 0 && len(c.fields.items) >= minRecords {
			best = c
			cands[0], cands[i] = cands[i], cands[0]
			break
		}
	}
	if best == nil {
		return nil, ErrNoList
	}
	if best.fields.sampled {
		best.fields = ch.choose(best, 0)
	}
	chList := best // what channelSpans keeps the channel's fields out of
	if feat := ch.featuredItems(best); len(feat) > 0 {
		withFeat := *best
		for _, it := range feat {
			best.featured = append(best.featured, it.rec.head())
			withFeat.records = append(withFeat.records, it.rec)
		}
		chList = &withFeat
		best.fields.items = mergeFeatured(best.fields.items, feat)
	}
	res := &Result{List: structureOf(best, true), raw: raw, opts: opts, best: best, page: p}
	ex := existingAnnotations(t)
	g := ch.pageGuard()
	spans, notes := itemSpans(best.fields, ex, g)
	res.Notes = append(res.Notes, notes...)
	if len(best.featured) > 0 {
		res.Notes = append(res.Notes, featuredNote(p, best))
	}
	chSpans, chNotes := channelSpans(p, t, chList, ex, g)
	spans = append(spans, chSpans...)
	res.Channel = chNotes
	if len(best.fields.items) < minRecords {
		return nil, fmt.Errorf("%w (%s)", ErrNoList, strings.Join(notes, "; "))
	}
	res.List = structureOf(best, true)
	for i := range spans {
		spans[i].seq = int32(i)
	}
	var fitNotes []string
	compact := false
	if opts.MaxBytes > 0 {
		var err error
		if spans, compact, fitNotes, err = fit(p, spans, opts.MaxBytes); err != nil {
			return nil, err
		}
	}
	res.Page, res.Inserted = insert(p, spans, compact)
	res.Others, res.Notes = others(best, cands, res.Notes)
	if n := len(best.strayRecs); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d elements among the list's records (%s), of their tag but not of their classes or shape, were left out (a top bar, a footer?)", n, strayLines(p, best.strayRecs)))
	}
	res.Notes = append(res.Notes, fieldNotes(best.fields)...)
	res.Notes = append(res.Notes, fitNotes...)
	return res, nil
}

type existingTag = wrapper.CommentTag

// chooseRisen chooses the fields of a candidate that now ranks first
// though its fields were not chosen, as many as maxChosen times: those
// chosen may have lost points for their fields (the same title in many
// records: a changelog cut at its "Added" and "Fixed" subheadings) and
// fallen below one that was not looked at, such as the same page cut at
// its releases' headings. Without it, that one was passed over for the
// best of those looked at, whatever their new scores.
func (ch *chooser) chooseRisen(cands []*candidate) {
	for range 2 * maxChosen {
		i := slices.IndexFunc(cands, func(c *candidate) bool { return c.score > 0 })
		if i < 0 || cands[i].fields != nil {
			return
		}
		c := cands[i]
		c.fields = ch.choose(c, sampleRecords)
		c.fieldScore(ch.p)
		copy(cands[1:i+1], cands[:i])
		cands[0] = c
		resortCandidates(cands, 1)
	}
}

// sortCandidates orders candidates best first, those that score alike in
// the order they were found (the order of c). It sorts the scores beside
// their places rather than the candidates: a page of many rows has tens of
// thousands, and a comparison that reads two of them waits for memory
// twice.
func sortCandidates(c []*candidate) {
	type scored struct {
		score float64
		at    int
	}
	keys := make([]scored, len(c))
	for i, x := range c {
		keys[i] = scored{x.score, i}
	}
	slices.SortFunc(keys, func(a, b scored) int {
		if by := byScore(a.score, b.score); by != 0 {
			return by
		}
		return cmp.Compare(a.at, b.at)
	})
	sorted := make([]*candidate, len(c))
	for i, k := range keys {
		sorted[i] = c[k.at]
	}
	copy(c, sorted)
}

// byScore compares two scores, the higher first.
func byScore(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// resortCandidates restores the order sortCandidates gives after the
// scores of c[:k] changed and the others did not: the first k sorted
// among themselves, then merged with the rest, already in order, the first
// k first among equal scores. As sorting all of c again would, but it
// reads only those the first k pass on their way down.
func resortCandidates(c []*candidate, k int) {
	k = min(k, len(c))
	slices.SortStableFunc(c[:k], func(a, b *candidate) int { return byScore(a.score, b.score) })
	head := slices.Clone(c[:k])
	// o, where the next goes, stays below j while head is not empty: the
	// rest moves up only into places head left.
	for i, j, o := 0, k, 0; i < len(head); o++ {
		if j < len(c) && c[j].score > head[i].score {
			c[o] = c[j]
			j++
		} else {
			c[o] = head[i]
			i++
		}
	}
}

// fieldScore weighs a candidate by how many of its records got a title and
// a link, and by whether the titles differ.
func (c *candidate) fieldScore(p *page) {
	fc := c.fields
	if len(fc.items) < minRecords {
		c.rejected = "fewer than two records have a title"
		c.mul("no titles found", 0)
		return
	}
	linked, titles := 0, map[string]bool{}
	for _, it := range fc.items {
		if it.link != nil {
			linked++
		}
		titles[it.titleText] = true
	}
	n := float64(c.valid)
	if fc.sampled {
		// Only the first records were read: the share is of those that
		// may be items among them (of all, it made a long list's records
		// look unlinked, the more so the more records it cut them into).
		n = float64(sumsOf(c.records[:sampleRecords]).valid)
	}
	complete := float64(linked) / max(n, float64(len(fc.items)))
	c.mul("records with a title and a link", 0.4+0.6*complete)
	d := float64(len(titles)) / float64(len(fc.items))
	if d < 0.7 {
		d = max(d, datedShare(p, fc))
	}
	if d < 0.7 {
		c.mul("the same title in many records", d)
	}
	if c.kind == "runs" {
		late := 0
		for _, it := range fc.items {
			head := it.rec.head()
			// A run should start with its item: its title, or a short
			// line such as a date. A run that starts with a paragraph and
			// finds its title further on starts inside an item.
			if !isAncestor(head, it.title) && head.textBytes >= 25 {
				late++
			}
		}
		if 2*late > len(fc.items) {
			c.mul("runs that start with text before their title (each starts inside an item)", 0.5)
		}
	}
}

// datedShare is the share of items told apart by their title and date
// (as written) together, when each item links to a page of its own (at
// least 90 % distinct targets among the items): 0 otherwise. A table
// of a council's documents repeats a few titles ("Regular Council
// Meeting Minutes") over hundreds of rows, each row its own document
// and meeting date, and is a list of items; titles that repeat without
// a date to tell them apart (a call to action under each post, "Leave a
// reply") are not the items' titles. The same-title penalty counts
// these pairs: counting titles alone, it fell as 1/n with a few titles
// over n rows, until the rows lost to their own cells.
func datedShare(p *page, fc *fieldChoice) float64 {
	hrefs := make(map[string]bool, len(fc.items))
	pairs := make(map[string]bool, len(fc.items))
	for _, it := range fc.items {
		if it.link != nil {
			hrefs[strings.TrimSpace(it.link.href())] = true
		}
		if it.dateAt != nil && it.dateEnd > it.dateStart {
			pairs[it.titleText+"\x00"+p.text[it.dateStart:it.dateEnd]] = true
		}
	}
	n := float64(len(fc.items))
	if float64(len(hrefs)) < 0.9*n {
		return 0
	}
	return float64(len(pairs)) / n
}

// structureOf describes a candidate.
func structureOf(c *candidate, chosen bool) Structure {
	s := Structure{Path: c.describe(), Records: c.valid, Score: round2(c.score)}
	for _, f := range c.factors {
		s.Factors = append(s.Factors, Factor{f.name, round2(f.value)})
	}
	if chosen && c.fields != nil {
		s.Records = len(c.fields.items)
		s.Title, s.Link = placeText(c.fields.titleKey), placeText(c.fields.linkKey)
		s.Description, s.Date = placeText(c.fields.descKey), placeText(c.fields.date)
	}
	return s
}

// placeText writes a field's place for people: "li > a", "dd (2nd) >
// text".
func placeText(key string) string {
	if key == "" {
		return ""
	}
	steps := strings.Split(key, " > ")
	for i, st := range steps {
		name, occ, found := strings.Cut(st, "@")
		if name == "#text" {
			name = "text"
		}
		if found && occ != "0" {
			n, _ := strconv.Atoi(occ)
			name += " (" + ordinal(n+1) + ")"
		}
		steps[i] = name
	}
	return strings.Join(steps, " > ")
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

// others describes the candidates that lost, and notes the lists that are
// not part of the one chosen (a page's other lists: a sidebar, a menu).
func others(best *candidate, cands []*candidate, notes []string) ([]Structure, []string) {
	var out []Structure
	seen := map[string]bool{best.describe(): true}
	var lists []string
	var buf, last []byte // last: the description of the candidate before
	for _, c := range cands[1:] {
		if c.score == 0 || len(out) >= 8 {
			break
		}
		// Described into buf first: of the many described alike, only the
		// first keeps its description. Those alike mostly come in a row
		// (a cell of each of 50,000 rows): one described as the one
		// before it was seen, which is known without hashing it.
		buf = c.appendDescription(buf[:0])
		if bytes.Equal(buf, last) {
			continue
		}
		buf, last = last, buf
		if seen[string(last)] {
			continue
		}
		d := string(last)
		c.description = d // describe's, kept
		seen[d] = true
		s := structureOf(c, false)
		s.Why = whyLost(best, c)
		out = append(out, s)
		if c.score >= 0.3*best.score && !overlapping(best, c) && !c.head.parent().inNav {
			lists = append(lists, fmt.Sprintf("%s (%d records)", d, c.valid))
		}
	}
	if len(lists) > 0 {
		notes = append([]string{fmt.Sprintf("the page has %d other lists; the main one (%s, %d items) was annotated; the others: %s",
			len(lists), best.describe(), len(best.fields.items), strings.Join(lists, "; "))}, notes...)
	}
	return out, notes
}

// whyLost says, in words, why c scored below best.
func whyLost(best, c *candidate) string {
	var why []string
	if overlapping(best, c) {
		why = append(why, "the same stretch of the page as the list chosen, cut differently")
	}
	if c.rejected != "" {
		why = append(why, c.rejected)
	}
	for _, f := range c.factors {
		if f.value < 1 {
			why = append(why, fmt.Sprintf("%s (×%.2f)", f.name, f.value))
		}
	}
	if c.valid < best.valid {
		why = append(why, fmt.Sprintf("fewer records (%d, against %d)", c.valid, best.valid))
	}
	if c.avgText < best.avgText*0.7 {
		why = append(why, fmt.Sprintf("less text per record (%.0f bytes, against %.0f)", c.avgText, best.avgText))
	}
	if len(why) == 0 {
		why = append(why, "a lower score on balance")
	}
	return strings.Join(why, "; ")
}

// strayLines names the lines of the first few records strayRecords left
// out: "line 12", "lines 12, 9001".
func strayLines(p *page, strays []*node) string {
	var lines []string
	for i, n := range strays {
		if i == 3 {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, strconv.Itoa(1+strings.Count(p.text[:n.start], "\n")))
	}
	if len(lines) == 1 {
		return "line " + lines[0]
	}
	return "lines " + strings.Join(lines, ", ")
}

// fieldNotes says which fields were found in only some items, or not at
// all.
func fieldNotes(fc *fieldChoice) []string {
	var notes []string
	if fc.dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d records of the list have no title and were left out (a header row, a separator?)", fc.dropped))
	}
	if fc.unlinked > 0 {
		notes = append(notes, fmt.Sprintf("%d records of the list link nowhere, unlike the others, and were left out", fc.unlinked))
	}
	var noLink, noDesc, noDate int
	for _, it := range fc.items {
		if it.link == nil {
			noLink++
		}
		if it.desc == nil {
			noDesc++
		}
		if it.dateEnd == it.dateStart {
			noDate++
		}
	}
	n := len(fc.items)
	if noLink > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d items have no link of their own; they get a link to the page", noLink, n))
	}
	switch {
	case fc.descKey == "":
		notes = append(notes, "no description found")
	case noDesc > 0:
		notes = append(notes, fmt.Sprintf("%d of %d items have no description", noDesc, n))
	}
	switch {
	case fc.date == "":
		notes = append(notes, "no date found that Dynamo can read (dates need a day, a month and a year)")
	case noDate > 0:
		notes = append(notes, fmt.Sprintf("%d of %d items have no date", noDate, n))
	}
	return notes
}

// existing is what a page annotated in part already has.
type existing struct {
	comments []annotationComment
	channel  map[string]bool // channel fields annotated
	maxIndex int
}

func existingAnnotations(t *treeBuilder) *existing {
	ex := &existing{comments: t.comments, channel: map[string]bool{}}
	for _, c := range t.comments {
		for _, tag := range c.tags {
			if tag.Closing {
				continue
			}
			if f, ok := strings.CutPrefix(tag.Name, "channel:"); ok {
				ex.channel[f] = true
			}
			if n, err := strconv.Atoi(tag.Index); err == nil && n > ex.maxIndex {
				ex.maxIndex = n
			}
		}
	}
	return ex
}

// inRecord returns the item annotations already in a record: the index
// they use ("" when none, "-" when they use several) and their fields.
func (ex *existing) inRecord(r record) (string, map[string]bool) {
	index := ""
	var fields map[string]bool // made for the records that have some: most have none
	s, e := r.start(), r.end()
	i := sort.Search(len(ex.comments), func(i int) bool { return ex.comments[i].start >= s })
	for ; i < len(ex.comments) && ex.comments[i].start < e; i++ {
		for _, tag := range ex.comments[i].tags {
			f, ok := strings.CutPrefix(tag.Name, "item:")
			if !ok || tag.Closing {
				continue
			}
			if fields == nil {
				fields = map[string]bool{}
			}
			fields[f] = true
			switch {
			case index == "":
				index = tag.Index
			case index != tag.Index:
				index = "-"
			}
		}
	}
	return index, fields
}

// guard knows where the wrapper will not read page text, and so where no
// annotation may be inserted: in comments and in the content of raw-text
// elements. HTML parsers and the wrapper disagree on a few broken pages
// ("--!>", a "<!--" in <noscript>, an unclosed <script>), and an
// annotation inserted where the wrapper reads no page text would not be
// read as meant.
type guard struct {
	text   string
	unsafe [][2]int // offsets lo..hi, both included, where nothing may be inserted; by lo
	// reach[i] is the highest hi of unsafe[:i+1]: whether any of the
	// stretches starting at or before an offset holds it is one binary
	// search, not a walk over them all (a page with a comment in each of
	// 50,000 items took 14 s of CPU in these walks).
	reach []int
}

// newGuard reads the page as the wrapper will. A comment left unclosed
// guards the rest of the page: an inserted "-->" would close it.
func newGuard(text string) *guard {
	g := &guard{text: text}
	for _, st := range wrapper.NotPageText(text) {
		switch {
		case !st.Comment:
			g.unsafe = append(g.unsafe, [2]int{st.Start, st.End})
		case !st.Closed:
			g.unsafe = append(g.unsafe, [2]int{st.Start + 1, len(text)})
		case st.End-st.Start > 1:
			g.unsafe = append(g.unsafe, [2]int{st.Start + 1, st.End - 1})
		}
	}
	g.order()
	return g
}

// order sorts the unsafe stretches by where they start, and sets reach.
func (g *guard) order() {
	sort.Slice(g.unsafe, func(i, j int) bool { return g.unsafe[i][0] < g.unsafe[j][0] })
	g.reach = make([]int, len(g.unsafe))
	for i, u := range g.unsafe {
		g.reach[i] = u[1]
		if i > 0 {
			g.reach[i] = max(u[1], g.reach[i-1])
		}
	}
}

// startingBy returns how many of the unsafe stretches start at or before
// offset at.
func (g *guard) startingBy(at int) int {
	return sort.Search(len(g.unsafe), func(i int) bool { return g.unsafe[i][0] > at })
}

// safe reports whether a comment may be inserted at offset at. Not just
// after a "<": the wrapper would read "<<!-- …" as markup, and the value
// around it as empty (FuzzSuggest finding).
func (g *guard) safe(at int) bool {
	if at > 0 && at <= len(g.text) && g.text[at-1] == '<' {
		return false
	}
	k := g.startingBy(at)
	return k == 0 || g.reach[k-1] < at
}

// spanSafe reports whether an annotation may enclose start..end: both ends
// are safe, and no comment or raw-text element starts inside and ends
// outside.
func (g *guard) spanSafe(start, end int) bool {
	if !g.safe(start) || !g.safe(end) {
		return false
	}
	// Those starting inside: after start, before end.
	for _, u := range g.unsafe[g.startingBy(start):] {
		if u[0] >= end {
			break
		}
		if u[1] >= end {
			return false
		}
	}
	return true
}

// descriptionEmpty says whether the wrapper would read an item's description
// as empty: it leaves out of a description the content of the annotations
// nested in it, so a description that holds nothing but the item's date
// (or title, or link) would be an empty one, and a warning.
func descriptionEmpty(text string, it itemChoice) bool {
	s, e := int(it.desc.start), int(it.desc.end)
	if !it.desc.isText() {
		s, e = it.desc.inner()
	}
	ts, te := it.title.inner()
	var store [3][2]int
	nested := append(store[:0], [2]int{ts, te}, [2]int{it.dateStart, it.dateEnd})
	if it.link != nil {
		nested = append(nested, [2]int{int(it.link.start), int(it.link.open)})
	}
	// By start, those with one start in the order above (an insertion
	// sort, as sort.Slice's of so few is).
	for i := 1; i < len(nested); i++ {
		for j := i; j > 0 && nested[j][0] < nested[j-1][0]; j-- {
			nested[j], nested[j-1] = nested[j-1], nested[j]
		}
	}
	var rest strings.Builder
	at, cut := s, false
	for _, n := range nested {
		if n[1] > n[0] && n[0] >= at && n[1] <= e {
			rest.WriteString(text[at:n[0]])
			at, cut = n[1], true
		}
	}
	var desc string
	if cut {
		rest.WriteString(text[at:e])
		desc = rest.String()
	} else {
		desc = text[s:e] // nothing nested: the text itself, not a copy
	}
	if keepsText(desc) {
		return false // the sanitizer keeps a letter of it: no need to run it
	}
	html, _ := values.Description(desc, nil, nil)
	return html == ""
}

// itemSpans lays out the annotations of the chosen items. A field whose
// annotation cannot be inserted safely is left out; an item whose title
// cannot be is left out with a note.
func itemSpans(fc *fieldChoice, ex *existing, g *guard) ([]span, []string) {
	spans := make([]span, 0, 4*len(fc.items))
	var notes []string
	next := ex.maxIndex
	skipped := 0
	kept := fc.items[:0]
	var dropped [2]int // by titleDrop, less one
	for _, it := range fc.items {
		if why := keepSafeFields(&it, g); why != titleKept {
			dropped[why-1]++
			continue
		}
		kept = append(kept, it)
		// The index is the record's own, or the next number, which the
		// comments are written with (span.num) rather than a string
		// made for each item.
		index, has := ex.inRecord(it.rec)
		num := int32(0)
		switch index {
		case "-":
			skipped++
			continue
		case "":
			if len(has) > 0 { // annotations without an index: leave the record alone
				skipped++
				continue
			}
			next++
			num = int32(next)
		}
		if !has["title"] {
			s, e := it.title.inner()
			spans = append(spans, fieldSpan(s, e, titleAnnotation, index, num))
		}
		if it.link != nil && !has["link"] {
			spans = append(spans, fieldSpan(int(it.link.start), int(it.link.open), linkAnnotation, index, num))
		}
		if it.desc != nil && !has["description"] {
			s, e := int(it.desc.start), int(it.desc.end)
			if !it.desc.isText() {
				s, e = it.desc.inner()
			}
			spans = append(spans, fieldSpan(s, e, descriptionAnnotation, index, num))
		}
		if it.dateEnd > it.dateStart && !has["extension"] {
			spans = append(spans, fieldSpan(it.dateStart, it.dateEnd, dateAnnotation, index, num))
		}
	}
	fc.items = kept
	if n := dropped[titleInComment-1]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d items were left out: %s", n, titleInComment))
	}
	if n := dropped[titleCrossesBlocks-1]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d items were left out: %s", n, titleCrossesBlocks))
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d items already annotated with several indexes (or none) were left as they are", skipped))
	}
	switch {
	case ex.maxIndex == 0:
	case next > ex.maxIndex:
		notes = append(notes, fmt.Sprintf("the page was annotated in part: its annotations are kept, and new items are numbered from %d", ex.maxIndex+1))
	case len(spans) > 0:
		notes = append(notes, "the page was annotated in part: its annotations are kept, and only fields its items lacked were added")
	default:
		notes = append(notes, "the page is already annotated: every item found has its annotations, nothing was added")
	}
	return spans, notes
}

// titleDrop says whether an item's title can be annotated, and why not.
type titleDrop int

const (
	titleKept titleDrop = iota
	titleInComment
	titleCrossesBlocks
)

// String says why the items were left out, for the notes and the error
// of a page whose every item was.
func (d titleDrop) String() string {
	switch d {
	case titleInComment:
		return "their title lies in what the wrapper reads as a comment (a comment ended with \"--!>\", or opened in <noscript>)"
	case titleCrossesBlocks:
		return "their title runs over several block-level elements, which the wrapper reads as no title"
	}
	return "kept"
}

// keepSafeFields takes from it the fields whose comments the wrapper could
// not read back whole (a span a comment or stray markup cuts, a link that
// cuts the title across blocks, an empty description), and says whether
// its title can be annotated at all; when not, the item is left out.
// itemSpans writes what it keeps; unfitDates counts it.
func keepSafeFields(it *itemChoice, g *guard) titleDrop {
	ts, te := it.title.inner()
	if !g.spanSafe(ts, te) {
		return titleInComment
	}
	if wrapper.CrossesBlocks(g.text[ts:te]) {
		return titleCrossesBlocks
	}
	if it.link != nil && !g.spanSafe(int(it.link.start), int(it.link.open)) {
		it.link = nil
	}
	// A link annotated inside the title cuts the title's value in two,
	// which the wrapper checks for block-level markup apiece: either
	// may cross blocks where the whole does not (FuzzSuggest finding).
	if l := it.link; l != nil && int(l.start) >= ts && int(l.open) <= te &&
		(wrapper.CrossesBlocks(g.text[ts:l.start]) || wrapper.CrossesBlocks(g.text[l.open:te])) {
		it.link = nil
	}
	if it.desc != nil {
		s, e := int(it.desc.start), int(it.desc.end)
		if !it.desc.isText() {
			s, e = it.desc.inner()
		}
		if !g.spanSafe(s, e) {
			it.desc = nil
		}
	}
	if it.dateEnd > it.dateStart && !g.spanSafe(it.dateStart, it.dateEnd) {
		it.dateStart, it.dateEnd = 0, 0
	}
	if it.desc != nil && descriptionEmpty(g.text, *it) {
		it.desc = nil
	}
	return titleKept
}
