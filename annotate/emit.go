package annotate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Selectors returns the suggester's choice as XPath selectors, for a
// selector source that follows the page as it is, and how they compare
// with the annotations: a note when, applied to the page, they do not give
// the annotated page's items.
//
// XPath is used because it says what CSS cannot: a field in the siblings
// after an item's first element (a dt and its dd, a heading and its
// paragraphs), a text between elements. Items are anchored at the nearest
// ancestor with an id, or at as many ancestors as it takes to select the
// records and nothing else; a predicate keeps out the records the
// suggester left out (no title, no link).
func (r *Result) Selectors() (Selectors, string, error) {
	fc := r.best.fields
	if len(r.best.featured) > 0 {
		// The list's selectors are made of its records' items alone;
		// featuredSelectors adds the featured items'.
		lfc := *fc
		lfc.items = nil
		for _, it := range fc.items {
			if !r.best.isFeatured(it) {
				lfc.items = append(lfc.items, it)
			}
		}
		fc = &lfc
	}
	if len(fc.items) == 0 {
		return Selectors{}, "", ErrNoList
	}
	first := fc.items[0]
	head := first.rec.head()
	sel := Selectors{Syntax: SyntaxXPath}
	sel.Title = relXPath(first.rec, first.titleAt)
	if l := firstAt(fc, func(it itemChoice) *node { return it.link }); l != nil {
		sel.Link = relXPath(recordOf(fc, l), l)
	}
	if d := firstAt(fc, func(it itemChoice) *node { return it.desc }); d != nil {
		sel.Description = relXPath(recordOf(fc, d), d)
	}
	if d := firstAt(fc, func(it itemChoice) *node { return it.dateAt }); d != nil {
		rec := recordOf(fc, d)
		// The date is looked for in its element's texts, when that
		// element is the record's; a text among a record's siblings (a
		// line of a link, a date and a <br>) is named itself.
		if d.isText() && rec.contains(d.parent()) {
			d = d.parent()
		}
		sel.Date = relXPath(rec, d)
	}
	// The selectors need every attribute, which the suggester does not:
	// the page is read again keeping them, and records are matched by
	// their offsets. The selectors are then followed on that reading.
	t, d := selectorsTree(r.page)
	heads := map[int]bool{}
	for _, rec := range r.best.records {
		heads[int(rec.head().start)] = true
	}
	item, err := r.itemXPath(d, head, heads)
	if err != nil {
		return Selectors{}, "", err
	}
	// Records left out by the suggester stay out: an item has a title
	// with letters in it or a version's digits and dots ("4.2.1", which
	// titleCandidates takes in a heading, a link, bold text or a term),
	// and a link when most do.
	if pred := predicate(sel.Title); pred != "" && fc.dropped > 0 {
		item += "[" + pred + "[translate(normalize-space(.), '0123456789 .,:;/|()#-', '') != '' or contains(translate(., '123456789', '000000000'), '0.0')]]"
	}
	if pred := predicate(sel.Link); pred != "" && fc.unlinked > 0 {
		item += "[" + pred + "]"
	}
	sel.Item = item
	sel = featuredSelectors(sel, r.best.fields, r.best, d)
	c, err := sel.Compile()
	if err != nil {
		return Selectors{}, "", fmt.Errorf("the selectors made are wrong: %w", err)
	}
	note := ""
	f, err := follow(r.page, t, d, c, r.opts)
	switch {
	case err != nil:
		note = fmt.Sprintf("the selectors do not read the page: %v", err)
	case !sameItems(f, r):
		note = fmt.Sprintf("the selectors give %d items where the annotations give %d, or other titles and links: check them in the playground",
			len(f.Wrapped.Resource.Items), len(r.Wrapped().Resource.Items))
	}
	return sel, note, nil
}

// sameItems reports whether selectors and annotations give the same
// titles and links.
func sameItems(f *Followed, r *Result) bool {
	a, b := f.Wrapped.Resource.Items, r.Wrapped().Resource.Items
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Title != b[i].Title || a[i].Link != b[i].Link {
			return false
		}
	}
	return true
}

// firstAt returns the field's node in the first item that has one.
func firstAt(fc *fieldChoice, field func(itemChoice) *node) *node {
	for _, it := range fc.items {
		if n := field(it); n != nil {
			return n
		}
	}
	return nil
}

// recordOf returns the record of the item holding n.
func recordOf(fc *fieldChoice, n *node) record {
	for _, it := range fc.items {
		if it.rec.contains(n) {
			return it.rec
		}
	}
	return fc.items[0].rec
}

// relXPath writes the path from a record's head (the item's node) to n:
// "." for the node itself, child steps below it, and for a node in the
// siblings after it, following-sibling::tag[k] counted among the run's
// nodes of its tag; before it (a date before the link on a legacy
// line), preceding-sibling::tag[k], counted back from the head.
//
// A step names an element's stable classes; where that makes the path
// longer than a selector may be (MaxSelectorLength: an element deep in
// markup of many classed wrappers), its steps say tag and position alone.
func relXPath(r record, n *node) string {
	if p := relXPathOf(r, n, true); len(p) <= MaxSelectorLength {
		return p
	}
	return relXPathOf(r, n, false)
}

// relXPathOf is relXPath, its child steps with the elements' classes or
// without them.
func relXPathOf(r record, n *node, classes bool) string {
	var steps []string
	a := n
	for ; a != nil; a = a.parent() {
		top := -1
		for i, t := range r.nodes {
			if t == a {
				top = i
			}
		}
		if top >= 0 {
			if top != r.lead {
				var axis string
				var among []*node
				if top > r.lead {
					axis, among = "following-sibling::", r.nodes[r.lead+1:top+1]
				} else {
					axis, among = "preceding-sibling::", r.nodes[top:r.lead]
				}
				k := 0
				for _, t := range among {
					if t.tag() == a.tag() {
						k++
					}
				}
				name := xpathName(a.tag())
				if a.isText() {
					name = "text()"
				}
				steps = append(steps, axis+name+"["+strconv.Itoa(k)+"]")
			}
			break
		}
		if classes {
			steps = append(steps, xpathStep(a, false, true))
		} else {
			steps = append(steps, xpathPosition(a))
		}
	}
	if len(steps) == 0 {
		return "."
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return strings.Join(steps, "/")
}

// xpathStep writes one element as an XPath step: its tag, and its id (when
// anchor) or stable classes, as written; a text as text() with its
// position among its parent's texts.
func xpathStep(n *node, anchor, positional bool) string {
	if n.isText() {
		k := 0
		for _, c := range n.parent().children() {
			if c.isText() {
				k++
			}
			if c == n {
				break
			}
		}
		return "text()[" + strconv.Itoa(k) + "]"
	}
	s := xpathName(n.tag())
	if anchor && n.look().id != "" {
		return s + "[@id=" + xpathString(n.look().id) + "]"
	}
	for _, c := range strings.Fields(n.look().class) {
		if len(stableClasses(c)) == 1 {
			s += "[contains(concat(' ', normalize-space(@class), ' '), " + xpathString(" "+c+" ") + ")]"
		}
	}
	// Among siblings the step would also select, the position says which.
	if positional && n.parent() != nil {
		k, of := 0, 0
		for _, c := range n.parent().children() {
			if !c.isText() && c.tag() == n.tag() && hasClasses(c, stableClasses(n.look().class)) {
				of++
				if c.start <= n.start {
					k = of
				}
			}
		}
		if of > 1 {
			s += "[" + strconv.Itoa(k) + "]"
		}
	}
	return s
}

// xpathPosition writes one element as an XPath step of its tag and its
// position among its parent's elements of that tag (a text as xpathStep
// writes it).
func xpathPosition(n *node) string {
	if n.isText() || n.parent() == nil {
		return xpathStep(n, false, false)
	}
	k, of := 0, 0
	for _, c := range n.parent().children() {
		if !c.isText() && c.tag() == n.tag() {
			of++
			if c.start <= n.start {
				k = of
			}
		}
	}
	s := xpathName(n.tag())
	if of > 1 {
		s += "[" + strconv.Itoa(k) + "]"
	}
	return s
}

// hasClasses reports whether n has every one of the stable classes.
func hasClasses(n *node, classes []string) bool {
	have := stableClasses(n.look().class)
	for _, c := range classes {
		found := false
		for _, h := range have {
			found = found || h == c
		}
		if !found {
			return false
		}
	}
	return true
}

// xpathString quotes a string for XPath 1.0, which has no escapes.
func xpathString(s string) string {
	switch {
	case !strings.Contains(s, "'"):
		return "'" + s + "'"
	case !strings.Contains(s, `"`):
		return `"` + s + `"`
	}
	parts := strings.Split(s, "'")
	return "concat('" + strings.Join(parts, `', "'", '`) + "')"
}

// xpathName writes an element's tag as an XPath name test: the tag itself
// when XPath can write it (an NCName), else *[name()='…'] for the tags
// HTML parsers make of anything (o:p from word processors, d" from a
// broken page).
func xpathName(tag string) string {
	for i, c := range tag {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-' || c == '.')) {
			return "*[name()=" + xpathString(tag) + "]"
		}
	}
	return tag
}

// predicate turns a relative path into an existence test.
func predicate(rel string) string {
	if rel == "." {
		return "self::node()"
	}
	return rel
}

// itemXPath finds the shortest path that selects exactly the records' first
// nodes: from the parent up, anchored at an ancestor with an id free of
// digits where there is one, else at /html/body.
func (r *Result) itemXPath(d *dom, head *node, heads map[int]bool) (string, error) {
	step := xpathName(head.tag())
	if r.best.kind == "runs" {
		step = xpathStep(head, false, false)
	}
	var ancestors []*node
	for a := head.parent(); a != nil && a.tag() != "#root"; a = a.parent() {
		ancestors = append(ancestors, a)
	}
	// Positions are only written for the ancestors all records share: a
	// list's own parents differ from record to record.
	common := map[*node]bool{}
	for _, a := range ancestors {
		shared := true
		for _, rec := range r.best.records {
			shared = shared && isAncestor(a, rec.head())
		}
		common[a] = shared
	}
	// The parents of records that strayGroups dropped (a line of links
	// to the archive's other orders, in a list like the archive's) are
	// selected by the same steps as the records' parents. When no path
	// leaves them out otherwise, they are left out by identity (a few
	// of them): XPath 1.0's count(. | that) = 1, that written with every
	// position from the body, as the tree's top nodes are (the paths
	// below start at /html/body too).
	excludes := []string{""}
	if n := len(r.best.strays); n > 0 && n <= 8 {
		excludes = append(excludes, notAny(r.best.strays))
	}
	// The records strayRecords dropped (a top bar among a directory's
	// entries, of their tag) are left out by the records' classes, or
	// else by identity as the parents above.
	steps := []string{step}
	if n := len(r.best.strayRecs); n > 0 {
		if classed := xpathStep(head, false, false); classed != step {
			steps = append(steps, classed)
		}
		if not := notClasses(r.best.strayRecs); not != "" {
			steps = append(steps, step+not)
		}
		// By identity only for a short list: each is an absolute path,
		// which the XPath engine walks again for every node it tests.
		if n <= 8 && len(heads) <= 500 {
			steps = append(steps, step+notAny(r.best.strayRecs))
		}
		if not := notPositions(r.best.strayRecs); not != "" {
			steps = append(steps, step+not)
		}
	}
	if r.best.kind == "runs" && preformatted(head) {
		steps = append(steps, step+firstOnLineXPath(step))
	}
	if r.best.byShape {
		// Records of a few rows of one look (rowRuns): their first
		// rows by their places, every k-th, or by their shape.
		steps = append(steps, periodicSteps(step, r.best.records)...)
	}
	for _, step := range steps {
		if itemPath, ok, err := r.itemXPathWith(d, step, ancestors, common, excludes, heads); ok || err != nil {
			return itemPath, err
		}
	}
	if gs := groupsStep(r.best); gs != "" && len(ancestors) > 0 {
		// Sibling groups of one list (siblingGroups): their parents by
		// the classes they share.
		if itemPath, ok, err := r.itemXPathWith(d, gs+"/"+step, ancestors[1:], common, excludes, heads); ok || err != nil {
			return itemPath, err
		}
	}
	return "", fmt.Errorf("no XPath selects the %d records of %s and nothing else", len(heads), r.best.describe())
}

// notAny writes predicates that leave out each of the nodes by identity:
// XPath 1.0's count(. | that) = 1, that written with every position from
// the body, as the tree's top nodes are (the item paths start at
// /html/body too).
func notAny(nodes []*node) string {
	out := ""
	for _, s := range nodes {
		var path []string
		for a := s; a != nil && a.tag() != "#root"; a = a.parent() {
			path = append(path, xpathStep(a, false, true))
		}
		slices.Reverse(path)
		out += "[not(count(. | /html/body/" + strings.Join(path, "/") + ") = 1)]"
	}
	return out
}

// notClasses writes a predicate for each set of stable classes of the
// nodes (those that have some) that leaves out the elements having them
// all.
func notClasses(nodes []*node) string {
	out := ""
	seen := map[string]bool{}
	for _, n := range nodes {
		classes := stableClasses(n.look().class)
		k := strings.Join(classes, " ")
		if len(classes) == 0 || seen[k] {
			continue
		}
		seen[k] = true
		var has []string
		for _, c := range classes {
			has = append(has, "contains(concat(' ', normalize-space(@class), ' '), "+xpathString(" "+c+" ")+")")
		}
		out += "[not(" + strings.Join(has, " and ") + ")]"
	}
	return out
}

// itemXPathWith is itemXPath's search with one step for the records: the
// shortest path of their ancestors that, ending in step, selects exactly
// the records' first nodes.
func (r *Result) itemXPathWith(d *dom, step string, ancestors []*node, common map[*node]bool, excludes []string, heads map[int]bool) (string, bool, error) {
	for _, exclude := range excludes {
		for _, positional := range []bool{false, true} {
			for depth := 0; depth <= len(ancestors); depth++ {
				var steps []string
				anchored := false
				for i := depth - 1; i >= 0; i-- {
					a := ancestors[i]
					st := xpathStep(a, a.look().id != "" && !strings.ContainsAny(a.look().id, "0123456789"), positional && common[a])
					if i == 0 {
						st += exclude
					}
					if strings.Contains(st, "@id=") {
						steps = []string{st}
						anchored = true
						continue
					}
					steps = append(steps, st)
				}
				expr := "//" + strings.Join(append(steps, step), "/")
				if depth == len(ancestors) && !anchored {
					expr = "/html/body/" + strings.Join(append(steps, step), "/")
				}
				c, err := Selectors{Syntax: SyntaxXPath, Item: expr, Title: "."}.Compile()
				if err != nil {
					return "", false, err
				}
				got := c.item.all(d.doc)
				if len(got) != len(heads) {
					continue
				}
				all := true
				for _, m := range got {
					n := d.back(m.node)
					all = all && n != nil && heads[int(n.start)]
				}
				if all {
					return expr, true, nil
				}
			}
		}
	}
	return "", false, nil
}
