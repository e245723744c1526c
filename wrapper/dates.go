package wrapper

import (
	"strings"

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
