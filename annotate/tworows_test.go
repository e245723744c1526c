package annotate_test

import (
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// Tables whose every item spans two or three rows (issue 19): a
// government notices table whose row 1 holds the date, the reference and
// the title link and row 2 a <td colspan> description was read as two
// items a notice, without dates. Each record must be one item: its title
// and link from the link, its description from the text row, its date
// from the date cell, through the annotations and through the selectors.
//
// The shapes are those of real sites: municipal notices (date,
// reference, title; a description row), tenders (a title row; a row of
// date, category and office), court and council decisions (date, case
// number, title; a summary; a spacer row), a library catalogue (a date
// cell spanning the record's two rows), legacy <font> tables in
// capitals (a description row, sometimes a spacer of a one-pixel
// image), and a date row above each item's row. The DEVELOPMENT half
// (English and German wording, seeds from 1) was tuned on; the HELD-OUT
// half (Spanish and French wording, seeds from 101, markup knobs drawn
// anew) was run once at the end.

// twoRowVariant is one page.
type twoRowVariant struct {
	shape   string // notices, tenders, decisions, catalogue, legacy-font, date-row
	lang    string // en, de, es, fr
	format  string // "02.01.2006", "2006-01-02", or "long" ("4 March 2024" in the page's language)
	classes string // "", "oddeven" (class odd/even on both rows of a record), "rowN" (row1/row2 alternating), "parts" (class on each row of its part)
	header  string // "thead", "th" (a header row of th cells in the body), "none"
	descURL bool   // some descriptions hold a link of their own
	spacer  bool   // legacy-font: a spacer row ends each record
	missing bool   // the second record lacks its description row (not in tenders and date-row)
	items   int
}

func (v twoRowVariant) name() string {
	return fmt.Sprintf("%s,%s,format=%q,classes=%s,header=%s,desclink=%v,spacer=%v,missing=%v,n=%d",
		v.shape, v.lang, v.format, v.classes, v.header, v.descURL, v.spacer, v.missing, v.items)
}

// twoRowItem is what an item must be read as; desc "" is not checked.
type twoRowItem struct {
	lineItem
	desc string
}

var twoRowWords = map[string]struct {
	titles, descs, cats, offices []string
	months                       []string
	head                         []string // date, reference, title, description
	page                         string
}{
	"en": {
		titles: []string{"Planning application for an extension at Mill Lane", "Road closure on the coast road for resurfacing", "Licence application for the market square kiosk",
			"Tree preservation order at the old vicarage", "Notice of election of parish councillors", "Proposed waiting restrictions on Station Road",
			"Draft budget for the coming year open to comment", "Temporary closure of the public footpath by the river"},
		descs: []string{"The applicant seeks permission to build a two-storey extension at the rear of the house.",
			"Representations may be made in writing to the licensing office within twenty-eight days.",
			"The works will take place between eight in the morning and six in the evening on weekdays.",
			"Copies of the documents may be inspected at the town hall during its opening hours."},
		cats:    []string{"Works", "Services", "Supplies"},
		offices: []string{"Procurement office", "Highways department", "Housing services"},
		months:  months,
		head:    []string{"Date", "Reference", "Notice", "Details"},
		page:    "Public notices",
	},
	"de": {
		titles: []string{"Bekanntmachung über die Aufstellung des Bebauungsplans Mühlweg", "Sperrung der Hafenstraße wegen Bauarbeiten", "Öffentliche Auslegung des Haushaltsplans",
			"Satzung über die Erhebung von Gebühren für die Stadtbibliothek", "Wahlbekanntmachung zur Wahl des Ortsbeirats", "Allgemeinverfügung zum Schutz der Alleebäume",
			"Ausschreibung der Reinigung städtischer Gebäude", "Einladung zur Sitzung des Bauausschusses"},
		descs: []string{"Die Unterlagen liegen während der Dienststunden im Rathaus zur Einsicht aus.",
			"Stellungnahmen können bis zum Ende der Auslegungsfrist schriftlich abgegeben werden.",
			"Die Arbeiten finden werktags zwischen sieben und siebzehn Uhr statt.",
			"Der vollständige Wortlaut ist im Amtsblatt der Stadt veröffentlicht worden."},
		cats:    []string{"Bauleistungen", "Dienstleistungen", "Lieferungen"},
		offices: []string{"Vergabestelle", "Tiefbauamt", "Hauptamt"},
		months:  []string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		head:    []string{"Datum", "Aktenzeichen", "Bekanntmachung", "Inhalt"},
		page:    "Amtliche Bekanntmachungen",
	},
	"es": {
		titles: []string{"Anuncio de licitación para el mantenimiento de parques", "Corte de tráfico en la avenida del puerto por obras", "Aprobación inicial del presupuesto municipal",
			"Convocatoria de subvenciones para asociaciones culturales", "Exposición pública del padrón del impuesto de vehículos", "Resolución sobre la ordenanza de terrazas",
			"Licencia de actividad para un local en la calle Mayor", "Información pública del proyecto de reforma del mercado"},
		descs: []string{"Los interesados podrán presentar alegaciones en el registro general durante veinte días hábiles.",
			"El expediente puede consultarse en las oficinas municipales en horario de atención al público.",
			"Las obras se realizarán de lunes a viernes entre las ocho y las quince horas.",
			"El texto íntegro se ha publicado en el boletín oficial de la provincia."},
		cats:    []string{"Obras", "Servicios", "Suministros"},
		offices: []string{"Servicio de contratación", "Área de urbanismo", "Secretaría general"},
		months:  []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		head:    []string{"Fecha", "Expediente", "Anuncio", "Descripción"},
		page:    "Tablón de anuncios",
	},
	"fr": {
		titles: []string{"Avis d'enquête publique sur le plan local d'urbanisme", "Fermeture de la rue du port pour travaux de voirie", "Délibération relative aux tarifs de la cantine scolaire",
			"Arrêté portant réglementation du stationnement place du marché", "Appel d'offres pour l'entretien des espaces verts", "Convocation du conseil municipal en séance publique",
			"Avis de mise à disposition du dossier de modification", "Consultation pour la restauration de l'église Saint-Martin"},
		descs: []string{"Le dossier peut être consulté en mairie aux jours et heures habituels d'ouverture.",
			"Les observations peuvent être adressées par écrit au commissaire enquêteur pendant toute la durée.",
			"Les travaux se dérouleront du lundi au vendredi entre huit heures et dix-sept heures.",
			"Le texte intégral a été publié au recueil des actes administratifs de la commune."},
		cats:    []string{"Travaux", "Services", "Fournitures"},
		offices: []string{"Service des marchés", "Direction de l'urbanisme", "Secrétariat général"},
		months:  []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		head:    []string{"Date", "Référence", "Avis", "Objet"},
		page:    "Avis et publications",
	},
}

// twoRowDate writes a date in the variant's format and language.
func (v twoRowVariant) date(d time.Time) string {
	if v.format != "long" {
		return d.Format(v.format)
	}
	w := twoRowWords[v.lang]
	switch v.lang {
	case "de":
		return fmt.Sprintf("%d. %s %d", d.Day(), w.months[d.Month()-1], d.Year())
	case "es":
		return fmt.Sprintf("%d de %s de %d", d.Day(), w.months[d.Month()-1], d.Year())
	}
	return fmt.Sprintf("%d %s %d", d.Day(), w.months[d.Month()-1], d.Year())
}

const twoRowBase = "https://www.example.org/section/"

// page writes the variant's page and the items it must give.
func (v twoRowVariant) page() ([]byte, []twoRowItem) {
	w := twoRowWords[v.lang]
	var b strings.Builder
	var items []twoRowItem
	caps := v.shape == "legacy-font"
	up := func(s string) string {
		if !caps {
			return s
		}
		return strings.NewReplacer("<tr", "<TR", "</tr>", "</TR>", "<td", "<TD", "</td>", "</TD>", "<th", "<TH", "</th>", "</TH>",
			"<a ", "<A ", "</a>", "</A>", "href=", "HREF=", "colspan=", "COLSPAN=", "<font", "<FONT", "</font>", "</FONT>", "<b>", "<B>", "</b>", "</B>",
			"<img", "<IMG", "<thead>", "<THEAD>", "</thead>", "</THEAD>", "<tbody>", "<TBODY>", "</tbody>", "</TBODY>").Replace(s)
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><title>%s</title></head><body>\n", w.page)
	b.WriteString(`<div id="header"><a href="/">Home</a> | <a href="/council/">Council</a> | <a href="/contact/">Contact</a></div>` + "\n")
	fmt.Fprintf(&b, "<div class=\"content\">\n<h1>%s</h1>\n<p>%s.</p>\n", w.page, w.descs[3])
	cols := map[string]int{"notices": 3, "tenders": 3, "decisions": 3, "catalogue": 3, "legacy-font": 2, "date-row": 2}[v.shape]
	if caps {
		b.WriteString(`<TABLE WIDTH="100%" BORDER="0" CELLPADDING="2" CELLSPACING="0">` + "\n")
	} else {
		b.WriteString(`<table class="listing" summary="` + w.page + `">` + "\n")
	}
	var hrow strings.Builder
	cell := "th"
	if v.header == "th" && caps {
		cell = "td"
	}
	hrow.WriteString("<tr>")
	for k := 0; k < cols; k++ {
		fmt.Fprintf(&hrow, "<%s>%s</%s>", cell, w.head[k], cell)
	}
	hrow.WriteString("</tr>\n")
	switch v.header {
	case "thead":
		b.WriteString(up("<thead>" + hrow.String() + "</thead>\n<tbody>\n"))
	case "th":
		b.WriteString(up("<tbody>\n" + hrow.String()))
	default:
		b.WriteString(up("<tbody>\n"))
	}
	day := time.Date(2024, 3, 28, 0, 0, 0, 0, time.UTC)
	for i := 0; i < v.items; i++ {
		d := day.AddDate(0, 0, -5*i)
		for d.Day() < 13 { // no date reads as day/month and month/day both
			d = d.AddDate(0, 0, -1)
		}
		ds := v.date(d)
		it := twoRowItem{lineItem: lineItem{
			title: fmt.Sprintf("%s (%d)", w.titles[i%len(w.titles)], 2024-i),
			link:  fmt.Sprintf("%snotices/%d-%d.html", twoRowBase, 2024, 500-i),
			date:  d,
		}}
		link := fmt.Sprintf(`<a href="notices/%d-%d.html">%s</a>`, 2024, 500-i, html.EscapeString(it.title))
		desc := w.descs[i%len(w.descs)]
		descHTML := html.EscapeString(desc)
		if v.descURL && i%3 == 1 {
			descHTML += fmt.Sprintf(` <a href="/files/plan-%d.pdf">PDF</a>`, i)
		}
		ref := fmt.Sprintf("%s-%d/%03d", strings.ToUpper(v.lang), 2024, 500-i)
		// The classes of the record's rows.
		rc := func(part string) string {
			switch v.classes {
			case "oddeven":
				if i%2 == 0 {
					return ` class="odd"`
				}
				return ` class="even"`
			case "rowN":
				return fmt.Sprintf(` class="row%d"`, 1+i%2)
			case "parts":
				return ` class="notice-` + part + `"`
			}
			return ""
		}
		var rows string
		switch v.shape {
		case "notices":
			rows = fmt.Sprintf("<tr%s><td>%s</td><td>%s</td><td>%s</td></tr>\n<tr%s><td colspan=\"3\">%s</td></tr>\n",
				rc("head"), ds, ref, link, rc("body"), descHTML)
			it.desc = desc
		case "tenders":
			office := w.offices[i%len(w.offices)]
			if v.descURL {
				office = fmt.Sprintf(`<a href="/offices/%d">%s</a>`, i%len(w.offices), office)
			}
			rows = fmt.Sprintf("<tr%s><td colspan=\"3\"><strong>%s</strong></td></tr>\n<tr%s><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				rc("head"), link, rc("body"), ds, w.cats[i%len(w.cats)], office)
		case "decisions":
			spacer := []string{`<td colspan="3">&nbsp;</td>`, `<td colspan="3" class="sep"></td>`, `<td colspan="3"><hr></td>`}[v.items%3]
			rows = fmt.Sprintf("<tr%s><td>%s</td><td>%s</td><td>%s</td></tr>\n<tr%s><td colspan=\"3\">%s</td></tr>\n<tr%s>%s</tr>\n",
				rc("head"), ds, ref, link, rc("body"), descHTML, rc("sep"), spacer)
			it.desc = desc
		case "catalogue":
			rows = fmt.Sprintf("<tr%s><td rowspan=\"2\">%s</td><td>%s</td><td>%s</td></tr>\n<tr%s><td colspan=\"2\">%s</td></tr>\n",
				rc("head"), ds, link, ref, rc("body"), descHTML)
			it.desc = desc
		case "legacy-font":
			rows = fmt.Sprintf("<tr%s><td><font size=\"2\"><b>%s</b></font></td><td><font size=\"2\">%s</font></td></tr>\n<tr%s><td>&nbsp;</td><td><font size=\"1\">%s</font></td></tr>\n",
				rc("head"), ds, link, rc("body"), descHTML)
			if v.spacer {
				rows += fmt.Sprintf("<tr%s><td colspan=\"2\"><img src=\"/img/dot.gif\" width=\"1\" height=\"4\" alt=\"\"></td></tr>\n", rc("sep"))
			}
			it.desc = desc
		case "date-row":
			rows = fmt.Sprintf("<tr%s><td colspan=\"2\" class=\"date\">%s</td></tr>\n<tr%s><td>%s</td><td>%s</td></tr>\n",
				rc("head"), ds, rc("body"), link, descHTML)
			it.desc = desc
		}
		if v.missing && i == 1 && it.desc != "" {
			// The record without its description row.
			rows = rows[:strings.Index(rows, "</tr>\n")+len("</tr>\n")]
			if v.shape == "catalogue" {
				rows = strings.Replace(rows, ` rowspan="2"`, "", 1)
			}
			it.desc = ""
		}
		b.WriteString(up(rows))
		items = append(items, it)
	}
	b.WriteString(up("</tbody>\n"))
	if caps {
		b.WriteString("</TABLE>\n")
	} else {
		b.WriteString("</table>\n")
	}
	b.WriteString("</div>\n<div id=\"footer\"><p>© 2024 <a href=\"/imprint/\">Imprint</a> · <a href=\"/privacy/\">Privacy</a></p></div>\n</body></html>\n")
	return []byte(b.String()), items
}

var twoRowShapes = []string{"notices", "tenders", "decisions", "catalogue", "legacy-font", "date-row"}

// twoRowVariants are a half's variants: eight of each shape, their knobs
// drawn from the half's seeds (halfRands), the wording in the half's
// languages.
func twoRowVariants(half string) []twoRowVariant {
	langs := map[string][]string{"dev": {"en", "de"}, "heldout": {"es", "fr"}}[half]
	formats := []string{"02.01.2006", "2006-01-02", "long"}
	classes := []string{"", "", "oddeven", "rowN", "parts"}
	headers := []string{"thead", "th", "none"}
	var out []twoRowVariant
	rs := halfRands(half, 8*len(twoRowShapes))
	for k, r := range rs {
		v := twoRowVariant{
			shape:   twoRowShapes[k%len(twoRowShapes)],
			lang:    langs[r.Intn(len(langs))],
			format:  formats[r.Intn(len(formats))],
			classes: classes[r.Intn(len(classes))],
			header:  headers[r.Intn(len(headers))],
			descURL: r.Intn(3) == 0,
			spacer:  r.Intn(2) == 0,
			missing: r.Intn(4) == 0 && k%len(twoRowShapes) != 1 && k%len(twoRowShapes) != 5, // not tenders, date-row
			items:   3 + r.Intn(3)*r.Intn(40),
		}
		out = append(out, v)
	}
	return out
}

var tagsRE = regexp.MustCompile(`<[^>]*>`)

// checkTwoRowItems compares the items read with those wanted: titles,
// links and dates (checkLineItems), and the description's text.
func checkTwoRowItems(got []dynamo.Item, want []twoRowItem) []string {
	lw := make([]lineItem, len(want))
	for i, w := range want {
		lw[i] = w.lineItem
	}
	wrong := checkLineItems(got, lw)
	if len(wrong) > 0 {
		return wrong
	}
	for i, it := range got {
		text := strings.Join(strings.Fields(html.UnescapeString(tagsRE.ReplaceAllString(it.Description, " "))), " ")
		if want[i].desc != "" && !strings.Contains(text, want[i].desc) {
			return []string{fmt.Sprintf("item %d: description %q, want %q", i+1, text, want[i].desc)}
		}
	}
	return nil
}

var twoRowsDir = flag.String("tworows", "", "write the two-row variants' pages into this directory")

// runTwoRows checks a half's variants through the annotations (and the
// wrapper reading the annotated page) and through the selectors, and
// logs the figures per shape.
func runTwoRows(t *testing.T, half string) {
	type tally struct{ n, annotated, selected int }
	per := map[string]*tally{}
	for _, v := range twoRowVariants(half) {
		tl := per[v.shape]
		if tl == nil {
			tl = &tally{}
			per[v.shape] = tl
		}
		tl.n++
		t.Run(v.name(), func(t *testing.T) {
			page, want := v.page()
			if *twoRowsDir != "" {
				if err := os.WriteFile(filepath.Join(*twoRowsDir, half+","+v.name()+".html"), page, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := annotate.Options{URL: twoRowBase}
			res, err := annotate.Suggest(page, opts)
			if err != nil {
				t.Fatal(err)
			}
			if back := annotate.RemoveInserted(res.Page, res.Inserted); string(back) != string(page) {
				t.Fatal("removing the inserted comments does not give the page back")
			}
			if wrong := checkTwoRowItems(res.Wrapped().Resource.Items, want); len(wrong) > 0 {
				t.Errorf("annotations (list %s): %s", res.List.Path, strings.Join(wrong, "; "))
			} else {
				tl.annotated++
			}
			items, sel, note := followSuggested(t, res, page, opts)
			if wrong := checkTwoRowItems(items, want); len(wrong) > 0 || note != "" {
				t.Errorf("selectors %+v (note %q): %s", sel, note, strings.Join(wrong, "; "))
			} else {
				tl.selected++
			}
		})
	}
	for _, s := range twoRowShapes {
		if tl := per[s]; tl != nil {
			t.Logf("%s half, %s: every item's title, link, date and description right on %d of %d variants through the annotations, %d through the selectors", half, s, tl.annotated, tl.n, tl.selected)
		}
	}
}

func TestTwoRowsDev(t *testing.T) { runTwoRows(t, "dev") }

func TestTwoRowsHeldOut(t *testing.T) { runTwoRows(t, "heldout") }

// TestTwoRowsEdges checks pages of the development half that the
// variants draw rarely or not at all: a long legacy table whose every
// third description row holds a link (cut at the rows of a coarse
// shape, those rows started records of their own: the finer cut, more
// regular, is kept), a short catalogue whose second record lacks its
// description row (and so the rowspan of its date cell), and a date row
// over a varying number of items (a
// day with two), which is no table of records of one item: every item
// keeps its title and link.
func TestTwoRowsEdges(t *testing.T) {
	opts := annotate.Options{URL: twoRowBase}
	t.Run("legacy-font,desclink,n=71", func(t *testing.T) {
		page, want := twoRowVariant{shape: "legacy-font", lang: "en", format: "02.01.2006", descURL: true, header: "none", items: 71}.page()
		checkTwoRows(t, page, want, opts)
	})
	t.Run("catalogue,missing,n=3", func(t *testing.T) {
		// The record without its description row has no rowspan: cut
		// at the rows of the head's fine shape, it joined the record
		// before it.
		page, want := twoRowVariant{shape: "catalogue", lang: "en", format: "2006-01-02", header: "th", missing: true, items: 3}.page()
		checkTwoRows(t, page, want, opts)
	})
	t.Run("date-row,days-of-two", func(t *testing.T) {
		page, want := twoRowVariant{shape: "date-row", lang: "de", format: "long", header: "thead", items: 24}.page()
		// Every fourth day shows its item and the next day's: the
		// second's date row is left out.
		s := string(page)
		var keep []twoRowItem
		for i, it := range want {
			if i%4 == 2 {
				d := twoRowVariant{lang: "de", format: "long"}.date(it.date)
				row := "<tr><td colspan=\"2\" class=\"date\">" + d + "</td></tr>\n"
				if !strings.Contains(s, row) {
					t.Fatalf("no date row %q", row)
				}
				s = strings.Replace(s, row, "", 1)
				it.anyDate = true
			}
			it.desc = ""
			keep = append(keep, it)
		}
		res, err := annotate.Suggest([]byte(s), opts)
		if err != nil {
			t.Fatal(err)
		}
		lw := make([]lineItem, len(keep))
		for i, w := range keep {
			lw[i] = w.lineItem
			lw[i].anyDate = true
		}
		if wrong := checkLineItems(res.Wrapped().Resource.Items, lw); len(wrong) > 0 {
			t.Errorf("list %s: %s", res.List.Path, strings.Join(wrong, "; "))
		}
	})
}

// checkTwoRows checks one page's items through the annotations and the
// selectors.
func checkTwoRows(t *testing.T, page []byte, want []twoRowItem, opts annotate.Options) {
	t.Helper()
	res, err := annotate.Suggest(page, opts)
	if err != nil {
		t.Fatal(err)
	}
	if wrong := checkTwoRowItems(res.Wrapped().Resource.Items, want); len(wrong) > 0 {
		t.Errorf("annotations (list %s): %s", res.List.Path, strings.Join(wrong, "; "))
	}
	items, sel, note := followSuggested(t, res, page, opts)
	if wrong := checkTwoRowItems(items, want); len(wrong) > 0 || note != "" {
		t.Errorf("selectors %+v (note %q): %s", sel, note, strings.Join(wrong, "; "))
	}
}
