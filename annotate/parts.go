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

// partKinds gathers, parent by parent, the kind of page (linkKind) each
// record links to, for partsPerParent.
type partKinds struct {
	last   *node
	groups [][]string
}

// add records that a record under parent p links to href ("" for
// none). Records come in page order, so a parent's come together.
func (k *partKinds) add(p *node, href string) {
	if p != k.last || len(k.groups) == 0 {
		k.last = p
		k.groups = append(k.groups, nil)
	}
	g := &k.groups[len(k.groups)-1]
	if len(*g) <= maxParts { // more than maxParts: not parts, and not counted
		*g = append(*g, linkKind(href))
	}
}

// maxParts is the most parts an item is taken to be made of.
const maxParts = 4

// parts returns how many parts of one item each parent holds, or 0 when
// the records are items. They are parts when there are three parents or
// more, at least two thirds of them hold the same number of records (2
// to maxParts), and in those, the records at each place link to one
// kind of page in at least two thirds of them, a kind not the same at
// every place.
func (k *partKinds) parts() int {
	if len(k.groups) < 3 {
		return 0
	}
	var count [maxParts + 2]int
	for _, g := range k.groups {
		count[len(g)]++
	}
	n := 0
	for size := 2; size <= maxParts; size++ {
		if count[size] > count[n] {
			n = size
		}
	}
	if n == 0 || 3*count[n] < 2*len(k.groups) {
		return 0
	}
	kinds := make([]string, n)
	for place := range kinds {
		votes := map[string]int{}
		best := 0
		for _, g := range k.groups {
			if len(g) != n {
				continue
			}
			votes[g[place]]++
			if v := votes[g[place]]; v > best {
				best, kinds[place] = v, g[place]
			}
		}
		if kinds[place] == "" || 3*best < 2*count[n] {
			return 0
		}
	}
	for _, kind := range kinds[1:] {
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
