package annotate

import (
	"html"
	"net/url"
	"slices"
	"strings"

	"github.com/antchfx/xpath"
	nethtml "golang.org/x/net/html"
)

// Featured items: a blog's or a news page's first item or items (the
// "leading" article of a Joomla blog, a WordPress theme's sticky post, a
// section front's lead story) are often in other markup than the list
// that follows, in a block of their own before it in the same container.
// They are no records of the list, but items all the same: featuredItems
// finds them, and Suggest adds them to the list's items in page order,
// each with its fields chosen in it alone.

// maxFeatured bounds the featured items taken: more blocks of headed
// links beside the list are another list, not a lead story or two.
const maxFeatured = 6

// featuredLevels is how many of the list's containers, from the records'
// common parent up, have their siblings looked at (after the children of
// that parent outside the records).
const featuredLevels = 4

// featuredItems returns the items of the blocks beside the list c (its
// fields chosen) that hold the same fields: a heading, a link that leads
// where the list's items lead (linkPlace), not to one of them, and a
// date when most of the list's items have one. Only where the list's own
// titles are in headings. Where most of the list's titles hold their
// links (or are held by them), a featured block's heading must too; where
// they are headings without links (a Joomla blog showing its titles
// unlinked, each article's link its "Weiterlesen …"), a featured block's
// heading must have none either, and the block a link to that place.
// The blocks are looked for among the children of the records' common
// parent outside the records, then the siblings of that parent and of its
// ancestors, up to featuredLevels, outward from the list: the first
// sibling that has links and no such heading (a pager, a sidebar, a "most
// read" box, navigation) ends the search on its side. Each block is the
// largest that holds one such heading alone. None when more than
// maxFeatured are found.
func (ch *chooser) featuredItems(c *candidate) []itemChoice {
	fc := c.fields
	if c.kind != "elements" || fc == nil || len(fc.items) < minRecords {
		return nil
	}
	headed, linked, dated := 0, 0, 0
	var hrefList []string
	hrefs := map[string]bool{}
	for _, it := range fc.items {
		h := headingAt(it.titleAt)
		if h == nil {
			h = headingAt(it.title)
		}
		if h != nil {
			headed++
			if it.link != nil && (isAncestor(h, it.link) || isAncestor(it.link, h)) {
				linked++
			}
		}
		if it.dateEnd > it.dateStart {
			dated++
		}
		if it.link != nil {
			h := strings.TrimSpace(it.link.href())
			hrefs[h] = true
			hrefList = append(hrefList, h)
		}
	}
	n := len(fc.items)
	if headed*10 < n*9 {
		return nil
	}
	fs := &featSearch{ch: ch, hrefs: hrefs, looks: map[string]bool{}, heads: map[*node]*node{}}
	if !fs.place.of(hrefList, n) {
		return nil
	}
	switch {
	case linked*10 >= n*8:
	case linked*10 <= n*2:
		fs.loose = true
	default:
		return nil
	}
	fs.wantDate = dated*2 > n && fc.date != ""
	// The records that are items: a record left out for want of a title
	// at the items' place (a Joomla blog's div.items-leading among the
	// div.items-row whose children are the records) may hold featured
	// items.
	heads := make([]*node, len(fc.items))
	for i, it := range fc.items {
		heads[i] = it.rec.head()
		fs.looks[recordLook(heads[i])] = true
		if i < featuredSample {
			fs.maxLinks = max(fs.maxLinks, fs.placeLinks(heads[i]))
		}
	}
	// The siblings outside the records: first the children of the
	// records' common parent before the first that holds a record and
	// after the last (a Joomla blog's div.items-leading before its
	// div.items-row, whose records are in several rows), then the
	// siblings of that parent and of its ancestors.
	up := commonParent(heads)
	if up == nil {
		return nil
	}
	kids := up.children()
	lo := slices.IndexFunc(kids, func(k *node) bool { return isAncestor(k, heads[0]) })
	hi := slices.IndexFunc(kids, func(k *node) bool { return isAncestor(k, heads[len(heads)-1]) })
	if lo < 0 || hi < lo {
		return nil
	}
	var before, after []*node
	for level := 0; level <= featuredLevels; level++ {
		sibs := up.children()
		for i := lo - 1; i >= 0; i-- {
			u, stop := fs.units(sibs[i])
			if stop {
				break
			}
			before = append(u, before...)
		}
		for i := hi + 1; i < len(sibs); i++ {
			u, stop := fs.units(sibs[i])
			if stop {
				break
			}
			after = append(after, u...)
		}
		if len(before)+len(after) > maxFeatured {
			return nil
		}
		a := up
		up = a.parent()
		if up == nil || up.tag() == "#root" || up.tag() == "html" || a.tag() == "body" || a.inNav {
			break
		}
		lo = slices.Index(up.children(), a)
		hi = lo
	}
	var out []itemChoice
	for _, u := range append(before, after...) {
		it, ok := fs.item(u, fc)
		if !ok {
			// One block of the kind that is not an item: the others are
			// not taken on their word alone.
			return nil
		}
		out = append(out, it)
	}
	return out
}

// featuredSample is how many of the list's records are read for the
// number of links to its place an item holds.
const featuredSample = 40

// featSearch is what featuredItems looks for beside a list: blocks with
// a heading and a link to the list's place, not to one of its hrefs, in
// looks other than its records'.
type featSearch struct {
	ch    *chooser
	place linkPlace
	hrefs map[string]bool // the list's items' links
	looks map[string]bool // the records' looks (recordLook)
	heads map[*node]*node // each featured block's heading
	// loose: the list's titles are headings without links; so are the
	// featured items'.
	loose    bool
	wantDate bool
	// maxLinks is the most links to distinct pages of the place one of
	// the list's records holds (the story, its category, its print
	// view): a block holding more is a box of links to several.
	maxLinks int
}

// linkPlace is where a list's items lead: the first step of their
// paths ("news" of /news/2024/jun/02/…) when most share one, and the
// kind of page (linkKind, a trailing slash aside: /2024/03/04/slug/ and
// /slug/ are pages of the kinds /0/0/0/ and /) when most are of one.
// Either is a place; a link leads there when it agrees with either.
type linkPlace struct{ step, kind string }

// of sets the place of the links hrefs, of n items, when eight in ten
// agree on one; it reports whether they do.
func (p *linkPlace) of(hrefs []string, n int) bool {
	steps, kinds := map[string]int{}, map[string]int{}
	for _, h := range hrefs {
		if k, ok := linkTarget(h); ok {
			steps[k]++
			kinds[pageKind(h)]++
		}
	}
	for k, m := range steps {
		if m*10 >= n*8 {
			p.step = k
		}
	}
	for k, m := range kinds {
		if m*10 >= n*8 {
			p.kind = k
		}
	}
	return p.step != "" || p.kind != ""
}

// leads reports whether href leads to the place: a page (a path with a
// first step: the site's home "/" is none) of its first step or its kind.
func (p *linkPlace) leads(href string) bool {
	k, ok := linkTarget(href)
	if !ok {
		return false
	}
	return p.step != "" && k == p.step || p.kind != "" && pageKind(href) == p.kind
}

// pageKind is linkKind of an href without its trailing slash, which
// permalinks end in: /news/slug/ is a page of /news/, as /news/slug is.
func pageKind(href string) string {
	href = html.UnescapeString(href)
	if strings.HasSuffix(href, "/") && !strings.ContainsAny(href, "?#") {
		href = strings.TrimSuffix(href, "/")
	}
	return linkKind(href)
}

// placeLinks counts the distinct pages of the place n links to.
func (fs *featSearch) placeLinks(n *node) int {
	seen := map[string]bool{}
	walkNodes(n, func(m *node) bool {
		if m.tag() == "a" {
			if h := strings.TrimSpace(m.href()); !seen[h] && fs.place.leads(h) {
				seen[h] = true
			}
		}
		return m.links > 0
	})
	return len(seen)
}

// item chooses the fields of one featured block u alone, and says
// whether they are an item's like the list's (fc): its title in its
// heading, its link the heading's (or, loose, any link to the place,
// not one of the list's), its date when wanted. Fields the list's items
// do not have are left out, as the selectors cannot name them.
func (fs *featSearch) item(u *node, fc *fieldChoice) (itemChoice, bool) {
	one := &candidate{kind: "elements", head: u, records: []record{{nodes: []*node{u}}}}
	f := fs.ch.choose(one, 0)
	if len(f.items) != 1 {
		return itemChoice{}, false
	}
	it := f.items[0]
	if head := fs.heads[u]; head != nil && headingAt(it.titleAt) != head && headingAt(it.title) != head {
		// Chosen in the block alone, the title can be a link beside the
		// heading (an unlinked heading's block showing its category's
		// link, "Kategorie: Aktuelles"): the block's title is in its
		// heading, and its link is the link for that title.
		it = fs.headed(it, head)
	}
	h := headingAt(it.titleAt)
	if h == nil {
		h = headingAt(it.title)
	}
	if h == nil || it.link == nil {
		return itemChoice{}, false
	}
	if href := strings.TrimSpace(it.link.href()); !fs.place.leads(href) || fs.hrefs[href] {
		return itemChoice{}, false
	}
	if !fs.loose && !(isAncestor(h, it.link) || isAncestor(it.link, h)) {
		return itemChoice{}, false
	}
	if fc.descKey == "" {
		it.desc = nil
	}
	if fc.date == "" {
		it.dateStart, it.dateEnd, it.dateAt = 0, 0, nil
	}
	if fs.wantDate && it.dateEnd == it.dateStart {
		return itemChoice{}, false
	}
	return it, true
}

// headed gives it, a featured block's item whose title was chosen
// outside the block's heading head, the title in head that
// titleCandidates likes best and the link linkCandidates likes best for
// it, or none; its description and date stay.
func (fs *featSearch) headed(it itemChoice, head *node) itemChoice {
	titles := fs.ch.titleCandidates(nil, it.rec, nil)
	titles = slices.DeleteFunc(titles, func(c scored) bool { return !isAncestor(head, c.n) })
	t := pick(titles, voteTitle([][]scored{titles}))
	if t == nil {
		return itemChoice{}
	}
	it.title, it.titleAt, it.titleText, it.link = narrowTitle(t.n), t.n, t.text, nil
	links := fs.ch.linkCandidates(nil, it.rec, t.n, nil)
	if l := pick(links, vote(1, func(int) []scored { return links })); l != nil {
		it.link = l.n
	}
	return it
}

// isHead reports whether n is a featured block's heading: an h2–h6 (an
// h1 too when it has a link: a hero post's) whose link leads to the
// place and to none of the list's items; loose, an h2–h6 without a link.
func (fs *featSearch) isHead(n *node) bool {
	if fs.loose {
		return isSubHeading(n) && n.links == 0 && headingLink(n) == nil
	}
	if !isSubHeading(n) && n.tag() != "h1" {
		return false
	}
	l := headingLink(n)
	if l == nil {
		return false
	}
	h := strings.TrimSpace(l.href())
	return fs.place.leads(h) && !fs.hrefs[h]
}

// units returns the featured blocks in s, a sibling of one of the list's
// containers: the largest element holding one featured heading (isHead)
// alone, for each such heading. stop says s ends the search on its side:
// it has links but no such heading, is navigation (a sidebar, a header)
// or holds some, or holds one of the list's links; or one of its blocks
// has the records' look, or links to more pages of the place than an
// item does (a box of links), or, loose, none.
func (fs *featSearch) units(s *node) ([]*node, bool) {
	if s.isText() || s.hidden || s.links == 0 {
		return nil, false
	}
	if s.inNav || s.skip {
		return nil, true
	}
	var heads []*node
	stop := false
	walkNodes(s, func(n *node) bool {
		if stop || len(heads) > maxFeatured || n.links == 0 && !fs.loose {
			return false
		}
		// Navigation inside: a pager, a menu. (Blocks named like
		// navigation are not: an article's "header" and "footer".)
		if t := n.tag(); t == "nav" || t == "aside" || t == "menu" {
			stop = true
			return false
		}
		if n.tag() == "a" && fs.hrefs[strings.TrimSpace(n.href())] {
			stop = true
			return false
		}
		if fs.isHead(n) {
			heads = append(heads, n)
		}
		return true
	})
	if stop || len(heads) == 0 || len(heads) > maxFeatured || fs.ch.namedAside(s, heads) {
		return nil, true
	}
	// A heading inside a link counts as the link's: the block is the
	// link's ancestors' then.
	units := make([]*node, 0, len(heads))
	for _, h := range heads {
		u := h
		for u != s {
			p := u.parent()
			k := 0
			for _, o := range heads {
				if isAncestor(p, o) {
					k++
				}
			}
			if k > 1 {
				break
			}
			u = p
		}
		// A block in the records' own markup beside them is another
		// list of the kind (a "most read" column), not a featured item.
		if fs.looks[recordLook(u)] {
			return nil, true
		}
		if k := fs.placeLinks(u); k > fs.maxLinks || fs.loose && k == 0 {
			return nil, true
		}
		units = append(units, u)
		fs.heads[u] = h
	}
	return units, false
}

// asideWords name the boxes beside a list that hold other lists of its
// kind of item: "Most read", "Popular", "Related stories", "Latest news"
// (the newest items of the whole site, where the list is a section's),
// in English, German and Italian.
var asideWords = []string{"most ", "popular", "related", "trending", "recommended", "also", "more from", "more stories", "comments", "archive", "latest",
	"meistgelesen", "beliebt", "neueste", "più lett", "popolar", "ultime", "ultimi"}

// namedAside reports whether the first heading in s without a link (a
// box's own heading), other than the items' heads, names s as a box of
// other items: "Most read".
func (ch *chooser) namedAside(s *node, heads []*node) bool {
	var h *node
	walkNodes(s, func(n *node) bool {
		if h != nil {
			return false
		}
		if headingAt(n) == n && n.links == 0 && !n.isText() && n.tag() != "" && n.tag()[0] == 'h' && !slices.Contains(heads, n) {
			h = n
			return false
		}
		return n.headings > 0
	})
	if h == nil {
		return false
	}
	t := strings.ToLower(ch.p.textOf(h)) + " "
	for _, w := range asideWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// lookOf is an element's tag and stable classes.
func lookOf(n *node) string {
	return n.tag() + " " + strings.Join(stableClasses(n.look().class), " ")
}

// recordLook is lookOf a record's or a block's head, and, when it has no
// stable class, its parent's too: a bare <div> (Joomla's div.span6,
// div.leading-0, whose classes hold digits) says nothing of the list
// it is in.
func recordLook(n *node) string {
	lk := lookOf(n)
	if p := n.parent(); p != nil && len(stableClasses(n.look().class)) == 0 {
		return lookOf(p) + " > " + lk
	}
	return lk
}

// walkNodes visits n and its descendants in page order; visit returns
// whether to go below the node.
func walkNodes(n *node, visit func(*node) bool) {
	if !visit(n) {
		return
	}
	for _, c := range n.children() {
		walkNodes(c, visit)
	}
}

// isSubHeading reports whether n is an h2–h6 (an h1 is the page's own
// title, or the site's name).
func isSubHeading(n *node) bool {
	switch n.tag() {
	case "h2", "h3", "h4", "h5", "h6":
		return true
	}
	return false
}

// headingAt returns the heading that is n, holds it, or is the one
// heading n holds (a link around a heading's block); nil when none.
func headingAt(n *node) *node {
	if n == nil {
		return nil
	}
	for a := n; a != nil; a = a.parent() {
		switch a.tag() {
		case "h1", "h2", "h3", "h4", "h5", "h6":
			return a
		}
	}
	if n.headings == 1 {
		return firstHeading(n)
	}
	return nil
}

// headingLink returns the usable link of heading h: the one link it
// holds, or the link around it.
func headingLink(h *node) *node {
	for a := h.parent(); a != nil && a.depth >= h.depth-2; a = a.parent() {
		if a.tag() == "a" {
			if a.usableLink() {
				return a
			}
			return nil
		}
	}
	if h.links != 1 {
		return nil
	}
	var l *node
	walkNodes(h, func(n *node) bool {
		if n.tag() == "a" && l == nil {
			l = n
		}
		return l == nil
	})
	if l == nil || !l.usableLink() {
		return nil
	}
	return l
}

// linkTarget is where a link leads, for comparing links: its host (when
// it has one) and the first step of its path ("news" of
// /news/2024/jun/02/…).
func linkTarget(href string) (string, bool) {
	u, err := url.Parse(html.UnescapeString(href))
	if err != nil {
		return "", false
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	if first == "" {
		return "", false
	}
	return strings.ToLower(u.Host) + "/" + first, true
}

// commonParent returns the deepest element holding every one of heads
// (records' heads, in page order).
func commonParent(heads []*node) *node {
	p := heads[0].parent()
	for _, h := range heads[1:] {
		for p != nil && !isAncestor(p, h) {
			p = p.parent()
		}
	}
	return p
}

// isFeatured reports whether the item is one of the featured items
// Suggest added to c's, no record of c.
func (c *candidate) isFeatured(it itemChoice) bool {
	return slices.Contains(c.featured, it.rec.head())
}

// mergeFeatured adds the featured items to the list's, in page order.
func mergeFeatured(items, featured []itemChoice) []itemChoice {
	out := make([]itemChoice, 0, len(items)+len(featured))
	out = append(out, items...)
	out = append(out, featured...)
	slices.SortStableFunc(out, func(a, b itemChoice) int { return a.rec.start() - b.rec.start() })
	return out
}

// featuredNote says which featured items were taken.
func featuredNote(p *page, c *candidate) string {
	what, verb := " items", ") were"
	if len(c.featured) == 1 {
		what, verb = " item", ") was"
	}
	return itoa(len(c.featured)) + what + " in other markup beside the list (a featured or leading story: " +
		strayLines(p, c.featured) + verb + " taken too, in page order"
}

// featuredSelectors extends the list's selectors (sel, its records'
// items alone) to the featured items, on d, the page as the selectors
// read it. The item selector is a union of the list's and each featured
// block's path from the body. A field placed otherwise in a featured block
// than in the records is a union of the list's place and the featured
// places, the first of these that gives every item its own field and
// fits in MaxSelectorLength: the places alone (each found in its own
// items only); each kept to its items by the steps of their first nodes
// (self::section[…]); by their paths (XPath 1.0's count(. | X) =
// count(X): the item is one of X); the same three with the featured
// places written by tag and position alone. When none does, the field is
// the list's alone (the note then says the selectors differ).
func featuredSelectors(sel Selectors, fc *fieldChoice, c *candidate, d *dom) Selectors {
	var feats, list []itemChoice
	for _, it := range fc.items {
		if c.isFeatured(it) {
			feats = append(feats, it)
		} else {
			list = append(list, it)
		}
	}
	if len(feats) == 0 {
		return sel
	}
	abs := make([]string, len(feats))
	for i, it := range feats {
		abs[i] = absXPath(it.rec.head())
	}
	item := sel.Item + " | " + strings.Join(abs, " | ")
	if len(item) > MaxSelectorLength {
		return sel
	}
	// The items' nodes in d, by their offsets.
	ic, err := Selectors{Syntax: SyntaxXPath, Item: item, Title: "."}.Compile()
	if err != nil {
		return sel
	}
	at := map[int]*nethtml.Node{}
	for _, m := range ic.item.all(d.doc) {
		if n := d.back(m.node); n != nil {
			at[int(n.start)] = m.node
		}
	}
	sel.Item = item
	field := func(listPath string, of func(itemChoice) *node) string {
		var other []int // the featured items placed otherwise than the list's
		for i, it := range feats {
			rel := ""
			if n := of(it); n != nil {
				rel = relXPath(it.rec, n)
			}
			if rel != listPath {
				other = append(other, i)
			}
		}
		if len(other) == 0 {
			return listPath
		}
		steps := func(is []int) string {
			var s []string
			for _, i := range is {
				st := "self::" + xpathStep(feats[i].rec.head(), false, false)
				if !slices.Contains(s, st) {
					s = append(s, st)
				}
			}
			return strings.Join(s, " or ")
		}
		paths := func(is []int) string {
			var x []string
			for _, i := range is {
				x = append(x, abs[i])
			}
			return oneOf(x)
		}
		// The featured places with their elements' classes, then, for a
		// union that would be too long so (a Drupal node's four classes
		// at each of six steps), by tag and position alone.
		var tries []string
		for _, classes := range []bool{true, false} {
			var order []string
			by := map[string][]int{} // the featured items by their place
			for _, i := range other {
				n := of(feats[i])
				if n == nil {
					continue
				}
				rel := relXPathOf(feats[i].rec, n, classes)
				if _, ok := by[rel]; !ok {
					order = append(order, rel)
				}
				by[rel] = append(by[rel], i)
			}
			for _, guard := range []func([]int) string{nil, steps, paths} {
				var parts []string
				if listPath != "" {
					if guard == nil {
						parts = append(parts, listPath)
					} else {
						parts = append(parts, "self::node()[not("+guard(other)+")]/"+listPath)
					}
				}
				for _, rel := range order {
					if guard == nil {
						parts = append(parts, rel)
					} else {
						parts = append(parts, "self::node()["+guard(by[rel])+"]/"+rel)
					}
				}
				tries = append(tries, strings.Join(parts, " | "))
			}
		}
		var listQ query
		if listPath != "" {
			if e, err := xpath.Compile(listPath); err == nil {
				listQ = xpathQuery{e}
			}
		}
		for _, expr := range tries {
			if expr == "" || len(expr) > MaxSelectorLength {
				continue
			}
			e, err := xpath.Compile(expr)
			if err != nil {
				continue
			}
			if fieldHolds(d, at, xpathQuery{e}, listQ, list, feats, of) {
				return expr
			}
		}
		return listPath
	}
	sel.Title = field(sel.Title, func(it itemChoice) *node { return it.titleAt })
	sel.Link = field(sel.Link, func(it itemChoice) *node { return it.link })
	sel.Description = field(sel.Description, func(it itemChoice) *node { return it.desc })
	sel.Date = field(sel.Date, func(it itemChoice) *node {
		d := it.dateAt
		if d == nil || it.dateEnd == it.dateStart {
			return nil
		}
		if d.isText() && it.rec.contains(d.parent()) {
			d = d.parent()
		}
		return d
	})
	return sel
}

// fieldHolds reports whether q, a field's selector, gives each list item
// what the list's own selector listQ gives it, and each featured item its
// field's node (of), or nothing when it has none. at are the items' nodes
// in d by their offsets.
func fieldHolds(d *dom, at map[int]*nethtml.Node, q, listQ query, list, feats []itemChoice, of func(itemChoice) *node) bool {
	cur := &cursor{doc: d.doc}
	firstStart := func(q query, from *nethtml.Node) int {
		if q == nil {
			return -1
		}
		m, ok := q.first(cur, from)
		if !ok || m.isVal {
			return -1
		}
		n := d.back(m.node)
		if n == nil {
			return -2
		}
		return int(n.start)
	}
	for _, it := range list {
		h := at[int(it.rec.head().start)]
		if h == nil {
			return false
		}
		if firstStart(q, h) != firstStart(listQ, h) {
			return false
		}
	}
	// The list's again from the start: the cursor moves on in page order.
	cur = &cursor{doc: d.doc}
	for _, it := range feats {
		h := at[int(it.rec.head().start)]
		if h == nil {
			return false
		}
		want := -1
		if n := of(it); n != nil {
			want = int(n.start)
		}
		if firstStart(q, h) != want {
			return false
		}
	}
	return true
}

// oneOf is an XPath 1.0 test that the context node is one of the nodes
// the absolute paths select.
func oneOf(paths []string) string {
	x := strings.Join(paths, " | ")
	if len(paths) == 1 {
		return "count(. | " + x + ") = 1"
	}
	return "count(. | " + x + ") = count(" + x + ")"
}

// absXPath writes n's path from the body, each step its tag and its
// position among its siblings of that tag: short, so that a few fit in a
// selector.
func absXPath(n *node) string {
	var path []string
	for a := n; a != nil && a.tag() != "#root"; a = a.parent() {
		k := 0
		if p := a.parent(); p != nil {
			for _, c := range p.children() {
				if !c.isText() && c.tag() == a.tag() && c.start <= a.start {
					k++
				}
			}
		}
		path = append(path, xpathName(a.tag())+"["+itoa(max(k, 1))+"]")
	}
	slices.Reverse(path)
	return "/html/body/" + strings.Join(path, "/")
}
