package annotate_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// Leading and featured articles (issue 19): a blog's or a news page's
// first article or articles in other markup than the list that follows
// (a Joomla blog's "leading" articles, a magazine theme's hero post, a
// news page's top story, a Drupal front page's promoted node), with
// sidebars beside them ("Beliebte Beiträge", "Latest news", a tag cloud)
// whose links are no items. Five shapes, each written in the manner of
// the software (copied from no site), their variants drawn from seeds:
// the development half (seeds from 1) was tuned on, the held-out half
// (from 101) run once at the end. Every article must be read, the
// leading ones included, in page order, with its title, link and date,
// through the annotations and through the selectors.

// leadShapes are the shapes' generators: a page drawn from r, its items
// in page order, and a few words naming the variant drawn.
var leadShapes = []struct {
	name string
	gen  func(r *rand.Rand) ([]byte, []lineItem, string)
}{
	{"joomla3", genJoomla3},
	{"joomla4", genJoomla4},
	{"wp-magazine", genWPMagazine},
	{"news-top", genNewsTop},
	{"drupal-front", genDrupalFront},
}

// leadKnown are the pages still read wrong, with why: their errors are
// logged, not failed, and each must still fail.
var leadKnown = map[string]string{
	"joomla3-dev-5":         "two intro articles with unlinked titles and a category line: the category link is chosen as both items' title (field choice, not the featured rule)",
	"wp-magazine-heldout-2": "the list chosen is the two smaller heroes' h3 headings (main too, 2 items); the hero and the grid are then taken as featured items, every title and link right, without dates, since the list's records (the headings) have none",
	"joomla3-dev-9":         "unlinked titles, a category line, two columns: the rows (div.blog > div, two articles each) beat the articles, whose first links (the category's) repeat the leading articles' (lists.go's repeatsLinksOf)",
}

const leadVariants = 10

// leadLang is the wording of a page in one language.
type leadLang struct {
	code                               string
	months, days                       []string
	published, created                 string // the date's label
	readMore, details, category, hits  string
	popular, latest, tags, pages, next string
	words                              []string
}

var leadLangs = []leadLang{
	{
		code:      "de",
		months:    strings.Fields("Januar Februar März April Mai Juni Juli August September Oktober November Dezember"),
		days:      strings.Fields("Sonntag Montag Dienstag Mittwoch Donnerstag Freitag Samstag"),
		published: "Veröffentlicht", created: "Erstellt", readMore: "Weiterlesen", details: "Details",
		category: "Kategorie", hits: "Zugriffe", popular: "Beliebte Beiträge", latest: "Neueste Beiträge",
		tags: "Schlagwörter", pages: "Seite 1 von 5", next: "Weiter",
		words: strings.Fields("Hafenfest Jahreshauptversammlung Probenwochenende Gemeinderat Sommerkonzert Jugendkapelle Vereinsausflug Spendenlauf Frühjahrsputz Ehrenamt Neubau Turnhalle Sportplatz Kinderchor Adventsmarkt Ortsbücherei"),
	},
	{
		code:      "en",
		months:    strings.Fields("January February March April May June July August September October November December"),
		days:      strings.Fields("Sunday Monday Tuesday Wednesday Thursday Friday Saturday"),
		published: "Published", created: "Created", readMore: "Read more", details: "Details",
		category: "Category", hits: "Hits", popular: "Popular Articles", latest: "Latest news",
		tags: "Tags", pages: "Page 1 of 5", next: "Next",
		words: strings.Fields("Harbour festival AGM Rehearsal weekend Council Summer concert Youth band Club outing Charity run Spring clean Volunteers Clubhouse Sports ground Choir Christmas market Library"),
	},
	{
		code:      "it",
		months:    strings.Fields("Gennaio Febbraio Marzo Aprile Maggio Giugno Luglio Agosto Settembre Ottobre Novembre Dicembre"),
		days:      strings.Fields("Domenica Lunedì Martedì Mercoledì Giovedì Venerdì Sabato"),
		published: "Pubblicato", created: "Creato", readMore: "Leggi tutto", details: "Dettagli",
		category: "Categoria", hits: "Visite", popular: "Articoli più letti", latest: "Ultime notizie",
		tags: "Tag", pages: "Pagina 1 di 5", next: "Avanti",
		words: strings.Fields("Sagra Assemblea Concerto Consiglio Banda Gita Corsa Volontari Biblioteca Mercatino Palestra Coro Festa Porto Scuola Teatro"),
	},
}

// leadArticle is one article of a generated page.
type leadArticle struct {
	title, slug string
	id          int
	date        time.Time
}

// leadArticles draws n articles, the newest first.
func leadArticles(r *rand.Rand, l leadLang, n int) []leadArticle {
	out := make([]leadArticle, n)
	d := time.Date(2024, 3, 28, 9, 30, 0, 0, time.UTC)
	for i := range out {
		w := l.words[r.Intn(len(l.words))]
		t := fmt.Sprintf("%s %d: %s", w, 2024-i%3, strings.TrimSuffix(sentence(r.Intn, 3, 6), "."))
		out[i] = leadArticle{title: t, slug: leadSlug(w) + fmt.Sprintf("-%d", i+1), id: 300 - 7*i, date: d}
		d = d.AddDate(0, 0, -1-r.Intn(9))
	}
	return out
}

// leadSlug is a word's first word as a URL writes it: lower-case
// ASCII.
func leadSlug(w string) string {
	return strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "ì", "i").Replace(strings.ToLower(strings.Fields(w)[0]))
}

// dateIn writes d in the language's long form: "04. März 2024",
// "04 March 2024".
func (l leadLang) dateIn(d time.Time) string {
	if l.code == "de" {
		return fmt.Sprintf("%02d. %s %d", d.Day(), l.months[d.Month()-1], d.Year())
	}
	return fmt.Sprintf("%02d %s %d", d.Day(), l.months[d.Month()-1], d.Year())
}

// longDateIn is the date with its weekday and time, as Joomla's
// "created" line writes it.
func (l leadLang) longDateIn(d time.Time) string {
	return fmt.Sprintf("%s, %s %02d:%02d", l.days[d.Weekday()], l.dateIn(d), d.Hour(), d.Minute())
}

// leadSidebar is a sidebar's boxes in a CMS's markup: a "popular" and a
// "latest" box of links to articles (some of the page's, some older),
// and a tag cloud. box writes one box from its heading and its body.
func leadSidebar(r *rand.Rand, l leadLang, arts []leadArticle, href func(leadArticle) string, box func(h, body string) string) string {
	var pop, latest, tags strings.Builder
	for i := 0; i < 5; i++ {
		a := arts[r.Intn(len(arts))]
		fmt.Fprintf(&pop, `<li><a href="%s">%s</a></li>`, href(a), a.title)
	}
	for i, a := range leadArticles(r, l, 5) {
		a.id, a.slug = 90-i, a.slug+"-alt"
		fmt.Fprintf(&latest, `<li><a href="%s">%s</a></li>`, href(a), a.title)
	}
	for i := 0; i < 8; i++ {
		w := l.words[r.Intn(len(l.words))]
		fmt.Fprintf(&tags, `<li><a href="/tag/%s" class="tag-%d">%s</a></li>`, leadSlug(w), i, w)
	}
	out := []string{
		box(l.popular, `<ul class="mostread">`+pop.String()+`</ul>`),
		box(l.latest, `<ul class="latestnews">`+latest.String()+`</ul>`),
		box(l.tags, `<ul class="tagcloud">`+tags.String()+`</ul>`),
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return strings.Join(out, "\n")
}

// genJoomla3: a Joomla 3 category blog (Protostar's markup or a
// template's own around it): 1-3 leading articles in div.items-leading,
// then rows of 1-3 columns of the others; titles linked or not (then the
// read-more link is each article's link); the date in dd.published or
// dd.create, with or without <time>; icons, images, a category line; a
// div.items-more of links, a pager; modules in a sidebar on the left or
// the right, or below the blog in the main column.
func genJoomla3(r *rand.Rand) ([]byte, []lineItem, string) {
	l := leadLangs[r.Intn(len(leadLangs))]
	lead, cols, intro := 1+r.Intn(3), 1+r.Intn(3), 2+r.Intn(8)
	linked := r.Intn(3) != 0
	dateClass := pick(r, "published", "create")
	useTime := r.Intn(3) != 0
	icons, image, catLine, more := r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0
	readTitle := r.Intn(2) == 0 // "Weiterlesen: Title" rather than "Weiterlesen …"
	urls := r.Intn(3)           // 0 /index.php/cat/ID-slug, 1 /cat/ID-slug, 2 non-SEF query
	side := pick(r, "right", "left", "below")
	cat := map[string]string{"de": "aktuelles", "en": "news", "it": "notizie"}[l.code]
	href := func(a leadArticle) string {
		switch urls {
		case 1:
			return fmt.Sprintf("/%s/%d-%s", cat, a.id, a.slug)
		case 2:
			return fmt.Sprintf("/index.php?option=com_content&amp;view=article&amp;id=%d:%s&amp;catid=8&amp;Itemid=101", a.id, a.slug)
		}
		return fmt.Sprintf("/index.php/%s/%d-%s", cat, a.id, a.slug)
	}
	abs := func(a leadArticle) string { return s9Abs(strings.ReplaceAll(href(a), "&amp;", "&")) }
	arts := leadArticles(r, l, lead+intro)
	item := func(a leadArticle) string {
		var b strings.Builder
		if linked {
			fmt.Fprintf(&b, `<div class="page-header"><h2 itemprop="name"><a href="%s" itemprop="url">%s</a></h2></div>`, href(a), a.title)
		} else {
			fmt.Fprintf(&b, `<div class="page-header"><h2 itemprop="name">%s</h2></div>`, a.title)
		}
		if icons {
			fmt.Fprintf(&b, `<div class="icons"><div class="btn-group pull-right"><button class="btn dropdown-toggle" type="button" data-toggle="dropdown"><span class="icon-cog"></span><span class="caret"></span></button><ul class="dropdown-menu"><li class="print-icon"><a href="%s&amp;tmpl=component&amp;print=1" rel="nofollow">Print</a></li><li class="email-icon"><a href="/index.php/component/mailto/?tmpl=component&amp;link=%x" rel="nofollow">E-Mail</a></li></ul></div></div>`, strings.Split(href(a), "&amp;")[0], a.id*977)
		}
		b.WriteString(`<dl class="article-info muted"><dt class="article-info-term">` + l.details + `</dt>`)
		if catLine {
			fmt.Fprintf(&b, `<dd class="category-name">%s: <a href="/index.php/%s" itemprop="genre">%s</a></dd>`, l.category, cat, strings.ToUpper(cat[:1])+cat[1:])
		}
		label := l.published
		ds := l.dateIn(a.date)
		if dateClass == "create" {
			label, ds = l.created, l.longDateIn(a.date)
		}
		if useTime {
			fmt.Fprintf(&b, `<dd class="%s"><span class="icon-calendar" aria-hidden="true"></span> <time datetime="%s" itemprop="datePublished">%s: %s</time></dd>`, dateClass, a.date.Format(time.RFC3339), label, ds)
		} else {
			fmt.Fprintf(&b, `<dd class="%s"><span class="icon-calendar"></span> %s: %s</dd>`, dateClass, label, ds)
		}
		fmt.Fprintf(&b, `<dd class="hits"><span class="icon-eye-open"></span> %s: %d</dd></dl>`, l.hits, 10+r.Intn(900))
		if image {
			fmt.Fprintf(&b, `<div class="pull-left item-image"><a href="%s"><img src="/images/blog/bild-%d.jpg" alt="" itemprop="thumbnailUrl"/></a></div>`, href(a), a.id)
		}
		fmt.Fprintf(&b, `<p>%s</p><p>%s</p>`, sentence(r.Intn, 12, 30), sentence(r.Intn, 8, 20))
		rm := l.readMore + " …"
		if readTitle {
			rm = l.readMore + ": " + a.title
		}
		fmt.Fprintf(&b, `<p class="readmore"><a class="btn" href="%s" itemprop="url" aria-label="%s"><span class="icon-chevron-right" aria-hidden="true"></span> %s</a></p>`, href(a), rm, rm)
		return b.String()
	}
	var blog strings.Builder
	blog.WriteString(`<div class="blog" itemscope itemtype="https://schema.org/Blog">`)
	if r.Intn(2) == 0 {
		fmt.Fprintf(&blog, `<div class="page-header"><h1> %s </h1></div>`, strings.ToUpper(cat[:1])+cat[1:])
	}
	if r.Intn(2) == 0 {
		fmt.Fprintf(&blog, `<div class="category-desc clearfix"><p>%s <a href="/index.php/kontakt">%s</a></p></div>`, sentence(r.Intn, 8, 14), l.words[0])
	}
	blog.WriteString("\n" + `<div class="items-leading clearfix">`)
	var items []lineItem
	for i, a := range arts[:lead] {
		fmt.Fprintf(&blog, "\n"+`<div class="leading-%d clearfix" itemprop="blogPost" itemscope itemtype="https://schema.org/BlogPosting">%s</div>`, i, item(a))
		items = append(items, lineItem{title: a.title, link: abs(a), date: a.date})
	}
	blog.WriteString("\n</div><!-- end items-leading -->\n")
	span := 12 / cols
	for row := 0; row*cols < intro; row++ {
		fmt.Fprintf(&blog, `<div class="items-row cols-%d row-%d row-fluid clearfix">`, cols, row)
		for c := 0; c < cols && row*cols+c < intro; c++ {
			a := arts[lead+row*cols+c]
			fmt.Fprintf(&blog, "\n"+`<div class="span%d"><div class="item column-%d" itemprop="blogPost" itemscope itemtype="https://schema.org/BlogPosting">%s</div><!-- end item --></div><!-- end span -->`, span, c+1, item(a))
			items = append(items, lineItem{title: a.title, link: abs(a), date: a.date})
		}
		blog.WriteString("\n</div><!-- end row -->\n")
	}
	if more {
		blog.WriteString(`<div class="items-more"><ol class="nav nav-tabs nav-stacked">`)
		for _, a := range leadArticles(r, l, 4) {
			a.id += 1000
			fmt.Fprintf(&blog, `<li><a href="%s">%s</a></li>`, href(a), a.title)
		}
		blog.WriteString(`</ol></div>`)
	}
	fmt.Fprintf(&blog, `<div class="pagination"><p class="counter pull-right"> %s </p><ul><li class="pagination-start"><span class="pagenav">Start</span></li><li class="pagination-prev"><span class="pagenav">Zurück</span></li><li><span class="pagenav">1</span></li><li><a href="/index.php/%s?start=%d" class="pagenav">2</a></li><li class="pagination-next"><a title="%s" href="/index.php/%s?start=%d" class="hasTooltip pagenav">%s</a></li></ul></div></div>`,
		l.pages, cat, lead+intro, l.next, cat, lead+intro, l.next)
	protostar := r.Intn(2) == 0
	box := func(h, body string) string {
		if protostar {
			return `<div class="well "><h3 class="page-header">` + h + `</h3>` + body + `</div>`
		}
		return `<div class="moduletable"><h3>` + h + `</h3>` + body + `</div>`
	}
	sidebar := leadSidebar(r, l, arts, href, box)
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="%s-%s" dir="ltr"><head><meta charset="utf-8" /><meta name="generator" content="Joomla! - Open Source Content Management" /><title>%s</title><link href="/templates/protostar/css/template.css" rel="stylesheet" /></head>`+"\n",
		l.code, l.code, strings.ToUpper(cat[:1])+cat[1:])
	b.WriteString(`<body class="site com_content view-category layout-blog no-task itemid-101"><div class="body" id="top"><div class="container"><header class="header" role="banner"><div class="header-inner clearfix"><a class="brand pull-left" href="/"><span class="site-title" title="Verein">Verein Hafenau</span></a></div></header><nav class="navigation" role="navigation"><div class="nav-collapse"><ul class="nav menu nav-pills mod-list"><li class="item-101 current active"><a href="/index.php">Start</a></li><li class="item-102"><a href="/index.php/verein">Verein</a></li><li class="item-103"><a href="/index.php/termine">Termine</a></li><li class="item-104"><a href="/index.php/kontakt">Kontakt</a></li></ul></div></nav>` + "\n")
	b.WriteString(`<div class="row-fluid">`)
	mainOpen := `<main id="content" role="main" class="span9"><div id="system-message-container"></div>` + "\n"
	if !protostar {
		mainOpen = `<div id="maincol" class="span9 col-md-9"><div id="system-message-container"></div>` + "\n"
	}
	mainClose := map[bool]string{true: "</main>", false: "</div>"}[protostar]
	asideOpen := map[bool]string{true: `<div id="aside" class="span3">`, false: `<div class="span3 col-md-3 right">`}[protostar]
	switch side {
	case "left":
		b.WriteString(asideOpen + sidebar + "</div>\n" + mainOpen + blog.String() + mainClose)
	case "right":
		b.WriteString(mainOpen + blog.String() + mainClose + "\n" + asideOpen + sidebar + "</div>")
	default:
		b.WriteString(mainOpen + blog.String() + `<div class="moduletable-bottom">` + sidebar + "</div>" + mainClose)
	}
	b.WriteString(`</div></div></div><footer class="footer" role="contentinfo"><div class="container"><hr /><p class="pull-right"><a href="#top" id="back-top">Back to Top</a></p><p>&copy; 2024 Verein Hafenau</p></div></footer></body></html>` + "\n")
	desc := fmt.Sprintf("%s lead=%d cols=%d intro=%d linked=%v date=%s time=%v urls=%d side=%s protostar=%v more=%v", l.code, lead, cols, intro, linked, dateClass, useTime, urls, side, protostar, more)
	return []byte(b.String()), items, desc
}

// genJoomla4: a Joomla 4 category blog (Cassiopeia): the leading
// articles in div.com-content-category-blog__items.items-leading, the
// others in the next div of blog-items in columns, every article in a
// div.com-content-category-blog__item.blog-item; a sidebar of modules.
func genJoomla4(r *rand.Rand) ([]byte, []lineItem, string) {
	l := leadLangs[r.Intn(len(leadLangs))]
	lead, intro := 1+r.Intn(3), 3+r.Intn(7)
	cols := 1 + r.Intn(3)
	linked := r.Intn(3) != 0
	image := r.Intn(2) == 0
	cat := map[string]string{"de": "aktuelles", "en": "news", "it": "notizie"}[l.code]
	href := func(a leadArticle) string { return fmt.Sprintf("/index.php/%s/%d-%s", cat, a.id, a.slug) }
	arts := leadArticles(r, l, lead+intro)
	item := func(a leadArticle) string {
		var b strings.Builder
		if image {
			fmt.Fprintf(&b, `<figure class="left item-image"><a href="%s" itemprop="url" title="%s"><img src="/images/bild-%d.jpg" itemprop="thumbnailUrl" alt="" width="600" height="400" loading="lazy"></a></figure>`, href(a), a.title, a.id)
		}
		b.WriteString(`<div class="item-content"><div class="page-header">`)
		if linked {
			fmt.Fprintf(&b, `<h2 itemprop="name"><a href="%s" itemprop="url">%s</a></h2>`, href(a), a.title)
		} else {
			fmt.Fprintf(&b, `<h2 itemprop="name">%s</h2>`, a.title)
		}
		fmt.Fprintf(&b, `</div><dl class="article-info text-muted"><dt class="article-info-term">%s</dt><dd class="published"><span class="icon-calendar icon-fw" aria-hidden="true"></span><time datetime="%s" itemprop="datePublished">%s: %s</time></dd></dl><p>%s</p><p class="readmore"><a class="btn btn-secondary" href="%s" aria-label="%s %s"><span class="icon-chevron-right" aria-hidden="true"></span> %s …</a></p></div>`,
			l.details, a.date.Format(time.RFC3339), l.published, l.dateIn(a.date), sentence(r.Intn, 12, 30), href(a), l.readMore, a.title, l.readMore)
		return b.String()
	}
	var items []lineItem
	var blog strings.Builder
	blog.WriteString(`<div class="com-content-category-blog blog" itemscope itemtype="https://schema.org/Blog">`)
	fmt.Fprintf(&blog, `<div class="page-header"><h1> %s </h1></div>`+"\n", strings.ToUpper(cat[:1])+cat[1:])
	blog.WriteString(`<div class="com-content-category-blog__items blog-items items-leading ">`)
	for _, a := range arts[:lead] {
		fmt.Fprintf(&blog, "\n"+`<div class="com-content-category-blog__item blog-item" itemprop="blogPost" itemscope itemtype="https://schema.org/BlogPosting">%s</div>`, item(a))
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	}
	fmt.Fprintf(&blog, "\n</div>\n"+`<div class="com-content-category-blog__items blog-items columns-%d ">`, cols)
	for _, a := range arts[lead:] {
		fmt.Fprintf(&blog, "\n"+`<div class="com-content-category-blog__item blog-item" itemprop="blogPost" itemscope itemtype="https://schema.org/BlogPosting">%s</div>`, item(a))
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	}
	fmt.Fprintf(&blog, "\n</div>\n"+`<div class="com-content-category-blog__navigation w-100"><p class="com-content-category-blog__counter counter float-md-end pt-3 pe-2">%s</p><div class="com-content-category-blog__pagination"><nav class="pagination__wrapper" aria-label="Pagination"><ul class="pagination ms-0 mb-4"><li class="active page-item"><a aria-current="true" href="#" class="page-link">1</a></li><li class="page-item"><a href="/index.php/%s?start=%d" class="page-link">2</a></li></ul></nav></div></div></div>`, l.pages, cat, lead+intro)
	box := func(h, body string) string {
		return `<div class="sidebar-right card "><h3 class="card-header ">` + h + `</h3><div class="card-body">` + body + `</div></div>`
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="%s-%s" dir="ltr"><head><meta charset="utf-8"><title>%s</title></head><body class="site com_content wrapper-static view-category layout-blog no-task itemid-101 has-sidebar-right"><header class="header container-header full-width"><div class="grid-child"><div class="navbar-brand"><a class="brand-logo" href="/"><span title="Hafenau">Hafenau</span></a></div></div><div class="grid-child container-nav"><ul class="mod-menu mod-list nav "><li class="nav-item item-101 current active"><a href="/index.php" aria-current="page">Start</a></li><li class="nav-item item-102"><a href="/index.php/verein">Verein</a></li></ul></div></header>`+"\n",
		l.code, l.code, strings.ToUpper(cat[:1])+cat[1:])
	b.WriteString(`<div class="site-grid"><div class="grid-child container-component"><div id="system-message-container" aria-live="polite"></div><main>` + blog.String() + `</main></div>` + "\n")
	b.WriteString(`<div class="grid-child container-sidebar-right">` + leadSidebar(r, l, arts, href, box) + `</div></div>`)
	b.WriteString(`<footer class="container-footer footer full-width"><div class="grid-child"><p>&copy; 2024 Hafenau</p></div></footer></body></html>` + "\n")
	return []byte(b.String()), items, fmt.Sprintf("%s lead=%d cols=%d intro=%d linked=%v image=%v", l.code, lead, cols, intro, linked, image)
}

// genWPMagazine: a WordPress magazine theme's front or category page: a
// hero post (a big card with its picture, category, heading, excerpt and
// date), sometimes two smaller featured posts beside it, then a grid of
// post cards, then a pager; widgets in a sidebar. Permalinks by date,
// by category, or the post's name alone.
func genWPMagazine(r *rand.Rand) ([]byte, []lineItem, string) {
	l := leadLangs[r.Intn(len(leadLangs))]
	feat := 1 + 2*r.Intn(2) // the hero alone, or with two beside it
	n := 4 + r.Intn(9)
	perma := r.Intn(3)
	heroHeading := pick(r, "h2", "h1", "h3")
	gridHeading := pick(r, "h3", "h2", "h4")
	dateFmt := pick(r, "long", "us", "numeric")
	href := func(a leadArticle) string {
		switch perma {
		case 1:
			return fmt.Sprintf("/%d/%02d/%02d/%s/", a.date.Year(), a.date.Month(), a.date.Day(), a.slug)
		case 2:
			return "/" + a.slug + "/"
		}
		return "/vereinsleben/" + a.slug + "/"
	}
	when := func(a leadArticle) string {
		switch dateFmt {
		case "us":
			return a.date.Format("January 2, 2006")
		case "numeric":
			return a.date.Format("02.01.2006")
		}
		return l.dateIn(a.date)
	}
	arts := leadArticles(r, l, feat+n)
	var items []lineItem
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="%s"><head><meta charset="UTF-8"><title>Hafenau Magazin – Nachrichten</title></head><body class="home blog wp-embed-responsive"><div id="page" class="site"><header id="masthead" class="site-header"><div class="site-branding"><p class="site-title"><a href="/" rel="home">Hafenau Magazin</a></p></div><nav id="site-navigation" class="main-navigation"><ul id="primary-menu" class="menu"><li class="menu-item"><a href="/vereinsleben/">Vereinsleben</a></li><li class="menu-item"><a href="/sport/">Sport</a></li><li class="menu-item"><a href="/kultur/">Kultur</a></li></ul></nav></header>`+"\n", l.code)
	b.WriteString(`<div id="content" class="site-content"><div id="primary" class="content-area"><main id="main" class="site-main">` + "\n")
	heroClass := pick(r, "featured-area", "hero-section", "top-posts")
	fmt.Fprintf(&b, `<section class="%s"><div class="hero-grid">`, heroClass)
	for i, a := range arts[:feat] {
		size := "hero-post"
		h := heroHeading
		if i > 0 {
			size, h = "hero-side", "h3"
		}
		fmt.Fprintf(&b, `<article id="post-%d" class="%s post-%d post type-post status-publish has-post-thumbnail"><div class="post-thumbnail"><a href="%s"><img src="/wp-content/uploads/2024/03/hero-%d-1200x675.jpg" alt="" width="1200" height="675"></a></div><div class="hero-content"><span class="cat-links"><a href="/vereinsleben/" rel="category tag">Vereinsleben</a></span><%s class="entry-title"><a href="%s" rel="bookmark">%s</a></%s><div class="entry-meta"><span class="posted-on"><a href="%s" rel="bookmark"><time class="entry-date published" datetime="%s">%s</time></a></span></div>`,
			a.id, size, a.id, href(a), a.id, h, href(a), a.title, h, href(a), a.date.Format(time.RFC3339), when(a))
		if i == 0 {
			fmt.Fprintf(&b, `<div class="entry-summary"><p>%s</p></div>`, sentence(r.Intn, 15, 30))
		}
		b.WriteString(`</div></article>`)
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	}
	b.WriteString("</div></section>\n")
	if r.Intn(2) == 0 {
		fmt.Fprintf(&b, `<h2 class="section-title"><span>%s</span></h2>`, l.latest)
	}
	b.WriteString(`<div class="posts-grid">` + "\n")
	for _, a := range arts[feat:] {
		fmt.Fprintf(&b, `<article id="post-%d" class="grid-post post-%d post type-post status-publish format-standard has-post-thumbnail"><div class="post-thumbnail"><a href="%s"><img src="/wp-content/uploads/2024/03/p-%d-400x300.jpg" alt="" width="400" height="300"></a></div><div class="entry-content-wrap"><header class="entry-header"><span class="cat-links"><a href="/vereinsleben/" rel="category tag">Vereinsleben</a></span><%s class="entry-title"><a href="%s" rel="bookmark">%s</a></%s><div class="entry-meta"><span class="posted-on"><time class="entry-date published" datetime="%s">%s</time></span><span class="byline"> <span class="author vcard"><a class="url fn n" href="/author/redaktion/">Redaktion</a></span></span></div></header><div class="entry-summary"><p>%s</p></div></div></article>`+"\n",
			a.id, a.id, href(a), a.id, gridHeading, href(a), a.title, gridHeading, a.date.Format(time.RFC3339), when(a), sentence(r.Intn, 10, 25))
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	}
	b.WriteString(`</div><nav class="navigation pagination" aria-label="Beiträge"><div class="nav-links"><span aria-current="page" class="page-numbers current">1</span><a class="page-numbers" href="/page/2/">2</a><a class="next page-numbers" href="/page/2/">` + l.next + `</a></div></nav></main></div>` + "\n")
	box := func(h, body string) string {
		return `<section class="widget"><h2 class="widget-title">` + h + `</h2>` + body + `</section>`
	}
	sideOpen := pick(r, `<aside id="secondary" class="widget-area">`, `<div class="sidebar-column">`)
	sideClose := map[bool]string{true: "</aside>", false: "</div>"}[strings.HasPrefix(sideOpen, "<aside")]
	b.WriteString(sideOpen + leadSidebar(r, l, arts, href, box) + sideClose)
	b.WriteString(`</div><footer id="colophon" class="site-footer"><div class="site-info"><a href="https://wordpress.org/">Proudly powered by WordPress</a></div></footer></div></body></html>` + "\n")
	return []byte(b.String()), items, fmt.Sprintf("%s feat=%d n=%d perma=%d hero=%s grid=%s date=%s side=%s", l.code, feat, n, perma, heroHeading, gridHeading, dateFmt, sideOpen)
}

// genNewsTop: a news site's section page: one top story (a large
// teaser: a kicker, a heading, a summary, a date), then the list of
// others as li or div teasers with a smaller heading; a "Latest news"
// and "Most read" box beside or after the list, sometimes in the list's
// teaser markup.
func genNewsTop(r *rand.Rand) ([]byte, []lineItem, string) {
	l := leadLangs[r.Intn(len(leadLangs))]
	n := 5 + r.Intn(10)
	listTag := pick(r, "ul", "div")
	topHeading := pick(r, "h2", "h1")
	dateFmt := pick(r, "02.01.2006, 15:04", "02.01.2006", "2 Jan 2006", "long")
	sec := map[string]string{"de": "lokales", "en": "local", "it": "cronaca"}[l.code]
	href := func(a leadArticle) string { return fmt.Sprintf("/%s/%s-art%d.html", sec, a.slug, 9000+a.id) }
	when := func(a leadArticle) string {
		if dateFmt == "long" {
			return l.dateIn(a.date)
		}
		return a.date.Format(dateFmt)
	}
	arts := leadArticles(r, l, 1+n)
	var items []lineItem
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="%s"><head><meta charset="utf-8"><title>Lokales - Hafenauer Zeitung</title></head><body><div class="page"><header class="page-header"><a class="logo" href="/">Hafenauer Zeitung</a><nav class="main-nav"><a href="/%s/">Lokales</a> <a href="/sport/">Sport</a> <a href="/wirtschaft/">Wirtschaft</a></nav></header>`+"\n", l.code, sec)
	b.WriteString(`<div class="layout"><div class="col-main">` + "\n")
	a := arts[0]
	fmt.Fprintf(&b, `<div class="topstory"><a class="topstory__image" href="%s"><img src="/img/top-%d.jpg" alt="" width="960" height="540"></a><span class="kicker">%s</span><%s class="topstory__title"><a href="%s">%s</a></%s><p class="topstory__summary">%s</p><span class="topstory__date">%s</span></div>`+"\n",
		href(a), a.id, l.words[r.Intn(len(l.words))], topHeading, href(a), a.title, topHeading, sentence(r.Intn, 15, 30), when(a))
	items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	teaser := func(a leadArticle) string {
		open, end := `<div class="teaser">`, `</div>`
		if listTag == "ul" {
			open, end = `<li class="teaser">`, `</li>`
		}
		return fmt.Sprintf(`%s<a class="teaser__image" href="%s"><img src="/img/t-%d.jpg" alt="" width="200" height="112"></a><span class="teaser__date">%s</span><h3 class="teaser__title"><a href="%s">%s</a></h3><p class="teaser__text">%s</p>%s`,
			open, href(a), a.id, when(a), href(a), a.title, sentence(r.Intn, 10, 20), end)
	}
	listOpen, listClose := `<div class="teaser-list">`, `</div>`
	if listTag == "ul" {
		listOpen, listClose = `<ul class="teaser-list">`, `</ul>`
	}
	b.WriteString(listOpen + "\n")
	for _, a := range arts[1:] {
		b.WriteString(teaser(a) + "\n")
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), date: a.date})
	}
	b.WriteString(listClose)
	moreLink := r.Intn(2) == 0
	if moreLink {
		b.WriteString(`<a class="more-link" href="/` + sec + `/archiv/">` + l.next + ` »</a>`)
	}
	// "Latest news" in boxes of headed links, after the list in the main
	// column or in a column beside it.
	var latest strings.Builder
	fmt.Fprintf(&latest, `<div class="box box--latest"><h2 class="box__title">%s</h2>`, l.latest)
	for i, o := range leadArticles(r, l, 4) {
		o.id, o.slug = 50-i, o.slug+"-ticker"
		fmt.Fprintf(&latest, `<div class="box__entry"><h4><a href="%s">%s</a></h4><span class="box__date">%s</span></div>`, href(o), o.title, when(o))
	}
	latest.WriteString(`</div>`)
	var popular strings.Builder
	fmt.Fprintf(&popular, `<div class="box box--popular"><h2 class="box__title">%s</h2><ol>`, l.popular)
	for k := 0; k < 5; k++ {
		o := arts[r.Intn(len(arts))]
		fmt.Fprintf(&popular, `<li><a href="%s">%s</a></li>`, href(o), o.title)
	}
	popular.WriteString(`</ol></div>`)
	where := r.Intn(2)
	if where == 0 {
		b.WriteString(latest.String() + "</div>\n" + `<div class="col-side">` + popular.String() + "</div>")
	} else {
		b.WriteString("</div>\n" + `<div class="col-side">` + latest.String() + popular.String() + "</div>")
	}
	b.WriteString(`</div><footer class="page-footer"><a href="/impressum/">Impressum</a> <a href="/datenschutz/">Datenschutz</a></footer></div></body></html>` + "\n")
	return []byte(b.String()), items, fmt.Sprintf("%s n=%d list=%s top=%s date=%q latest=%d more=%v", l.code, n, listTag, topHeading, dateFmt, where, moreLink)
}

// genDrupalFront: a Drupal front page: the promoted (sticky) node in
// full or in a "featured" block view above, then the front page view's
// teasers, a pager; blocks in a sidebar (recent content, tags). Drupal
// 7's div.node markup or Drupal 8+'s article.node--view-mode-teaser.
func genDrupalFront(r *rand.Rand) ([]byte, []lineItem, string) {
	l := leadLangs[r.Intn(len(leadLangs))]
	n := 4 + r.Intn(8)
	d8 := r.Intn(2) == 0
	block := r.Intn(2) == 0 // the promoted node in a block view of its own
	href := func(a leadArticle) string { return fmt.Sprintf("/node/%d", a.id) }
	if r.Intn(2) == 0 {
		href = func(a leadArticle) string { return "/artikel/" + a.slug }
	}
	arts := leadArticles(r, l, 1+n)
	node := func(a leadArticle, full bool) string {
		mode := "teaser"
		if full {
			mode = "full"
		}
		date := a.date.Format("Mon, 01/02/2006 - 15:04")
		if l.code != "en" {
			date = a.date.Format("02.01.2006 - 15:04")
		}
		if d8 {
			sticky := ""
			if full {
				sticky = " node--promoted node--sticky"
			}
			return fmt.Sprintf(`<article role="article" about="%s" class="node node--type-article%s node--view-mode-%s"><h2><a href="%s" rel="bookmark"><span class="field field--name-title field--type-string field--label-hidden">%s</span></a></h2><footer class="node__meta"><div class="node__submitted">von <span class="field field--name-uid"><span>redaktion</span></span> am <span class="field field--name-created">%s</span></div></footer><div class="node__content"><div class="clearfix text-formatted field field--name-body field--type-text-with-summary field--label-hidden field__item"><p>%s</p></div><div class="node__links"><ul class="links inline"><li class="node-readmore"><a href="%s" rel="tag" title="%s" hreflang="%s">%s<span class="visually-hidden"> über %s</span></a></li></ul></div></div></article>`,
				href(a), sticky, mode, href(a), a.title, date, sentence(r.Intn, 15, 40), href(a), a.title, l.code, l.readMore, a.title)
		}
		cls := "node node-article node-promoted node-teaser clearfix"
		if full {
			cls = "node node-article node-promoted node-sticky clearfix"
		}
		return fmt.Sprintf(`<div id="node-%d" class="%s" about="%s" typeof="sioc:Item foaf:Document"><h2><a href="%s">%s</a></h2><div class="meta submitted"><span property="dc:date dc:created" content="%s" datatype="xsd:dateTime">%s</span></div><div class="content clearfix"><div class="field field-name-body field-type-text-with-summary field-label-hidden"><div class="field-items"><div class="field-item even" property="content:encoded"><p>%s</p></div></div></div></div><div class="link-wrapper"><ul class="links inline"><li class="node-readmore first last"><a href="%s" rel="tag" title="%s">%s<span class="element-invisible"> über %s</span></a></li></ul></div></div>`,
			a.id, cls, href(a), href(a), a.title, a.date.Format(time.RFC3339), date, sentence(r.Intn, 15, 40), href(a), a.title, l.readMore, a.title)
	}
	var items []lineItem
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="%s" dir="ltr"><head><meta charset="utf-8" /><title>Hafenau | Startseite</title></head><body class="html front not-logged-in one-sidebar sidebar-second page-node"><div id="page-wrapper"><div id="page"><div id="header"><div class="section clearfix"><a href="/" title="Home" rel="home" id="logo"><img src="/logo.png" alt="Home" /></a><div id="site-name"><strong><a href="/" rel="home"><span>Hafenau</span></a></strong></div></div></div>`+"\n", l.code)
	b.WriteString(`<div id="main-wrapper" class="clearfix"><div id="main" class="clearfix"><div id="content" class="column"><div class="section"><div class="region region-content">` + "\n")
	a := arts[0]
	if block {
		fmt.Fprintf(&b, `<div id="block-views-featured-block" class="block block-views"><div class="content"><div class="view view-featured view-id-featured view-display-id-block"><div class="view-content"><div class="views-row views-row-1 views-row-odd views-row-first views-row-last">%s</div></div></div></div></div>`+"\n", node(a, true))
	} else {
		fmt.Fprintf(&b, `<div id="block-system-main-sticky" class="block block-node"><div class="content">%s</div></div>`+"\n", node(a, true))
	}
	items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), anyDate: true})
	b.WriteString(`<div id="block-system-main" class="block block-system"><div class="content"><div class="view view-frontpage view-id-frontpage view-display-id-page"><div class="view-content">` + "\n")
	for i, a := range arts[1:] {
		fmt.Fprintf(&b, `<div class="views-row views-row-%d">%s</div>`+"\n", i+1, node(a, false))
		items = append(items, lineItem{title: a.title, link: s9Abs(href(a)), anyDate: true})
	}
	b.WriteString(`</div><h2 class="element-invisible">Seiten</h2><div class="item-list"><ul class="pager"><li class="pager-current first">1</li><li class="pager-item"><a title="Gehe zu Seite 2" href="/node?page=1">2</a></li><li class="pager-next last"><a href="/node?page=1">nächste Seite ›</a></li></ul></div></div></div></div></div></div></div>` + "\n")
	box := func(h, body string) string {
		return `<div class="block block-views"><h2>` + h + `</h2><div class="content">` + body + `</div></div>`
	}
	b.WriteString(`<div id="sidebar-second" class="column sidebar"><div class="section"><div class="region region-sidebar-second">` + leadSidebar(r, l, arts, href, box) + `</div></div></div>`)
	b.WriteString(`</div></div><div id="footer-wrapper"><div class="section"><div id="footer" class="clearfix"><div class="region region-footer"><p>Hafenau</p></div></div></div></div></div></div></body></html>` + "\n")
	return []byte(b.String()), items, fmt.Sprintf("%s n=%d d8=%v block=%v", l.code, n, d8, block)
}

// runLeading checks every page of one half of every shape through the
// annotations and through the selectors, and logs per shape how many
// pages were right each way and how many leading articles were read.
func runLeading(t *testing.T, half string) {
	for _, shape := range leadShapes {
		annotated, selected, pages := 0, 0, 0
		for i, r := range halfRands(half, leadVariants) {
			page, want, desc := shape.gen(r)
			name := fmt.Sprintf("%s-%s-%d", shape.name, half, i+1)
			pages++
			t.Run(name, func(t *testing.T) {
				fail := t.Errorf
				known := leadKnown[name]
				if known != "" {
					fail = t.Logf
				}
				a, s := leadCheck(page, want, fail, desc)
				annotated, selected = annotated+b2i(a), selected+b2i(s)
				if known != "" && a && s {
					t.Errorf("read right, though listed as known to fail (%s)", known)
				}
			})
		}
		t.Logf("%s, %s half: every item right on %d of %d pages through the annotations, %d through the selectors", shape.name, half, annotated, pages, selected)
	}
}

// leadCheck checks one page's items through the annotations and the
// selectors, reporting what is wrong through fail.
func leadCheck(page []byte, want []lineItem, fail func(string, ...any), desc string) (annotated, selected bool) {
	opts := annotate.Options{URL: s9Base}
	res, err := annotate.Suggest(page, opts)
	if err != nil {
		fail("%s: %v", desc, err)
		return false, false
	}
	wrong := checkLineItems(res.Wrapped().Resource.Items, want)
	if len(wrong) > 0 {
		fail("%s: annotations (list %s): %s", desc, res.List.Path, strings.Join(wrong[:min(len(wrong), 3)], "; "))
	}
	sel, note, err := res.Selectors()
	if err != nil {
		fail("%s: selectors: %v", desc, err)
		return len(wrong) == 0, false
	}
	c, err := sel.Compile()
	if err != nil {
		fail("%s: selectors %+v: %v", desc, sel, err)
		return len(wrong) == 0, false
	}
	f, err := annotate.Follow(page, c, opts)
	if err != nil {
		fail("%s: follow: %v", desc, err)
		return len(wrong) == 0, false
	}
	wrongSel := checkLineItems(f.Wrapped.Resource.Items, want)
	if len(wrongSel) > 0 || note != "" {
		fail("%s: selectors %+v (note %q): %s", desc, sel, note, strings.Join(wrongSel[:min(len(wrongSel), 3)], "; "))
	}
	return len(wrong) == 0, len(wrongSel) == 0 && note == ""
}

func TestLeadingDev(t *testing.T)     { runLeading(t, "dev") }
func TestLeadingHeldOut(t *testing.T) { runLeading(t, "heldout") }

// leadCategoryPage is a German Joomla 3 blog whose titles are unlinked
// and whose articles show their category's link before their date: its
// leading article, chosen alone, took "Kategorie: Aktuelles" as its
// title (a link beats an unlinked heading in one record), so it was no
// item like the list's. Found after the held-out run, on a page written
// by hand; a development case.
func leadCategoryPage(rows int) ([]byte, []lineItem) {
	day := time.Date(2024, 3, 28, 0, 0, 0, 0, time.UTC)
	var items []lineItem
	article := func(i int) string {
		d := day.AddDate(0, 0, -i)
		path := fmt.Sprintf("/index.php/aktuelles/%d-bericht", 400-i)
		items = append(items, lineItem{title: fmt.Sprintf("Bericht Nummer %d vom Hafen", i+1), link: s9Abs(path), date: d})
		return fmt.Sprintf(`<div class="page-header"><h2 itemprop="name">Bericht Nummer %d vom Hafen</h2></div><dl class="article-info muted"><dt class="article-info-term">Details</dt><dd class="category-name">Kategorie: <a href="/index.php/aktuelles">Aktuelles</a></dd><dd class="published"><time datetime="%s">Veröffentlicht: %s</time></dd></dl><p>Ein paar Worte zum Bericht %d, was diese Woche am Hafen geschah, und mehr.</p><p class="readmore"><a class="btn" href="%s">Weiterlesen …</a></p>`,
			i+1, d.Format(time.RFC3339), leadLangs[0].dateIn(d), i+1, path)
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="de-de"><head><title>Aktuelles</title></head><body><main id="content"><div class="blog"><div class="items-leading clearfix"><div class="leading-0 clearfix">` + article(0) + `</div></div>` + "\n")
	for r := 0; r < rows; r++ {
		fmt.Fprintf(&b, `<div class="items-row cols-2 row-%d row-fluid clearfix">`, r)
		for c := 0; c < 2; c++ {
			fmt.Fprintf(&b, `<div class="span6"><div class="item column-%d">%s</div></div>`, c+1, article(1+2*r+c))
		}
		b.WriteString("</div>\n")
	}
	b.WriteString(`</div></main><div class="span3"><div class="moduletable"><h3>Neueste Beiträge</h3><ul class="latestnews"><li><a href="/index.php/aktuelles/99-alt">Ältere Meldung vom Hafen</a></li></ul></div></div></body></html>` + "\n")
	return []byte(b.String()), items
}

// TestLeadingCategoryTitle: the leading article of leadCategoryPage is
// the first item, with its heading as its title and its "Weiterlesen …"
// as its link, through the annotations and the selectors.
func TestLeadingCategoryTitle(t *testing.T) {
	for _, rows := range []int{2, 20} {
		page, want := leadCategoryPage(rows)
		leadCheck(page, want, t.Errorf, fmt.Sprintf("%d rows", rows))
	}
}
