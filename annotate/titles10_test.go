package annotate_test

import (
	"fmt"
	"strings"
	"testing"
)

// Titles that the title rules refused (issue 19, the annotator's
// titles): a release's version ("v2.4.1", "3.19.0", "1.0.0-rc.2",
// "2024.06", "Release 5.2"), which has no letter or few, in the markups
// release pages use (headings with and without links, tables, definition
// lists, a list of tags), where a subheading the same in every release
// ("Fixed") or a link the same in every row ("Release notes") was taken
// instead; and short titles in the scripts written without spaces (two
// Han, kana or Hangul characters: 通知, 港湾, 공지), beside Latin texts of
// two letters ("OK", "Re"), which are still no title. Each page is right
// when `annotate` then `wrap` gives exactly its items, with their dates.
// These are development variants: the fix was made on them.

const titles10Base = "https://www.example.org/section/"

// root10 is a root-relative link as read against titles10Base.
func root10(u string) string { return "https://www.example.org" + u }

// version10 is release i's version, written in one of the forms release
// pages use.
func version10(form string, i int) string {
	switch form {
	case "v":
		return fmt.Sprintf("v2.%d.%d", 4+i/10, i%10)
	case "semver":
		return fmt.Sprintf("3.%d.0", 19+i)
	case "pre":
		return fmt.Sprintf("1.%d.0-rc.%d", i/3, 1+i%3)
	case "calver":
		return fmt.Sprintf("%d.%02d", 2024-i/12, 12-i%12)
	case "named":
		return fmt.Sprintf("Release 5.%d", 2+i)
	}
	panic("no version form " + form)
}

// change10 is a line of release notes.
func change10(i, k int) string {
	return fmt.Sprintf("%s (#%d)", sentenceOf(i+k, 6+k%4), 1200+i*3+k)
}

// release10 writes a page of n releases in one markup, with the versions
// written in form.
type release10 func(form string, n int) (string, []lineItem)

var releases10 = map[string]release10{
	// Markdown rendered as siblings: a heading linking to the release,
	// its date, then "Added" and "Fixed" subheadings over their changes.
	"h2-link-runs": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/releases/" + strings.ReplaceAll(v, " ", "-")
			return fmt.Sprintf(`<h2><a href="%s">%s</a></h2>
<p><time datetime="%s">%s</time></p>
<h3>Added</h3><ul><li>%s</li><li>%s</li></ul>
<h3>Fixed</h3><ul><li>%s</li></ul>
`, u, v, d.Format("2006-01-02"), d.Format("January 2, 2006"), change10(i, 0), change10(i, 1), change10(i, 2)), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Changelog", `<main class="docs"><h1>Changelog</h1><p>Every release of the loader, the newest first.</p>`+"\n"+body+`</main>`), items
	},
	// A section for each release, its heading without a link, the date
	// and a download link under it, then its changes.
	"section-plain": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/download/" + strings.ReplaceAll(v, " ", "-") + "/"
			return fmt.Sprintf(`<section class="release"><h3>%s</h3><p class="meta">%s · <a href="%s">Download</a></p><h4>Changes</h4><ul><li>%s</li><li>%s</li></ul></section>
`, v, d.Format("2 Jan 2006"), u, change10(i, 0), change10(i, 1)), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Releases", `<div id="content"><h1>Releases</h1>`+"\n"+body+`</div>`), items
	},
	// A table of releases: the version links to its page, then the date
	// and a summary.
	"table": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/releases/" + strings.ReplaceAll(v, " ", "-") + ".html"
			return fmt.Sprintf(`<tr><td class="version"><a href="%s">%s</a></td><td>%s</td><td>%s</td></tr>
`, u, v, d.Format("2006-01-02"), sentenceOf(i, 12)), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Release history", `<h1>Release history</h1><table class="releases"><thead><tr><th>Version</th><th>Date</th><th>Summary</th></tr></thead><tbody>
`+body+`</tbody></table>`), items
	},
	// A definition list: the version links to its notes, the date and a
	// summary under it.
	"dl-link": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/notes/" + strings.ReplaceAll(v, " ", "-") + "/"
			return fmt.Sprintf(`<dt><a href="%s">%s</a></dt><dd>%s — %s</dd>
`, u, v, d.Format("January 2, 2006"), sentenceOf(i, 10)), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Versions", `<h1>Versions</h1><dl class="versions">
`+body+`</dl>`), items
	},
	// A definition list whose terms are the versions, plain; each
	// release's link, "Release notes", is the same words in every one.
	"dl-plain": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/notes/" + strings.ReplaceAll(v, " ", "-") + ".html"
			return fmt.Sprintf(`<dt>%s</dt><dd><span class="date">%s</span> <a href="%s">Release notes</a></dd>
`, v, d.Format("02.01.2006"), u), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Downloads", `<h1>Downloads</h1><p>Older versions of the player.</p><dl>
`+body+`</dl>`), items
	},
	// A repository's tags: a list of links to each tag, with its date.
	"tags-list": func(form string, n int) (string, []lineItem) {
		body, items := newItems(n, func(i int) (string, lineItem) {
			v, d := version10(form, i), day9(i)
			u := "/loader/tags/" + strings.ReplaceAll(v, " ", "-")
			return fmt.Sprintf(`<li class="tag"><a href="%s">%s</a> <span class="when">%s</span></li>
`, u, v, d.Format("Jan 2, 2006")), lineItem{title: v, link: root10(u), date: d}
		})
		return newPage("Tags · loader", `<h1>Tags</h1><ul class="tags">
`+body+`</ul>`), items
	},
}

// short10 are the pages of short titles: lists whose titles are, some
// or all, two characters of a script written without spaces, and one
// whose two-letter Latin headings are no titles.
var short10 = map[string]func(n int) (string, []lineItem){
	// Japanese notices: a date, then the title link, some titles two
	// characters.
	"ja-notices": func(n int) (string, []lineItem) {
		titles := []string{"通知", "港湾", "休館日のご案内", "入札", "図書館の開館時間の変更について", "採用"}
		body, items := newItems(n, func(i int) (string, lineItem) {
			t, d := titles[i%len(titles)], day9(i)
			if i >= len(titles) {
				t = fmt.Sprintf("%s%d", t, i)
			}
			u := fmt.Sprintf("/ja/news/%d.html", 300+i)
			return fmt.Sprintf(`<li><span class="date">%s</span><a href="%s">%s</a></li>
`, d.Format("2006年1月2日"), u, t), lineItem{title: t, link: root10(u), date: d}
		})
		return "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\"><title>お知らせ</title></head><body>\n<nav><a href=\"/ja/\">ホーム</a> <a href=\"/ja/news/\">お知らせ</a></nav>\n<main><h1>お知らせ</h1><ul class=\"news\">\n" + body + "</ul></main>\n<footer>© 2024</footer></body></html>\n", items
	},
	// Chinese notices in a table, every title two characters.
	"zh-table": func(n int) (string, []lineItem) {
		titles := []string{"通知", "公告", "港湾", "招聘", "防汛", "招标", "简报", "年报"}
		body, items := newItems(n, func(i int) (string, lineItem) {
			t, d := titles[i%len(titles)], day9(i)
			u := fmt.Sprintf("/zh/gg/%d.html", 500+i)
			return fmt.Sprintf(`<tr><td><a href="%s">%s</a></td><td>%s</td></tr>
`, u, t, d.Format("2006-01-02")), lineItem{title: t, link: root10(u), date: d}
		})
		return "<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\"><title>通知公告</title></head><body>\n<div class=\"nav\"><a href=\"/zh/\">首页</a> <a href=\"/zh/gg/\">通知公告</a></div>\n<table class=\"list\">\n" + body + "</table>\n<p>版权所有 © 2024</p></body></html>\n", items
	},
	// Korean cards: a heading link, the date and a line of text.
	"ko-cards": func(n int) (string, []lineItem) {
		titles := []string{"공지", "행사", "도서관 운영 시간 변경 안내", "채용", "항만 공사 일정"}
		text := "주민 여러분께 알려 드립니다 자세한 내용은 첨부 파일을 확인하시기 바랍니다"
		body, items := newItems(n, func(i int) (string, lineItem) {
			t, d := titles[i%len(titles)], day9(i)
			u := fmt.Sprintf("/ko/board/%d", 90+i)
			return fmt.Sprintf(`<div class="card"><h3><a href="%s">%s</a></h3><p class="date">%s</p><p>%s</p></div>
`, u, t, d.Format("2006-01-02"), text), lineItem{title: t, link: root10(u), date: d}
		})
		return "<!DOCTYPE html>\n<html lang=\"ko\"><head><meta charset=\"utf-8\"><title>알림</title></head><body>\n<header><a href=\"/ko/\">홈</a></header>\n<main><h1>알림</h1><div class=\"cards\">\n" + body + "</div></main>\n<footer>© 2024</footer></body></html>\n", items
	},
	// A status board: each check's state, two Latin letters in a
	// heading ("OK", "Up", "Re"), is no title; the check's link is.
	"latin-states": func(n int) (string, []lineItem) {
		states := []string{"OK", "Up", "No", "Re"}
		body, items := newItems(n, func(i int) (string, lineItem) {
			t, d := oddTitle(i), day9(i)
			u := fmt.Sprintf("/checks/%d", 40+i)
			return fmt.Sprintf(`<div class="check"><h3>%s</h3><p><a href="%s">%s</a></p><p>Checked %s</p></div>
`, states[i%len(states)], u, t, d.Format("January 2, 2006")), lineItem{title: t, link: root10(u), date: d}
		})
		return newPage("Status", `<main><h1>Status</h1>`+"\n"+body+`</main>`), items
	},
}

// titles10Forms are the version forms each release markup is written in.
var titles10Forms = []string{"v", "semver", "pre", "calver", "named"}

// titles10Page is a page of n items: a release markup with a version form
// ("table/calver"), or a page of short titles.
func titles10Page(name string, n int) (string, string, []lineItem) {
	pname := fmt.Sprintf("%s,n=%d", name, n)
	if markup, form, ok := strings.Cut(name, "/"); ok {
		page, items := releases10[markup](form, n)
		return pname, page, items
	}
	page, items := short10[name](n)
	return pname, page, items
}

// titles10Names are every page style of the file, in a stable order.
func titles10Names() []string {
	var names []string
	for _, markup := range []string{"h2-link-runs", "section-plain", "table", "dl-link", "dl-plain", "tags-list"} {
		for _, form := range titles10Forms {
			names = append(names, markup+"/"+form)
		}
	}
	return append(names, "ja-notices", "zh-table", "ko-cards", "latin-states")
}

// titles10Known are the pages that fail, and why.
var titles10Known = map[string]string{}

func TestTitles10(t *testing.T) {
	if len(releases10)*len(titles10Forms)+len(short10) != len(titles10Names()) {
		t.Fatal("titles10Names does not name every style")
	}
	styleBatch{
		halves: map[string][]string{"dev": titles10Names()}, sizes: []int{5, 24, 400}, page: titles10Page,
		url: titles10Base, known: titles10Known, knownName: "titles10Known",
	}.run(t, "dev")
}
