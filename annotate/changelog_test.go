package annotate_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// Changelog and release-notes pages (issue 19): one item per release,
// whose title is the version heading's text (its link's text when the
// version is a link inside it), whose link is that link (or the heading's
// own permalink, or else the page's URL with the wrapper's fragment), and
// whose date is the release's when the page shows one. The suggester
// took for titles a subheading repeated under every release ("Fixed",
// "Added", "What's Changed", "Nouveautés"), which no single text marks
// when the subsections vary from release to release. Four shapes in the
// manner of real pages (copied from none): Keep a Changelog rendered to
// HTML, GitHub-like release cards, Sphinx release notes in nested
// sections, and a WordPress plugin's changelog tab; each in English,
// French or German, its versions linked or not, its dates in the
// headings, on a line of their own or absent, its subsections varying.
// The development half's variants come from seeds 1–12, the held-out
// half's from 101–112, with wordings of their own (changelogWords).

// changelogURL is the page's URL: the base of links and of the
// wrapper's fragments for items without one.
const changelogURL = "https://www.example.org/tool/changelog.html"

// changelogShapes are the page shapes, each a generator of one variant.
var changelogShapes = []string{"keep-a-changelog", "release-cards", "sphinx-notes", "wp-plugin"}

// changelogVariant is one page: a shape, a language, and how versions,
// dates and subsections are written.
type changelogVariant struct {
	shape, lang, half string
	linked            bool   // the version is a link (or the heading has a permalink)
	date              string // "heading", "line", "machine" or "none"
	form              int    // how the version and date are written in the heading
	prLinks           bool   // each change links to its pull request
	unreleased        bool   // an "Unreleased" section first (Keep a Changelog)
	anchors           bool   // rendered headings carry an anchor link of no text
	n                 int
	seed              int64
}

func (v changelogVariant) name() string {
	return fmt.Sprintf("%s/%s,seed=%d,linked=%v,date=%s,form=%d,pr=%v,unrel=%v,anchors=%v,n=%d",
		v.shape, v.lang, v.seed, v.linked, v.date, v.form, v.prLinks, v.unreleased, v.anchors, v.n)
}

// changelogWords are, by half and language, the subsection labels a
// release's changes are grouped under, and the words of a release's date
// line; the held-out half's are other wordings of the same.
var changelogWords = map[string]map[string]struct {
	labels   []string
	released string
}{
	"dev": {
		"en": {[]string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, "Released on"},
		"fr": {[]string{"Ajouté", "Modifié", "Supprimé", "Corrigé", "Sécurité"}, "Publiée le"},
		"de": {[]string{"Hinzugefügt", "Geändert", "Entfernt", "Behoben", "Sicherheit"}, "Veröffentlicht am"},
	},
	"heldout": {
		"en": {[]string{"New features", "Improvements", "Bug fixes", "Breaking changes", "Documentation"}, "Release date:"},
		"fr": {[]string{"Nouveautés", "Améliorations", "Corrections", "Compatibilité", "Documentation"}, "Date de sortie :"},
		"de": {[]string{"Neu", "Verbesserungen", "Fehlerbehebungen", "Inkompatible Änderungen", "Dokumentation"}, "Erschienen am"},
	},
}

// changelogMonths are month names for dates written out.
var changelogMonths = map[string][]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
}

// changelogDay writes a date in the language's long form, or ISO for
// form 0.
func changelogDay(lang string, form int, d time.Time) string {
	if form%2 == 0 {
		return d.Format("2006-01-02")
	}
	m := changelogMonths[lang][d.Month()-1]
	switch lang {
	case "fr":
		return fmt.Sprintf("%d %s %d", d.Day(), m, d.Year())
	case "de":
		return fmt.Sprintf("%d. %s %d", d.Day(), m, d.Year())
	}
	return fmt.Sprintf("%s %d, %d", m, d.Day(), d.Year())
}

// changelogVersion is release i's version, the newest first.
func changelogVersion(i int) string {
	return fmt.Sprintf("%d.%d.%d", 4-i/30, 29-i%30/3, 2-i%3)
}

// changelogRelease is release i's date, the newest first.
func changelogRelease(i int) time.Time {
	return time.Date(2024, 6, 28, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -9*i)
}

// changelogVariants are a half's variants: three for each shape and
// language (36), from the half's seeds.
func changelogVariants(half string) []changelogVariant {
	var out []changelogVariant
	rs := halfRands(half, 12)
	for si, shape := range changelogShapes {
		for k := 0; k < 3; k++ {
			r := rs[(si*3+k)%len(rs)]
			for _, lang := range []string{"en", "fr", "de"} {
				v := changelogVariant{
					shape: shape, lang: lang, half: half,
					linked:  r.Intn(2) == 0,
					date:    []string{"heading", "line", "line", "none"}[r.Intn(4)],
					form:    r.Intn(4),
					prLinks: r.Intn(2) == 0,
					anchors: r.Intn(2) == 0,
					n:       3 + r.Intn(22),
					seed:    int64(r.Intn(1 << 20)),
				}
				switch shape {
				case "keep-a-changelog":
					v.unreleased = r.Intn(2) == 0
				case "release-cards":
					v.linked = true // a release's title links to its page
					v.date = []string{"machine", "line"}[r.Intn(2)]
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// changelogChanges writes release i's changes: a random subset of the
// labels (at least one; "Fixed" missing from some releases), each over
// a list of one to three changes, as sub(label, list).
func changelogChanges(v changelogVariant, r *rand.Rand, i int, sub func(label, list string) string) string {
	labels := changelogWords[v.half][v.lang].labels
	var sb strings.Builder
	wrote := 0
	for k, label := range labels {
		if r.Intn(3) == 0 || (wrote == 0 && k == len(labels)-1) || (k == 0 && r.Intn(2) == 0) {
			var ul strings.Builder
			ul.WriteString("<ul>\n")
			for c := 0; c < 1+r.Intn(3); c++ {
				line := sentenceOf(i*7+k*3+c, 5+r.Intn(8))
				if v.prLinks {
					pr := 4000 - i*9 - k*3 - c
					line = fmt.Sprintf(`%s (<a href="https://git.example.org/acme/tool/pull/%d">#%d</a>)`, line, pr, pr)
				}
				fmt.Fprintf(&ul, "<li>%s</li>\n", line)
			}
			ul.WriteString("</ul>\n")
			sb.WriteString(sub(label, ul.String()))
			wrote++
		}
	}
	return sb.String()
}

// changelogPage writes a variant's page and the items it should give.
// changelogItem is an item of a changelog page: its title may be the
// version link's text or, as alt, the whole heading's text ("4.2.1" or
// "4.2.1 - 2024-03-04"), both the release's name as shown.
type changelogItem struct {
	lineItem
	alt string
}

func changelogPage(v changelogVariant) (string, []changelogItem) {
	r := rand.New(rand.NewSource(v.seed))
	words := changelogWords[v.half][v.lang]
	var sb strings.Builder
	var want []changelogItem
	add := func(title, link string, d time.Time) {
		if link == "" {
			link = fmt.Sprintf("%s#item-%d", changelogURL, len(want)+1)
		}
		want = append(want, changelogItem{lineItem: lineItem{title: title, link: link, date: d}})
	}
	// alt names the heading's whole text as the last item's title too,
	// where its version is a link inside it.
	alt := func(title string) { want[len(want)-1].alt = title }
	dateLine := func(d time.Time) string {
		return fmt.Sprintf("<p><em>%s %s</em></p>\n", words.released, changelogDay(v.lang, v.form, d))
	}
	switch v.shape {
	case "keep-a-changelog":
		// GitHub's rendering of "## [1.2.0] - 2024-03-04" (a reference
		// link to the comparison), with "### Added" subheadings; with
		// anchors, each heading in a div with its anchor link.
		heading := func(inner, slug string) string {
			if v.anchors {
				return fmt.Sprintf(`<div class="markdown-heading"><h2 class="heading-element">%s</h2><a id="user-content-%s" class="anchor" aria-label="Permalink: %s" href="#%s"><svg class="octicon" viewBox="0 0 16 16" width="16" height="16"><path d="M7.775 3.275"></path></svg></a></div>`+"\n", inner, slug, slug, slug)
			}
			return "<h2>" + inner + "</h2>\n"
		}
		sub := func(label, list string) string {
			if v.anchors {
				return fmt.Sprintf(`<div class="markdown-heading"><h3 class="heading-element">%s</h3><a id="user-content-%s" class="anchor" href="#%s"><svg class="octicon" viewBox="0 0 16 16"></svg></a></div>`+"\n%s", label, strings.ToLower(label), strings.ToLower(label), list)
			}
			return "<h3>" + label + "</h3>\n" + list
		}
		sb.WriteString(`<article class="markdown-body entry-content"><h1>Changelog</h1>` + "\n<p>All notable changes to this project are documented in this file. The format follows Keep a Changelog.</p>\n")
		if v.unreleased {
			u := "https://git.example.org/acme/tool/compare/v" + changelogVersion(0) + "...HEAD"
			inner := "[Unreleased]"
			if v.linked {
				inner = `<a href="` + u + `">Unreleased</a>`
				add("Unreleased", u, time.Time{})
			} else {
				add("[Unreleased]", "", time.Time{})
			}
			sb.WriteString(heading(inner, "unreleased"))
			sb.WriteString(changelogChanges(v, r, 99, sub))
		}
		for i := 0; i < v.n; i++ {
			ver, d := changelogVersion(i), changelogRelease(i)
			slug := strings.ReplaceAll(ver, ".", "") + "---" + d.Format("2006-01-02")
			u := fmt.Sprintf("https://git.example.org/acme/tool/compare/v%s...v%s", changelogVersion(i+1), ver)
			var inner, title, tail string
			var date time.Time
			if v.date == "heading" || v.date == "line" {
				date = d
			}
			if v.date == "heading" {
				tail = " - " + d.Format("2006-01-02")
			}
			if v.linked {
				inner, title = `<a href="`+u+`">`+ver+`</a>`+tail, ver
			} else {
				inner = "[" + ver + "]" + tail
				title, u = inner, ""
			}
			add(title, u, date)
			if v.linked && tail != "" {
				alt(title + tail)
			}
			sb.WriteString(heading(inner, slug))
			if v.date == "line" {
				sb.WriteString(dateLine(d))
			}
			sb.WriteString(changelogChanges(v, r, i, sub))
		}
		sb.WriteString("</article>")
	case "release-cards":
		// GitHub-like release cards: the release's title linking to its
		// page, its date, the notes under "What's Changed"-like
		// headings, the full changelog's link and the assets.
		sb.WriteString(`<div class="container"><h1 class="sr-only">Releases: acme/tool</h1><div id="release-list">` + "\n")
		for i := 0; i < v.n; i++ {
			ver, d := changelogVersion(i), changelogRelease(i)
			u := "/acme/tool/releases/tag/v" + ver
			name := "v" + ver
			if v.form >= 2 {
				name = map[string]string{"en": "Version ", "fr": "Version ", "de": "Version "}[v.lang] + ver
			}
			var when string
			if v.date == "machine" {
				when = fmt.Sprintf(`<relative-time class="no-wrap" datetime="%sT10:%02d:00Z" prefix="">%s</relative-time>`, d.Format("2006-01-02"), i%60, d.Format("Jan 2"))
			} else {
				when = `<span class="release-date">` + changelogDay(v.lang, v.form, d) + `</span>`
			}
			sb.WriteString(fmt.Sprintf(`<section aria-labelledby="hd-%d"><div class="Box release-card"><div class="Box-body"><div class="d-flex"><span class="f1 text-bold"><a href="%s" class="Link--primary">%s</a></span>`, i, u, name))
			if i == 0 {
				sb.WriteString(`<span class="Label Label--success">Latest</span>`)
			}
			sb.WriteString(`</div><div class="text-small color-fg-muted">` + when + `</div><div class="markdown-body my-3">` + "\n")
			sb.WriteString(changelogChanges(v, r, i, func(label, list string) string { return "<h2>" + label + "</h2>\n" + list }))
			fmt.Fprintf(&sb, `<p><strong>Full Changelog</strong>: <a href="https://git.example.org/acme/tool/compare/v%s...v%s">v%s...v%s</a></p>`+"\n", changelogVersion(i+1), ver, changelogVersion(i+1), ver)
			fmt.Fprintf(&sb, `</div><details><summary>Assets <span class="Counter">2</span></summary><ul><li><a href="/acme/tool/archive/refs/tags/v%s.zip">Source code (zip)</a></li><li><a href="/acme/tool/archive/refs/tags/v%s.tar.gz">Source code (tar.gz)</a></li></ul></details></div></div></section>`+"\n", ver, ver)
			add(name, "https://www.example.org"+u, d)
		}
		sb.WriteString("</div></div>")
	case "sphinx-notes":
		// Sphinx's release notes: a section for each release with a
		// permalink in its heading (linked) or none, the release's date
		// on a line, then a section for each kind of change.
		prefix := []string{"Tool ", "Version ", "", "Tool "}[v.form]
		sb.WriteString(`<div class="document"><div class="body" role="main"><section id="changelog"><h1>Changelog</h1>` + "\n")
		seen := map[string]int{}
		for i := 0; i < v.n; i++ {
			ver, d := changelogVersion(i), changelogRelease(i)
			title := prefix + ver
			slug := "tool-" + strings.ReplaceAll(ver, ".", "-")
			if prefix == "" {
				slug = "id" + fmt.Sprint(i+1)
			}
			var date time.Time
			if v.date == "heading" {
				title += " (" + changelogDay(v.lang, v.form, d) + ")"
				date = d
			}
			permalink := ""
			if v.linked {
				permalink = fmt.Sprintf(`<a class="headerlink" href="#%s" title="Link to this heading">¶</a>`, slug)
			}
			fmt.Fprintf(&sb, `<section id="%s"><h2>%s%s</h2>`+"\n", slug, title, permalink)
			if v.date == "line" {
				sb.WriteString(dateLine(d))
				date = d
			}
			add(title, "", date)
			sb.WriteString(changelogChanges(v, r, i, func(label, list string) string {
				id := strings.ToLower(strings.ReplaceAll(label, " ", "-"))
				if seen[id]++; seen[id] > 1 {
					id = fmt.Sprintf("id%d", 100+len(seen)*10+seen[id])
				}
				pl := ""
				if v.linked {
					pl = fmt.Sprintf(`<a class="headerlink" href="#%s" title="Link to this heading">¶</a>`, id)
				}
				return fmt.Sprintf(`<section id="%s"><h3>%s%s</h3>`+"\n%s</section>\n", id, label, pl, strings.Replace(list, "<ul>", `<ul class="simple">`, 1))
			}))
			sb.WriteString("</section>\n")
		}
		sb.WriteString("</section></div></div>")
	case "wp-plugin":
		// A WordPress plugin's changelog tab: an h4 for each version
		// (a link to its download when linked), the date in it, on a
		// line or absent, then the changes under bold labels.
		sb.WriteString(`<div id="main" class="plugin-page"><h2 id="changelog-header">Changelog</h2><div id="tab-changelog" class="plugin-changelog section">` + "\n")
		for i := 0; i < v.n; i++ {
			ver, d := changelogVersion(i), changelogRelease(i)
			var date time.Time
			title, tail := ver, ""
			if v.form >= 2 {
				title = map[string]string{"en": "Version ", "fr": "Version ", "de": "Version "}[v.lang] + ver
			}
			if v.date == "heading" {
				tail = " – " + changelogDay(v.lang, v.form, d)
				date = d
			}
			link := ""
			if v.linked {
				link = "https://downloads.example.org/plugin/tool." + ver + ".zip"
				fmt.Fprintf(&sb, `<h4><a href="%s">%s</a>%s</h4>`+"\n", link, title, tail)
			} else {
				title += tail
				fmt.Fprintf(&sb, "<h4>%s</h4>\n", title)
			}
			if v.date == "line" {
				sb.WriteString(dateLine(d))
				date = d
			}
			add(title, link, date)
			if v.linked && tail != "" {
				alt(title + tail)
			}
			sb.WriteString(changelogChanges(v, r, i, func(label, list string) string {
				return "<p><strong>" + label + "</strong></p>\n" + list
			}))
		}
		sb.WriteString("</div></div>")
	}
	lang := map[string]string{"en": "en", "fr": "fr", "de": "de"}[v.lang]
	page := "<!DOCTYPE html>\n<html lang=\"" + lang + "\"><head><meta charset=\"utf-8\"><title>Changelog · tool</title></head><body>\n" +
		`<header><a class="logo" href="/">Tool</a><nav><ul><li><a href="/tool/">Home</a></li><li><a href="/tool/docs/">Docs</a></li><li><a href="/tool/changelog.html">Changelog</a></li></ul></nav></header>` + "\n" +
		sb.String() +
		"\n<footer><p>© 2024 Acme. <a href=\"/privacy/\">Privacy</a></p></footer>\n</body></html>\n"
	return page, want
}

// changelogFailures are the variants that fail outside the classes
// changelogKnown names, and why: the held-out half's found on its one
// run, and the development half's.
var changelogFailures = map[string]string{
	"release-cards/de,seed=559082,linked=true,date=machine,form=0,pr=true,unrel=false,anchors=false,n=6":   "six releases under four different first subheadings: a text another record holds in only half the records, no label (repeatedMostly)",
	"keep-a-changelog/fr,seed=278348,linked=true,date=none,form=0,pr=true,unrel=false,anchors=true,n=19":   "every heading in a div.markdown-heading, the releases' and the subsections' alike: the runs are cut at each, and the runs from each list of changes win",
	"keep-a-changelog/de,seed=216887,linked=false,date=line,form=1,pr=false,unrel=true,anchors=true,n=4":   "every heading in a div.markdown-heading, the releases' and the subsections' alike: the runs are cut at each",
	"keep-a-changelog/de,seed=884827,linked=false,date=line,form=2,pr=false,unrel=false,anchors=true,n=24": "every heading in a div.markdown-heading, the releases' and the subsections' alike: the runs are cut at each, and the runs from each list of changes win",
}

// changelogKnown says why a variant is known to fail, or "".
func changelogKnown(v changelogVariant) string {
	if why := changelogFailures[v.name()]; why != "" {
		return why
	}
	switch {
	case !v.linked && !v.prLinks && !(v.shape == "keep-a-changelog" && v.anchors):
		// A heading's anchor (GitHub's rendering) is a link to the
		// suggester's lists, though to no page.
		return "no record holds a link: the suggester's lists are of records with a link and text (How it finds the list, step 1)"
	case v.shape == "sphinx-notes" && v.linked:
		return "the title keeps the heading's permalink sign (\"Tool 4.29.2¶\"): the title is the heading's whole content"
	case v.date == "heading" && (!v.linked || v.shape == "sphinx-notes"):
		return "the date is in the version heading, which is the title: a date annotation inside it would take its text out of the title (docs/WRAPPER.md, nesting)"
	}
	return ""
}

// runChangelog checks a half's variants through the annotations (every
// item's title, link and date: checkLineItems) and the selectors, and
// logs the figures by shape.
func runChangelog(t *testing.T, half string) {
	for _, shape := range changelogShapes {
		right, both, total := 0, 0, 0
		t.Run(shape, func(t *testing.T) {
			for _, v := range changelogVariants(half) {
				if v.shape != shape {
					continue
				}
				total++
				t.Run(v.name(), func(t *testing.T) {
					page, items := changelogPage(v)
					opts := annotate.Options{URL: changelogURL}
					res, err := annotate.Suggest([]byte(page), opts)
					known := map[string]string{}
					if why := changelogKnown(v); why != "" {
						known[v.name()] = why
					}
					if err != nil {
						judgeKnown(t, known, "changelogKnown", v.name(), []string{err.Error()})
						return
					}
					if back := annotate.RemoveInserted(res.Page, res.Inserted); string(back) != page {
						t.Fatal("removing the inserted comments does not give the page back")
					}
					got := res.Wrapped().Resource.Items
					want := changelogWant(got, items)
					wrong := checkLineItems(got, want)
					if len(wrong) > 0 {
						wrong = append(wrong[:min(len(wrong), 3)], "list "+res.List.Path)
					} else {
						right++
						sel, _, note := followSuggested(t, res, []byte(page), opts)
						if bad := checkLineItems(sel, changelogWant(sel, items)); note == "" && len(bad) == 0 {
							both++
						} else {
							t.Logf("the selectors: %s %v", note, bad[:min(len(bad), 2)])
						}
					}
					judgeKnown(t, known, "changelogKnown", v.name(), wrong)
				})
			}
		})
		t.Logf("%s half, %s: exactly the items on %d of %d pages, and selectors without a note giving them on %d", half, shape, right, total, both)
	}
}

// changelogWant is the items wanted, each item's title its alternative
// where the item read has that one.
func changelogWant(got []dynamo.Item, items []changelogItem) []lineItem {
	want := make([]lineItem, len(items))
	for i, it := range items {
		want[i] = it.lineItem
		if i < len(got) && it.alt != "" && got[i].Title == it.alt {
			want[i].title = it.alt
		}
	}
	return want
}

func TestChangelogDev(t *testing.T) { runChangelog(t, "dev") }

func TestChangelogHeldOut(t *testing.T) { runChangelog(t, "heldout") }
