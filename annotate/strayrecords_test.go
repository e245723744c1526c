package annotate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// A list whose items are siblings of one parent with no container of
// their own (a directory's `<div class="site">` entries directly under
// <body>), and a sibling of the items' tag that is no item among them: a
// top bar of links before the entries, a footer after them, or both. The
// bar was taken as item 1 and every item after it numbered one too far
// (issue 19). Each variant gives exactly its items, every title and link
// right; at 10 MiB too for a few, unless -short.

// siblingPage describes a variant: the items' tag, their class and the
// odd sibling's ("" for none), and where the odd sibling stands.
type siblingPage struct {
	tag, itemClass, oddClass string
	before, after            bool
	oddLinks                 int // the odd sibling's links (3 when 0)
	// promoted gives the first item a class of its own: it is an item
	// still, of the items' shape.
	promoted bool
	// recordLike: the odd sibling has the items' tag, classes and shape
	// (a single link): nothing says it is no entry, so it stays an
	// item, and every item after it keeps its own title and link.
	recordLike bool
}

func (v siblingPage) name() string {
	where := ""
	if v.before {
		where += "before"
	}
	if v.after {
		where += "after"
	}
	name := fmt.Sprintf("%s.%s/odd.%s/%s/%dlinks", v.tag, v.itemClass, v.oddClass, where, v.links())
	if v.promoted {
		name += "/promoted"
	}
	return name
}

func (v siblingPage) links() int {
	if v.oddLinks == 0 {
		return 3
	}
	return v.oddLinks
}

func classAttr(c string) string {
	if c == "" {
		return ""
	}
	return ` class="` + c + `"`
}

// odd is the odd sibling: a line of links (a breadcrumb, a footer).
func (v siblingPage) odd(words ...string) string {
	var links []string
	for i := 0; i < v.links(); i++ {
		links = append(links, fmt.Sprintf(`<a href="/%s/">%s</a>`, strings.ToLower(words[i%len(words)]), words[i%len(words)]))
	}
	inner := strings.Join(links, " &gt; ")
	if v.tag == "tr" {
		inner = `<td colspan="2">` + inner + `</td>`
	}
	return "<" + v.tag + classAttr(v.oddClass) + ">" + inner + "</" + v.tag + ">\n"
}

// page writes the variant with items of at most size bytes in all.
func (v siblingPage) page(size int) stylePage {
	var sb strings.Builder
	sb.WriteString("<!DOCTYPE html>\n<html><head><title>Links: Local history</title></head><body>\n<h1>Local history sites</h1>\n")
	open, close := "", ""
	switch v.tag {
	case "li":
		open, close = "<ul>\n", "</ul>\n"
	case "tr":
		open, close = "<table>\n", "</table>\n"
	}
	sb.WriteString(open)
	var items []styleItem
	if v.before {
		sb.WriteString(v.odd("Directory", "History", "Local"))
		if v.recordLike {
			items = append(items, styleItem{"Directory", styleBase[:strings.Index(styleBase[8:], "/")+8] + "/directory/"})
		}
	}
	tail := ""
	if v.after {
		tail = v.odd("Add a site", "About", "Contact")
	}
	tail += close + "<p>Last updated in March.</p></body></html>\n"
	for i := 0; ; i++ {
		t := fmt.Sprintf("Parish records of %s %d", words[i%len(words)], i)
		link := fmt.Sprintf("http://www.site%d.example.net/", i)
		inner := fmt.Sprintf(`<a href="%s">%s</a> - %s %s and %s`, link, t, words[(i*7)%len(words)], words[(i*3)%len(words)], words[(i*5)%len(words)])
		if v.tag == "tr" {
			inner = fmt.Sprintf(`<td><a href="%s">%s</a></td><td>%s %s and %s</td>`, link, t, words[(i*7)%len(words)], words[(i*3)%len(words)], words[(i*5)%len(words)])
		}
		class := v.itemClass
		if v.promoted && i == 0 {
			class = strings.TrimSpace(class + " promoted")
		}
		rec := "<" + v.tag + classAttr(class) + ">" + inner + "</" + v.tag + ">\n"
		if i >= 3 && sb.Len()+len(rec)+len(tail) > size {
			break
		}
		sb.WriteString(rec)
		items = append(items, styleItem{t, link})
	}
	sb.WriteString(tail)
	return stylePage{[]byte(sb.String()), items}
}

func siblingVariants() []siblingPage {
	var out []siblingPage
	for _, tag := range []string{"div", "p", "li", "tr"} {
		for _, cl := range [][2]string{{"site", "top"}, {"site", ""}, {"", "top"}} {
			for _, at := range [][2]bool{{true, false}, {false, true}, {true, true}} {
				out = append(out, siblingPage{tag: tag, itemClass: cl[0], oddClass: cl[1], before: at[0], after: at[1]})
			}
		}
	}
	// Bars of two links and of one, each shorter than an entry (one
	// link is the entries' shape; its text says it is no entry); and a
	// first entry with a class of its own, which stays an item.
	out = append(out,
		siblingPage{tag: "div", itemClass: "site", oddClass: "top", before: true, oddLinks: 2},
		siblingPage{tag: "tr", itemClass: "", oddClass: "nav", before: true, after: true, oddLinks: 2},
		siblingPage{tag: "li", itemClass: "site", oddClass: "top", before: true, oddLinks: 1},
		siblingPage{tag: "div", itemClass: "", oddClass: "", before: true, oddLinks: 1, recordLike: true},
		siblingPage{tag: "div", itemClass: "site", oddClass: "top", before: true, promoted: true},
		siblingPage{tag: "li", itemClass: "", oddClass: "top", after: true, promoted: true})
	return out
}

func TestOddSiblingNotAnItem(t *testing.T) {
	for _, v := range siblingVariants() {
		sizes := []int{2 << 10}
		if v.tag == "div" && v.itemClass == "site" && v.before || v.tag == "tr" && v.after && v.before {
			sizes = append(sizes, 10<<20)
			if testing.Short() {
				sizes[1] = 256 << 10
			}
		}
		for _, size := range sizes {
			name := fmt.Sprintf("%s/%d", v.name(), size)
			t.Run(name, func(t *testing.T) {
				sp := v.page(size)
				res, err := annotate.Suggest(sp.page, annotate.Options{URL: styleBase, MaxBytes: 20 << 20})
				if err != nil {
					t.Fatal(err)
				}
				if back := annotate.RemoveInserted(res.Page, res.Inserted); string(back) != string(sp.page) {
					t.Fatal("removing the inserted comments does not give the page back")
				}
				got := res.Wrapped().Resource.Items
				bad := wrongItems(t, "", got, sp.items)
				if len(got) != len(sp.items) || bad > 0 {
					t.Errorf("%d items (%d wrong), want %d; list %s", len(got), bad, len(sp.items), res.List.Path)
				}
				// The webmaster is told what was left out.
				noted := strings.Contains(strings.Join(res.Notes, "\n"), "were left out (a top bar, a footer?)")
				if noted == v.recordLike {
					t.Errorf("noted that elements were left out: %v, want %v (notes %q)", noted, !v.recordLike, res.Notes)
				}
				// The selectors made of the choice give the same items.
				if size < 1<<20 {
					if _, note, err := res.Selectors(); err != nil || note != "" {
						t.Errorf("selectors: %v %s", err, note)
					}
				}
			})
		}
	}
}
