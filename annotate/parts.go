package annotate

import "strings"

// Parts of one item taken for items (issue 19): a forum's title cell
// holds the topic's link and its author's link with nothing around
// them (`<td><a href="viewtopic.php?t=9">Title</a><br>by <a
// href="memberlist.php?u=3">ann</a></td>`). Across the table's cells,
// the links (and the runs each starts) are a list of two records a
// cell, as many as the rows' twice, and won over the rows on short
// tables. What gives them away is that the records at one place in
// each cell link to pages of one kind, and those at the other place to
// pages of another: the first record of every cell to a topic, the
// second to a member. Items of a list link to pages of one kind
// wherever they stand, whether several stand in each parent (a grid's
// rows of cards) or not.

// partKinds gathers, parent by parent, how many records each parent
// holds and, for the first partSample parents, the link of each of its
// first maxParts records, for parts. It keeps the links as the page has
// them and names their kinds only if the counts allow parts: a list of
// 20,000 posts, one a parent, costs a count each.
type partKinds struct {
	last    *node
	parents int
	cur     int               // records of the last parent
	sizes   [maxParts + 2]int // parents by records held (maxParts+1: more)
	sample  [partSample]partGroup
}

// partGroup is a sampled parent's records: how many, and the first
// maxParts records' links ("" for none).
type partGroup struct {
	n     int
	hrefs [maxParts]string
}

// maxParts is the most parts an item is taken to be made of.
const maxParts = 4

// partSample bounds the parents whose records' links are compared, as
// the fields are voted on the first 40 records.
const partSample = 40

// add records that a record under parent p links to href ("" for
// none). Records come in page order, so a parent's come together.
func (k *partKinds) add(p *node, href string) {
	if p != k.last || k.parents == 0 {
		k.endParent()
		k.last, k.cur = p, 0
		k.parents++
	}
	if i := k.parents - 1; i < partSample {
		if k.cur < maxParts {
			k.sample[i].hrefs[k.cur] = href
		}
		k.sample[i].n = k.cur + 1
	}
	k.cur++
}

// keepsHref reports whether add keeps the link of a record under p: one
// of the first maxParts records of one of the first partSample parents.
// Of the others only the count is kept, and their links need not be
// found.
func (k *partKinds) keepsHref(p *node) bool {
	if p != k.last || k.parents == 0 {
		return k.parents < partSample
	}
	return k.parents <= partSample && k.cur < maxParts
}

// endParent counts the last parent's records.
func (k *partKinds) endParent() {
	if k.parents > 0 {
		k.sizes[min(k.cur, maxParts+1)]++
	}
}

// parts returns how many parts of one item each parent holds, or 0 when
// the records are items. They are parts when there are three parents or
// more, at least two thirds of them hold the same number of records (2
// to maxParts), and in the sampled parents that hold that many, the
// records at each place link to one kind of page (linkKind) in at least
// two thirds of them, a kind not the same at every place. It ends the
// count: call it once, after the last add.
func (k *partKinds) parts() int {
	k.endParent()
	if k.parents < 3 {
		return 0
	}
	n := 0
	for size := 2; size <= maxParts; size++ {
		if k.sizes[size] > k.sizes[n] {
			n = size
		}
	}
	if n == 0 || 3*k.sizes[n] < 2*k.parents {
		return 0
	}
	sampled := k.sample[:min(k.parents, partSample)]
	groups := 0
	for _, g := range sampled {
		if g.n == n {
			groups++
		}
	}
	var kinds [maxParts]string
	for place := range n {
		votes := map[string]int{}
		best := 0
		for _, g := range sampled {
			if g.n != n {
				continue
			}
			kind := linkKind(g.hrefs[place])
			votes[kind]++
			if v := votes[kind]; v > best {
				best, kinds[place] = v, kind
			}
		}
		if kinds[place] == "" || 3*best < 2*groups {
			return 0
		}
	}
	for _, kind := range kinds[1:n] {
		if kind != kinds[0] {
			return n
		}
	}
	return 0
}

// linkKind names the kind of page a link leads to: its path without the
// last segment (a story's slug, a page's number) and with its digits as
// one 0 (`/blog/2024/03/` and `/blog/2023/11/` are alike); for a link
// with a query, its path and the query's first name
// (`/forum/viewtopic.php?t`, against `/forum/memberlist.php?u`).
func linkKind(href string) string {
	href, _, _ = strings.Cut(href, "#")
	path, query, hasQuery := strings.Cut(href, "?")
	if hasQuery {
		name, _, _ := strings.Cut(query, "=")
		name, _, _ = strings.Cut(name, "&")
		path += "?" + name
	} else if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[:i+1]
	}
	var b strings.Builder
	digits := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('0')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}
