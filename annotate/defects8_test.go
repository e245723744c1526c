package annotate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
	"golang.org/x/text/encoding/charmap"
)

// Defects from the eighth held-out batch (issue 19), each reproduced on
// pages written here in the manner of real sites, copied from none:
//
//  1. groups: one list split over sibling groups of the same record
//     markup (a forum's sticky threads and the others, a news page's
//     featured stories and the rest): every record, in page order.
//  2. readmore: an item made of two sibling tables (a Joomla 1.0 blog)
//     whose only link is a read-more link in the page's language: the
//     title is the heading, the link the read-more link, the date the
//     created date.
//  3. optional: a blog list whose records lack optional parts (a
//     picture, an excerpt, a category): each is still an item.
//  4. versions: release notes in a <dl> whose titles hold numbers that
//     look negative or like dates and ranges.
//
// Each class has a DEVELOPMENT half, fixed on, and a HELD-OUT half,
// written at the same time and run only once the fixes were done
// (docs/benchmarks/annotate.md, "Defects from the eighth held-out
// batch"). A page is right when every item's title, link and date are
// right through the annotations and through the selectors (checkItems).

const d8Base = "https://www.example.org/section/"

// d8Variant is one page of a class.
type d8Variant struct {
	class, name string
	size        int // the page's length in bytes, about; 0: n items
	n           int
	page        func(v d8Variant) ([]byte, []lineItem)
}

// d8Date is the i-th item's date: one a day back from 2024-03-05.
func d8Date(i int) time.Time {
	return time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -i)
}

// d8Fill writes records until n are written or the page, with its tail,
// would pass size (when size > 0).
func d8Fill(sb *strings.Builder, v d8Variant, tail string, rec func(i int) (string, lineItem)) []lineItem {
	var items []lineItem
	for i := 0; v.size > 0 || i < v.n; i++ {
		s, it := rec(i)
		if v.size > 0 && i >= 3 && sb.Len()+len(s)+len(tail) > v.size {
			break
		}
		sb.WriteString(s)
		items = append(items, it)
	}
	sb.WriteString(tail)
	return items
}

// d8Forum is a forum's thread list: sticky threads in a group of their
// own, then the other threads in a sibling group, every thread the same
// record markup (XenForo's), beside a sidebar of widgets.
func d8Forum(v d8Variant) ([]byte, []lineItem) {
	stickies := 2
	if strings.Contains(v.name, "3sticky") {
		stickies = 3
	}
	prefixes := !strings.Contains(v.name, "noprefix")
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en-US" class="XenForo"><head><meta charset="utf-8"><title>General discussion | Riverside Forums</title></head><body>
<div class="p-pageWrapper"><header class="p-header"><a href="/">Riverside Forums</a><nav class="p-nav"><ul><li><a href="/">Forums</a></li><li><a href="/whats-new/">What's new</a></li><li><a href="/members/">Members</a></li></ul></nav></header>
<div class="p-body"><div class="p-body-main p-body-main--withSideNav"><div class="p-body-content"><h1 class="p-title-value">General discussion</h1>
<div class="block"><div class="block-outer"><div class="block-outer-main"><nav class="pageNavWrapper"><a href="/forums/general.4/page-2">Next</a></nav></div></div>
<div class="block-container"><div class="block-body"><div class="structItemContainer">
<div class="structItemContainer-group structItemContainer-group--sticky">
`)
	thread := func(i int, sticky bool) (string, lineItem) {
		t := oddTitle(i)
		id := 9000 - i
		link := fmt.Sprintf("/threads/%s.%d/", newSlug(strings.ToLower(t)), id)
		prefix := ""
		if prefixes && i%3 == 0 {
			prefix = `<a href="/forums/general.4/?prefix_id=3" class="labelLink" rel="nofollow"><span class="label label--blue" dir="auto">Question</span></a> `
		}
		class := "structItem structItem--thread js-inlineModContainer js-threadListItem-" + fmt.Sprint(id)
		status := ""
		if sticky {
			class += " is-sticky"
			status = `<ul class="structItem-statuses"><li><i class="structItem-status structItem-status--sticky" aria-hidden="true" title="Sticky"></i><span class="u-srOnly">Sticky</span></li></ul>`
		}
		d := d8Date(i)
		s := fmt.Sprintf(`<div class="%s" data-author="member%d">
<div class="structItem-cell structItem-cell--icon"><div class="structItem-iconContainer"><a href="/members/member%d.%d/" class="avatar avatar--s" data-user-id="%d"><img src="/data/avatars/s/0/%d.jpg" alt="member%d" class="avatar-u%d-s" width="48" height="48" loading="lazy"></a></div></div>
<div class="structItem-cell structItem-cell--main" data-xf-init="touch-proxy">%s<div class="structItem-title">%s<a href="%s" class="" data-tp-primary="on" data-xf-init="preview-tooltip">%s</a></div>
<div class="structItem-minor"><ul class="structItem-parts"><li><a href="/members/member%d.%d/" class="username" dir="auto" data-user-id="%d">member%d</a></li><li class="structItem-startDate"><a href="%s" rel="nofollow"><time class="u-dt" dir="auto" datetime="%s" data-time="%d">%s</time></a></li></ul></div></div>
<div class="structItem-cell structItem-cell--meta" title="First message reaction score: %d"><dl class="pairs pairs--justified"><dt>Replies</dt><dd>%d</dd></dl><dl class="pairs pairs--justified structItem-minor"><dt>Views</dt><dd>%d</dd></dl></div>
<div class="structItem-cell structItem-cell--latest"><a href="%slatest" rel="nofollow"><time class="structItem-latestDate u-dt" dir="auto" datetime="2024-03-05T10:%02d:00+0000" data-time="1709633640">Today at 10:%02d</time></a><div class="structItem-minor"><a href="/members/member%d.%d/" class="username" dir="auto">member%d</a></div></div>
<div class="structItem-cell structItem-cell--icon structItem-cell--iconEnd"><div class="structItem-iconContainer"><a href="/members/member%d.%d/" class="avatar avatar--xxs"><img src="/data/avatars/s/0/%d.jpg" alt="member%d" width="24" height="24"></a></div></div>
</div>
`, class, i%17, i%17, 100+i%17, 100+i%17, 100+i%17, i%17, 100+i%17, status, prefix, link, t, i%17, 100+i%17, 100+i%17, i%17, link, d.Format("2006-01-02T15:04:05-0700"), d.Unix(), d.Format("Jan 2, 2006"),
			i%7, 3+i%40, 100+i*13%900, link, i%60, i%60, (i+5)%17, 100+(i+5)%17, (i+5)%17, (i+5)%17, 100+(i+5)%17, 100+(i+5)%17, (i+5)%17)
		return s, lineItem{title: t, link: "https://www.example.org" + link, date: d}
	}
	var items []lineItem
	for i := 0; i < stickies; i++ {
		s, it := thread(i, true)
		sb.WriteString(s)
		items = append(items, it)
	}
	sb.WriteString("</div>\n<div class=\"structItemContainer-group js-threadList\">\n")
	tail := `</div>
</div></div></div></div></div></div>
<div class="p-body-sidebar"><div class="block"><div class="block-container"><h3 class="block-minorHeader">Members online</h3><div class="block-body"><ul class="listInline listInline--comma"><li><a href="/members/member1.101/" class="username">member1</a></li><li><a href="/members/member2.102/" class="username">member2</a></li></ul></div></div></div>
<div class="block"><div class="block-container"><h3 class="block-minorHeader">Latest posts</h3><div class="block-body"><ul class="block-body"><li class="block-row"><div class="contentRow"><div class="contentRow-main contentRow-main--close"><a href="/threads/welcome.1/post-4">Welcome to the forums</a><div class="contentRow-minor contentRow-minor--smaller">Latest: member3 · <time class="u-dt">Today at 09:02</time></div></div></div></li><li class="block-row"><div class="contentRow"><div class="contentRow-main contentRow-main--close"><a href="/threads/rules.2/post-9">Forum rules</a><div class="contentRow-minor contentRow-minor--smaller">Latest: member4 · <time class="u-dt">Yesterday at 18:40</time></div></div></div></li></ul></div></div></div>
<div class="block"><div class="block-container"><h3 class="block-minorHeader">Forum statistics</h3><div class="block-body block-row"><dl class="pairs pairs--justified"><dt>Threads</dt><dd>1,204</dd></dl><dl class="pairs pairs--justified"><dt>Messages</dt><dd>18,771</dd></dl></div></div></div></div>
</div><footer class="p-footer"><a href="/help/terms/">Terms and rules</a> <a href="/help/privacy-policy/">Privacy policy</a></footer></div></body></html>
`
	items = append(items, d8Fill(&sb, v, tail, func(i int) (string, lineItem) { return thread(stickies+i, false) })...)
	return []byte(sb.String()), items
}

// d8Featured is a news or blog list whose first stories stand in a
// "featured" (or "pinned") group of the same record markup as the rest,
// in a sibling group.
func d8Featured(v d8Variant) ([]byte, []lineItem) {
	tag, group := "article", "div"
	if strings.Contains(v.name, "ul") {
		tag, group = "li", "ul"
	}
	first := 2
	if strings.Contains(v.name, "3first") {
		first = 3
	}
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>News | Harbour Gazette</title></head><body>
<header class="site-header"><a class="logo" href="/">Harbour Gazette</a><nav><ul class="menu"><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li><li><a href="/events/">Events</a></li><li><a href="/contact/">Contact</a></li></ul></nav></header>
<main class="content"><h1>Latest news</h1>
`)
	story := func(i int, featured bool) (string, lineItem) {
		t := oddTitle(i)
		link := "/news/" + newSlug(strings.ToLower(t)) + "/"
		d := d8Date(i)
		class := "post-item"
		if featured {
			class += " post-item--pinned"
		}
		s := fmt.Sprintf(`<%s class="%s"><a class="post-thumb" href="%s"><img src="/img/%d.jpg" alt=""></a><div class="post-body"><span class="post-cat"><a href="/news/local/">Local</a></span><h2 class="post-title"><a href="%s">%s</a></h2><p class="post-meta">By Staff Reporter &middot; <time datetime="%s">%s</time></p><p class="post-excerpt">%s</p></div></%s>
`, tag, class, link, i, link, t, d.Format("2006-01-02"), d.Format("2 January 2006"), sentenceOf(i, 18), tag)
		return s, lineItem{title: t, link: "https://www.example.org" + link, date: d}
	}
	fmt.Fprintf(&sb, "<%s class=\"posts posts--featured\">\n", group)
	var items []lineItem
	for i := 0; i < first; i++ {
		s, it := story(i, true)
		sb.WriteString(s)
		items = append(items, it)
	}
	fmt.Fprintf(&sb, "</%s>\n<%s class=\"posts\">\n", group, group)
	tail := fmt.Sprintf(`</%s>
<nav class="pagination"><a href="/news/page/2/">Older stories</a></nav></main>
<aside class="sidebar"><section class="widget"><h3>Most read</h3><ol><li><a href="/news/ferry-timetable/">Ferry timetable changes</a></li><li><a href="/news/market-day/">Market day moves</a></li><li><a href="/news/beach-award/">Beach keeps its award</a></li></ol></section><section class="widget"><h3>Newsletter</h3><form action="/subscribe"><input name="email"><button>Subscribe</button></form></section></aside>
<footer><p>&copy; 2024 Harbour Gazette &middot; <a href="/privacy/">Privacy</a></p></footer></body></html>
`, group)
	items = append(items, d8Fill(&sb, v, tail, func(i int) (string, lineItem) { return story(first+i, false) })...)
	return []byte(sb.String()), items
}

// d8Lang is a language's words on a Joomla 1.0 blog: its read-more
// link, its "more" heading and how a created date is written.
type d8Lang struct {
	code, readMore, more, modified string
	charset                        string // "" for UTF-8
	date                           func(d time.Time) string
}

var d8Langs = map[string]d8Lang{
	"nl": {"nl", "Lees verder...", "Meer...", "Laatst aangepast op", "iso-8859-1", func(d time.Time) string {
		return []string{"zondag", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag"}[d.Weekday()] + ", " + d.Format("02") + " " + []string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"}[d.Month()-1] + " " + d.Format("2006 15:04")
	}},
	"it": {"it", "Leggi tutto...", "Altri articoli...", "Ultimo aggiornamento", "iso-8859-1", func(d time.Time) string {
		return d.Format("02") + " " + []string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"}[d.Month()-1] + " " + d.Format("2006 15:04")
	}},
	"es": {"es", "Leer más...", "Más...", "Última actualización", "iso-8859-1", func(d time.Time) string {
		return d.Format("02") + " de " + []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}[d.Month()-1] + " de " + d.Format("2006 15:04")
	}},
	"pl": {"pl", "Czytaj dalej...", "Więcej...", "Poprawiony", "", func(d time.Time) string { return d.Format("02.01.2006 15:04") }},
	"sv": {"sv", "Läs mer...", "Mer...", "Senast uppdaterad", "iso-8859-1", func(d time.Time) string { return d.Format("2006-01-02 15:04") }},
	"pt": {"pt", "Leia mais...", "Mais...", "Última atualização", "iso-8859-1", func(d time.Time) string {
		return d.Format("02") + " de " + []string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}[d.Month()-1] + " de " + d.Format("2006 15:04")
	}},
	"fi": {"fi", "Lue lisää...", "Lisää...", "Päivitetty", "iso-8859-1", func(d time.Time) string { return d.Format("02.01.2006 15:04") }},
	"ru": {"ru", "Подробнее...", "Ещё...", "Обновлено", "", func(d time.Time) string { return d.Format("02.01.2006 15:04") }},
	"tr": {"tr", "Devamını oku...", "Diğer...", "Son Güncelleme", "", func(d time.Time) string { return d.Format("02.01.2006 15:04") }},
	"ja": {"ja", "続きを読む...", "その他...", "最終更新日", "", func(d time.Time) string { return d.Format("2006年01月02日 15:04") }},
	"da": {"da", "Læs mere...", "Mere...", "Senest opdateret", "iso-8859-1", func(d time.Time) string { return d.Format("02-01-2006 15:04") }},
	"zh": {"zh", "阅读全文...", "更多...", "最后更新", "", func(d time.Time) string { return d.Format("2006年01月02日 15:04") }},
}

// d8Joomla is a Joomla 1.0 blog section: each item two sibling
// table.contentpaneopen, the first with the unlinked heading, the second
// with the created date, the text, at times a modified date, and a
// read-more link in the site's language; then a list of older links.
func d8Joomla(v d8Variant) ([]byte, []lineItem) {
	lang := d8Langs[v.name[:2]]
	modified := strings.Contains(v.name, "modified")
	noMore := strings.Contains(v.name, "nomore")
	var sb strings.Builder
	charset := lang.charset
	if charset == "" {
		charset = "utf-8"
	}
	fmt.Fprintf(&sb, `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" lang="%s"><head><title>Nieuws - Harmonie</title><meta http-equiv="Content-Type" content="text/html; charset=%s" /></head><body>
<table width="100%%" cellpadding="0" cellspacing="0"><tr><td class="left" valign="top" width="180"><table cellpadding="0" cellspacing="0" class="moduletable"><tr><th valign="top">Menu</th></tr><tr><td><table width="100%%" border="0" cellpadding="0" cellspacing="0"><tr align="left"><td><a href="/index.php?option=com_frontpage&amp;Itemid=1" class="mainlevel">Home</a></td></tr><tr align="left"><td><a href="/index.php?option=com_content&amp;task=blogsection&amp;id=1&amp;Itemid=2" class="mainlevel" id="active_menu">Nieuws</a></td></tr><tr align="left"><td><a href="/index.php?option=com_contact&amp;Itemid=3" class="mainlevel">Contact</a></td></tr></table></td></tr></table></td>
<td valign="top" class="main"><div class="componentheading">Nieuws</div>
<table class="blog" cellpadding="0" cellspacing="0"><tr><td valign="top"><div>
`, lang.code, charset)
	item := func(i int) (string, lineItem) {
		t := oddTitle(i)
		id := 400 - i
		link := fmt.Sprintf("/index.php?option=com_content&amp;task=view&amp;id=%d&amp;Itemid=2", id)
		d := d8Date(i).Add(14 * time.Hour)
		mod := ""
		if modified && i%2 == 1 {
			mod = fmt.Sprintf(`<tr><td colspan="2" align="left" class="modifydate">%s %s</td></tr>`, lang.modified, lang.date(d.AddDate(0, 0, 1)))
		}
		s := fmt.Sprintf(`<table class="contentpaneopen"><tr><td class="contentheading" width="100%%">%s</td><td align="right" width="100%%" class="buttonheading"><a href="/index2.php?option=com_content&amp;task=emailform&amp;id=%d&amp;itemid=2" target="_blank" title="E-mail"><img src="/images/M_images/emailButton.png" alt="E-mail" /></a></td></tr></table>
<table class="contentpaneopen"><tr><td width="70%%" align="left" valign="top" colspan="2"><span class="small">Geschreven door Redactie</span>&nbsp;&nbsp;</td></tr><tr><td valign="top" colspan="2" class="createdate">%s</td></tr><tr><td valign="top" colspan="2"><p>%s</p></td></tr>%s<tr><td align="left" colspan="2"><a href="%s" class="readon">%s</a></td></tr></table><span class="article_seperator">&nbsp;</span>
`, t, id, lang.date(d), sentenceOf(i, 30), mod, link, lang.readMore)
		return s, lineItem{title: t, link: "https://www.example.org" + strings.ReplaceAll(link, "&amp;", "&"), date: d}
	}
	tail := "</div></td></tr>\n"
	if !noMore {
		tail += `<tr><td valign="top"><div class="blog_more"><div><strong>` + lang.more + `</strong></div><ul>`
		for k := 0; k < 4; k++ {
			tail += fmt.Sprintf(`<li><a class="blogsection" href="/index.php?option=com_content&amp;task=view&amp;id=%d&amp;Itemid=2">%s</a></li>`, 100-k, oddTitle(500+k))
		}
		tail += "</ul></div></td></tr>\n"
	}
	tail += `<tr><td valign="top" align="center"><br /><br /></td></tr></table></td></tr></table>
<div align="center">&copy; 2024 Harmonie</div></body></html>
`
	items := d8Fill(&sb, v, tail, item)
	page := []byte(sb.String())
	if lang.charset == "iso-8859-1" {
		enc, err := charmap.ISO8859_1.NewEncoder().Bytes(page)
		if err != nil {
			panic(err)
		}
		page = enc
	}
	return page, items
}

// d8Blog is a Squarespace-like blog list: a category link, a short
// numeric date, a heading link, an excerpt and a "Read More" link, where
// some posts have no picture, a short excerpt or none, or no category.
func d8Blog(v d8Variant) ([]byte, []lineItem) {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html lang="en-US"><head><meta charset="utf-8"><title>Journal — Field Notes</title></head><body id="collection-5f" class="blog-list">
<header class="Header"><div class="Header-inner"><a href="/" class="Header-branding">Field Notes</a><nav class="Header-nav"><a href="/about">About</a><a href="/journal" class="active">Journal</a><a href="/shop">Shop</a><a href="/contact">Contact</a></nav></div></header>
<main id="page" role="main"><section class="page-section"><div class="content-wrapper"><div class="content"><div class="blog-basic-grid collection-content-wrapper" data-controller="BlogImageLoader">
`)
	// Which posts lack which parts: fixed by the variant's name so that
	// each half has its own mix.
	odd := 7
	if strings.HasPrefix(v.name, "blog-b") {
		odd = 11
	}
	shortFirst := strings.HasSuffix(v.name, "-shortfirst")
	post := func(i int) (string, lineItem) {
		t := oddTitle(i)
		link := "/journal/" + newSlug(strings.ToLower(t))
		d := d8Date(i % 900)
		img := fmt.Sprintf(`<div class="image-wrapper"><a href="%s" class="image-wrapper"><img data-src="https://images.example.com/%d/img.jpg" alt="" loading="lazy"></a></div>`, link, i)
		cat := `<span class="blog-categories-list"><a href="/journal?category=Garden" class="blog-categories">Garden</a></span>`
		excerpt := `<div class="blog-excerpt"><div class="blog-excerpt-wrapper"><p class="" style="white-space:pre-wrap;">` + sentenceOf(i, 40) + `</p></div></div>`
		more := `<a class="blog-more-link" href="` + link + `">Read More</a>`
		if i%odd == 3 {
			img, excerpt = "", `<div class="blog-excerpt"><div class="blog-excerpt-wrapper"><p>Short note.</p></div></div>`
		}
		if i%odd == 5 {
			cat = ""
		}
		if i%(odd*3) == 8 {
			excerpt, more = "", ""
		}
		if i%(odd*5) == 1 {
			img = ""
		}
		if i == 0 && shortFirst {
			// A first post of a short title and its category and date
			// alone: two short links, as a line of navigation has.
			t, img, excerpt, more = "Spring notes", "", "", ""
			link = "/journal/spring-notes"
		}
		class := "blog-basic-grid--container entry blog-item is-loaded"
		if img != "" {
			class += " blog-item--image"
		}
		s := fmt.Sprintf(`<article class="%s">%s<div class="blog-basic-grid--text"><div class="blog-meta-section">%s<time class="blog-date" pubdate data-animation-role="date">%s</time></div><h1 class="blog-title"><a href="%s" data-no-animation>%s</a></h1>%s%s</div></article>
`, class, img, cat, fmt.Sprintf("%d/%d/%s", d.Month(), d.Day(), d.Format("06")), link, t, excerpt, more)
		return s, lineItem{title: t, link: "https://www.example.org" + link, date: d}
	}
	tail := `</div><nav class="blog-list-pagination"><div class="older"><a href="/journal?offset=1709640000000" rel="next">Older Posts</a></div></nav></div></div></section></main>
<footer class="Footer"><nav><a href="/instagram">Instagram</a> <a href="/newsletter">Newsletter</a></nav><p>Field Notes, 12 Mill Lane</p></footer></body></html>
`
	items := d8Fill(&sb, v, tail, post)
	return []byte(sb.String()), items
}

// d8Versions is a docs site's release notes: a <dl> of a linked release
// name, its date and a summary, whose names hold numbers that look
// negative ("Orbit -3.2.1", "v-1") or like dates and ranges, beside a
// sidebar of documentation links.
func d8Versions(v d8Variant) ([]byte, []lineItem) {
	forms := []string{"Orbit -%d.%d.1", "Orbit v-%d", "Orbit %d.%d-%d", "Orbit 2024.%02d", "Orbit %d-%d-%d", "Orbit %d.%d.%d-rc.1"}
	if strings.HasSuffix(v.name, "-b") {
		forms = []string{"Orbit v-%d.%d", "Orbit %d/%d", "Orbit -%d", "Orbit 2024-%02d", "Orbit %d.%d.%d", "Orbit %d.%d-%d.%d"}
	}
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Release notes — Orbit documentation</title></head><body>
<div class="wy-grid-for-nav"><nav class="wy-nav-side"><div class="wy-side-scroll"><a href="/docs/" class="icon icon-home">Orbit</a><div class="wy-menu wy-menu-vertical"><ul><li class="toctree-l1"><a class="reference internal" href="/docs/install/">Installation</a></li><li class="toctree-l1"><a class="reference internal" href="/docs/config/">Configuration</a></li><li class="toctree-l1"><a class="reference internal" href="/docs/api/">API reference</a></li><li class="toctree-l1 current"><a class="reference internal current" href="/docs/releases/">Release notes</a></li></ul></div></div></nav>
<section class="wy-nav-content-wrap"><div class="wy-nav-content"><div class="rst-content"><div role="main" class="document"><div class="section" id="release-notes"><h1>Release notes</h1>
<dl class="releases">
`)
	rel := func(i int) (string, lineItem) {
		f := forms[i%len(forms)]
		args := []any{3 + i/len(forms)%9, 2 + i%7, 1 + i%5, 1 + i%3}
		t := fmt.Sprintf(f, args[:strings.Count(f, "%")]...)
		switch {
		case strings.HasSuffix(v.name, "-c"):
			// Versions counting down, each distinct, as a long
			// changelog's: "Orbit -3.2.1" and no more.
			t = fmt.Sprintf("Orbit -%d.%d.%d", 3+i/10000, i/100%100, i%100)
		case strings.HasSuffix(v.name, "-d"):
			// Bare versions: "-3.2.1", "v-1021".
			t = fmt.Sprintf("-%d.%d.%d", 3+i/10000, i/100%100, i%100)
			if i%2 == 1 {
				t = fmt.Sprintf("v-%d", i)
			}
		default:
			// Names repeat on a long page: the number keeps each
			// distinct.
			t += fmt.Sprintf(" build %d", i)
		}
		link := fmt.Sprintf("/docs/releases/%d/", 5000-i)
		d := d8Date(i % 900)
		s := fmt.Sprintf("<dt><a href=\"%s\">%s</a></dt><dd><time datetime=\"%s\">%s</time></dd><dd>%s</dd>\n", link, t, d.Format("2006-01-02"), d.Format("2006-01-02"), sentenceOf(i, 14))
		return s, lineItem{title: t, link: "https://www.example.org" + link, date: d}
	}
	tail := `</dl>
</div></div><footer><p>&copy; Copyright 2024, the Orbit authors. <a href="/docs/_sources/releases.rst.txt">View page source</a></p></footer></div></div></section></div></body></html>
`
	items := d8Fill(&sb, v, tail, rel)
	return []byte(sb.String()), items
}

// d8Variants are a half's pages; the 10 MiB ones only without -short.
func d8Variants(half string) []d8Variant {
	const big = 10 << 20
	dev := []d8Variant{
		{class: "groups", name: "forum-2sticky", n: 5, page: d8Forum},
		{class: "groups", name: "forum-2sticky", n: 30, page: d8Forum},
		{class: "groups", name: "forum-3sticky", size: big, page: d8Forum},
		{class: "groups", name: "featured-article", n: 10, page: d8Featured},
		{class: "groups", name: "featured-ul-3first", n: 6, page: d8Featured},
		{class: "readmore", name: "nl", n: 5, page: d8Joomla},
		{class: "readmore", name: "nl-modified", n: 10, page: d8Joomla},
		{class: "readmore", name: "it", n: 6, page: d8Joomla},
		{class: "readmore", name: "pl-nomore", n: 4, page: d8Joomla},
		{class: "readmore", name: "sv-modified", n: 9, page: d8Joomla},
		{class: "readmore", name: "ja", n: 5, page: d8Joomla},
		{class: "readmore", name: "nl-modified", size: big, page: d8Joomla},
		{class: "optional", name: "blog-a", n: 40, page: d8Blog},
		{class: "optional", name: "blog-a", size: 1 << 20, page: d8Blog},
		{class: "optional", name: "blog-a", size: big, page: d8Blog},
		{class: "optional", name: "blog-a-shortfirst", n: 30, page: d8Blog},
		{class: "versions", name: "dl-a", n: 12, page: d8Versions},
		{class: "versions", name: "dl-a", size: big, page: d8Versions},
		{class: "versions", name: "dl-c", n: 30, page: d8Versions},
		{class: "versions", name: "dl-c", size: big, page: d8Versions},
		{class: "versions", name: "dl-d", n: 30, page: d8Versions},
		{class: "versions", name: "dl-d", size: big, page: d8Versions},
	}
	heldout := []d8Variant{
		{class: "groups", name: "forum-2sticky-noprefix", n: 12, page: d8Forum},
		{class: "groups", name: "forum-3sticky", n: 8, page: d8Forum},
		{class: "groups", name: "forum-2sticky-noprefix", size: big, page: d8Forum},
		{class: "groups", name: "featured-article-3first", n: 25, page: d8Featured},
		{class: "groups", name: "featured-ul", n: 14, page: d8Featured},
		{class: "readmore", name: "nl-modified", n: 7, page: d8Joomla},
		{class: "readmore", name: "es", n: 5, page: d8Joomla},
		{class: "readmore", name: "pt-modified", n: 8, page: d8Joomla},
		{class: "readmore", name: "fi", n: 6, page: d8Joomla},
		{class: "readmore", name: "ru-nomore", n: 5, page: d8Joomla},
		{class: "readmore", name: "tr", n: 4, page: d8Joomla},
		{class: "readmore", name: "da-modified", n: 6, page: d8Joomla},
		{class: "readmore", name: "zh", n: 7, page: d8Joomla},
		{class: "readmore", name: "nl", size: big, page: d8Joomla},
		{class: "optional", name: "blog-b", n: 60, page: d8Blog},
		{class: "optional", name: "blog-b", size: 2 << 20, page: d8Blog},
		{class: "optional", name: "blog-b", size: big, page: d8Blog},
		{class: "optional", name: "blog-b-shortfirst", n: 50, page: d8Blog},
		{class: "versions", name: "dl-b", n: 20, page: d8Versions},
		{class: "versions", name: "dl-b", size: big, page: d8Versions},
	}
	if half == "heldout" {
		return heldout
	}
	return dev
}

// d8Known are the pages whose items are wrong through the annotations,
// and why; d8SelectorsKnown those whose items are right through the
// annotations but not through the selectors (which then say so in their
// note). Each is checked to fail still, so a fix takes it off.
var d8Known = map[string]string{
	// A title without a letter ("-3.2.1") is read as a number (a
	// rank, a price, a count), never as a title: the items of bare
	// version numbers are left out (docs/ANNOTATE.md, known limits).
	"versions/dl-d/n=30":     "a title without a letter is a number",
	"versions/dl-d/10240KiB": "a title without a letter is a number",
	// The forum threads' dates, their latest post's `<time datetime>`
	// since the machine-readable dates of the ninth batch, are their
	// start dates since rankDates (branch forumdate): the development
	// half's three pages fixed on, the held-out half's three right on
	// its one run.
}

var d8SelectorsKnown = map[string]string{
	// The selectors' fields are paths from the first item, with the
	// positions they have there: a title link after a prefix label
	// (a[2]) is a[1] in a thread without one; the read-more row (tr[4])
	// is tr[5] in an item with a "modified" line. The selectors note it.
	"groups/forum-2sticky/n=5":      "positional field path (prefix label)",
	"groups/forum-2sticky/n=30":     "positional field path (prefix label)",
	"readmore/nl-modified/n=10":     "positional field path (modified-date row)",
	"readmore/sv-modified/n=9":      "positional field path (modified-date row)",
	"groups/forum-3sticky/10240KiB": "positional field path (prefix label)",
	"readmore/nl-modified/10240KiB": "positional field path (modified-date row)",
	// Held-out half, its one run.
	"groups/forum-3sticky/n=8": "positional field path (prefix label)",
	"readmore/nl-modified/n=7": "positional field path (modified-date row)",
	"readmore/pt-modified/n=8": "positional field path (modified-date row)",
	"readmore/da-modified/n=6": "positional field path (modified-date row)",
}

// runDefects8 checks every page of a half through the annotations and
// through the selectors, and logs, per class, how many were right each
// way.
func runDefects8(t *testing.T, half string) {
	type tally struct{ pages, annotated, selected int }
	tallies := map[string]*tally{}
	var classes []string
	for _, v := range d8Variants(half) {
		if tallies[v.class] == nil {
			tallies[v.class] = &tally{}
			classes = append(classes, v.class)
		}
		length := fmt.Sprintf("n=%d", v.n)
		if v.size > 0 {
			length = fmt.Sprintf("%dKiB", v.size>>10)
		}
		name := v.class + "/" + v.name + "/" + length
		t.Run(name, func(t *testing.T) {
			if v.size >= 10<<20 && testing.Short() {
				t.Skip("a 10 MiB page")
			}
			page, want := v.page(v)
			writeStylePage(t, "defects8-"+half+"-"+strings.ReplaceAll(name, "/", "-")+".html", page)
			tl := tallies[v.class]
			tl.pages++
			opts := annotate.Options{URL: d8Base}
			res, err := annotate.Suggest(page, opts)
			if err != nil {
				t.Fatal(err)
			}
			if back := annotate.RemoveInserted(res.Page, res.Inserted); string(back) != string(page) {
				t.Fatal("removing the inserted comments does not give the page back")
			}
			wrong := checkLineItems(res.Wrapped().Resource.Items, want)
			if len(wrong) == 0 {
				tl.annotated++
			} else {
				wrong = append(wrong[:min(len(wrong), 3)], "list "+res.List.Path)
			}
			judgeKnown(t, d8Known, "d8Known", name, wrong)
			items, _, note := followSuggested(t, res, page, opts)
			wrongSel := checkLineItems(items, want)
			if len(wrongSel) == 0 {
				tl.selected++
			} else {
				wrongSel = append(wrongSel[:min(len(wrongSel), 3)], "note: "+note)
			}
			judgeKnown(t, d8SelectorsKnown, "d8SelectorsKnown", name, wrongSel)
		})
	}
	for _, c := range classes {
		tl := tallies[c]
		t.Logf("%s half, %s: every item's title, link and date right on %d of %d pages through the annotations, %d through the selectors", half, c, tl.annotated, tl.pages, tl.selected)
	}
}

func TestDefects8Dev(t *testing.T) { runDefects8(t, "dev") }

func TestDefects8HeldOut(t *testing.T) { runDefects8(t, "heldout") }
