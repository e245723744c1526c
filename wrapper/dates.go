package wrapper

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dates"
)

// One page is written in one order: a field whose numeric dates could be
// read day first or month first ("05/03/2024") is read in the order its
// other values show ("25/03/2024" can only be day first), chosen by
// dates.Evidence (docs/WRAPPER.md "Dates"). extension reads every value by
// the zone's rule, as dates.Parse does, and says what it allowed; the
// page's order is known once every item is read, and orderDates then reads
// again the ambiguous values it reads otherwise.

// dateRead is a date extension's value read, before it was replaced by its
// date: the extension, its text, the annotation and line it came from,
// and what its numeric date allowed. Zero for any other extension.
type dateRead struct {
	ext     dynamo.Extension
	text    string
	annot   string
	line    int
	reading dates.Reading
}

// placedDate is an ambiguous value and where its date went: the extension
// at exts[i] and the public annotation.
type placedDate struct {
	dateRead
	exts *[]dynamo.Extension
	i    int
	pub  *Annotation
}

// dateField is one date field of the page (an extension's namespace and
// localName, across the channel and the items) whose values were not all
// read alike in either order.
type dateField struct {
	evidence dates.Evidence
	// dayFirst and monthFirst are its first value possible only day first
	// and only month first, zero when none, which a warning quotes.
	dayFirst, monthFirst dateRead
	ambiguous            []placedDate
}

// dateFields are the page's date fields that are not Fixed, in the order
// first seen, so that their warnings come in page order.
type dateFields struct {
	list  []*dateField
	byKey map[string]*dateField
}

// note counts a date extension's value, read and stored at exts[i], in
// its field's evidence, and keeps an ambiguous one for orderDates. Values
// that read alike in either order (dates.Fixed) are neither.
func (fs *dateFields) note(d dateRead, exts *[]dynamo.Extension, i int, pub *Annotation) {
	if d.reading == dates.Fixed {
		return
	}
	key := d.ext.URI + " " + strings.ToLower(d.ext.LocalName)
	f := fs.byKey[key]
	if f == nil {
		if fs.byKey == nil {
			fs.byKey = map[string]*dateField{}
		}
		f = &dateField{}
		fs.byKey[key] = f
		fs.list = append(fs.list, f)
	}
	f.evidence.Add(d.reading)
	switch {
	case d.reading == dates.OnlyDayFirst && f.dayFirst.text == "":
		f.dayFirst = d
	case d.reading == dates.OnlyMonthFirst && f.monthFirst.text == "":
		f.monthFirst = d
	case d.reading.Ambiguous():
		f.ambiguous = append(f.ambiguous, placedDate{dateRead: d, exts: exts, i: i, pub: pub})
	}
}

// orderDates reads each field's ambiguous values in the order the field's
// values show, where the zone's rule read them otherwise, and warns of a
// field written in both orders, whose ambiguous values stay a guess.
func (b *builder) orderDates() {
	for _, f := range b.dateFields.list {
		o, conflict := f.evidence.Order()
		if conflict {
			first := f.ambiguous[0]
			how := dates.DayFirst
			if first.reading == dates.EitherReadMonthFirst {
				how = dates.MonthFirst
			}
			b.warn.add(first.line, "<%s> %s:%s: numeric dates are written both day first (%q, line %d) and month first (%q, line %d), so the %d that read either way (%q the first) are read %s by the time zone's rule: check them",
				first.annot, first.ext.Prefix, first.ext.LocalName,
				truncate(f.dayFirst.text, 40), f.dayFirst.line, truncate(f.monthFirst.text, 40), f.monthFirst.line,
				len(f.ambiguous), truncate(first.text, 40), how)
		}
		if o == dates.ZoneOrder {
			continue
		}
		for _, v := range f.ambiguous {
			if v.reading.ReadIn(o) {
				continue
			}
			if date, _, ok := b.date(v.text, o); ok {
				(*v.exts)[v.i].Value = date
				v.pub.Value = date
			}
		}
	}
}

// Machine-readable dates. Modern pages show a date short ("Mar 4", "09:30",
// "3 days ago") and carry it whole in an attribute: HTML's <time
// datetime>, hCalendar's <abbr class="dtstart" title>, microdata's <span
// itemprop="datePublished" content>. A date annotation whose content is or
// holds such an element is read from the attribute when the text is not a
// whole date, or is the same day (the attribute then adds the time and
// the zone); a whole date shown that names another day wins, with a
// warning: the reader sees it (docs/WRAPPER.md "Dates").

// MachineDate reads the date an element's attribute carries for machines:
// datetime on <time> and on custom elements (GitHub's <relative-time> and
// <local-time>, the web components that show a date relative or local and
// keep it whole in datetime, as <time> does); title, content or datetime
// on <abbr> and <span>. The value must be an ISO 8601 date with its day
// (dates.ParseISO), read in loc when it has no zone. The suggester asks it
// to choose such an element as an item's date; the wrapper, to read it.
func MachineDate(tag, key, val string, loc *time.Location) (time.Time, bool) {
	switch {
	case (tag == "time" || isCustomElement(tag)) && key == "datetime",
		(tag == "abbr" || tag == "span") && (key == "title" || key == "content" || key == "datetime"):
		return dates.ParseISO(val, loc)
	}
	return time.Time{}, false
}

// MayCarryMachineDate reports whether an element named tag (lower case)
// is one MachineDate reads a date from, so that callers can pass over
// the others by their name alone.
func MayCarryMachineDate(tag string) bool {
	return tag == "time" || tag == "abbr" || tag == "span" || isCustomElement(tag)
}

// isCustomElement reports whether tag is a custom element's name: HTML
// gives them, and only them, a hyphen after a first lower-case letter.
func isCustomElement(tag string) bool {
	return len(tag) > 2 && 'a' <= tag[0] && tag[0] <= 'z' && strings.IndexByte(tag, '-') > 0
}

// TagDate reads the date of MachineDate in an element's start tag
// ("<time datetime=\"2024-03-04T09:30\">"), for the suggester, which
// keeps no attributes.
func TagDate(startTag string, loc *time.Location) (time.Time, bool) {
	z := html.NewTokenizer(strings.NewReader(startTag))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return time.Time{}, false
	}
	t, _, ok := tokenDate(z, loc)
	return t, ok
}

// tokenDate reads the date of MachineDate in the start tag z just read,
// and says which attribute gave it.
func tokenDate(z *html.Tokenizer, loc *time.Location) (time.Time, string, bool) {
	name, more := z.TagName()
	tag := string(name)
	if !MayCarryMachineDate(tag) {
		return time.Time{}, "", false
	}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if t, ok := MachineDate(tag, string(k), string(v), loc); ok {
			return t, fmt.Sprintf("<%s %s=%q>", tag, k, v), true
		}
	}
	return time.Time{}, "", false
}

// machineDate returns the first date of MachineDate in an annotation's
// content, and the attribute it came from.
func (b *builder) machineDate(content string) (date time.Time, attr string, ok bool) {
	if !strings.Contains(content, "<") || !strings.Contains(content, "=") {
		return time.Time{}, "", false
	}
	z := html.NewTokenizer(strings.NewReader(content))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return time.Time{}, "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			if t, attr, ok := tokenDate(z, b.loc); ok {
				return t, attr, true
			}
		}
	}
}

// dateValue reads a date extension's value: its text, or the machine-
// readable date its content holds, as the precedence above says. shown
// is the text read (for the warnings and orderDates), and reading what
// its numeric date allowed; a date taken from an attribute is Fixed.
func (b *builder) dateValue(a *annot, text string) (date string, r dates.Reading, ok bool) {
	shown, r, shownOK := b.date(text, dates.ZoneOrder)
	machine, attr, machineOK := b.machineDate(a.content(b.text))
	switch {
	case !machineOK:
		return shown, r, shownOK
	case !shownOK || ShownDayAgrees(text, machine, b.loc):
		return machine.Format(time.RFC3339), dates.Fixed, true
	}
	b.warn.add(a.open.line, "<%s>: the text %q and the %s it holds are different days; the text is kept, as readers see it", a.name, truncate(text, 40), truncate(attr, 60))
	return shown, r, true
}

// ShownDayAgrees reports whether the text an element dated for machines
// shows agrees with its machine date m, so that the wrapper takes m: the
// text is no whole date ("Mar 4", "09:30", "3 days ago"), or it names m's
// day (in m's own zone), read in the zone's order or, when its numeric
// date could be read both ways, in either. Else the wrapper keeps the text,
// as readers see it, with a warning; the suggester, which asks this too,
// then annotates no such element whole.
func ShownDayAgrees(text string, m time.Time, loc *time.Location) bool {
	_, r, ok := dates.ParseOrder(text, loc, dates.ZoneOrder)
	if !ok || dates.Partial(text) {
		return true
	}
	day := m.Format(time.DateOnly)
	orders := []dates.Order{dates.ZoneOrder}
	if r.Ambiguous() {
		orders = append(orders, dates.DayFirst, dates.MonthFirst)
	}
	for _, o := range orders {
		if t, _, ok := dates.ParseOrder(text, loc, o); ok && t.Format(time.DateOnly) == day {
			return true
		}
	}
	return false
}
