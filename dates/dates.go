// Package dates reads the dates that people write on web pages and that
// feeds carry, leniently: RFC 822/1123 with named or numeric zones, ISO 8601
// in its common shapes, Unix ctime, American and European numeric forms,
// month names in English and in the main Western European languages,
// ordinals, leading weekdays, "@" and "at" before the time, and so on.
//
// Pages written by hand rarely follow one standard, and a date that cannot
// be read costs the feed its ordering, so Parse tries hard; but it never
// guesses a value from a string that does not contain a whole calendar date.
package dates

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxLen bounds the input that Parse considers: no real date is longer, and
// a bound keeps the work per call small whatever a page holds.
const maxLen = 256

// Parse reads s as a date, with or without a time of day. A value without a
// zone is read in loc (nil means UTC); a date without a time is midnight.
//
// The W3C-DTF forms that stop before the day ("2003", "2003-12") mean the
// start of that year or month; so do ISO 8601:2000's two-digit-year forms
// ("03-12-31", "031231", "-03-12", "-0312"). Two-digit years follow RFC
// 2822 §4.3: 00–49 are 2000–2049, 50–99 are 1950–1999. Korean and Japanese
// dates ("2004년 05월 28일", "오후 11:23", "午後") are read in Korea's or
// Japan's time (both UTC+9 without daylight saving) when loc is UTC, which
// is no hint. North American zone names without a season (ET, CT, MT, PT,
// AT) follow their region's daylight-saving rules.
//
// Numeric dates whose day and month could be swapped are read day first
// ("08.12.2005", "08/12/2005": 8 December), as most of the world writes
// them, except that with slashes or dashes they are read month first
// ("12/08/2005": December 8) when loc is UTC (no better hint; the common
// convention of date software) or a zone of the United States or the
// Philippines, where people write them so. Dots are always day first.
// When the preferred reading is impossible (a month above 12) the other one
// is used. A weekday is ignored, even when it does not match the date.
// This is ParseOrder with ZoneOrder; a caller with several values written
// together chooses one order for them with Evidence.
func Parse(s string, loc *time.Location) (time.Time, bool) {
	t, _, ok := ParseOrder(s, loc, ZoneOrder)
	return t, ok
}

// Order is how a numeric date with slashes or dashes whose day and month
// could be swapped ("05/03/2024") is read. Whatever the order, a value
// that is possible only in the other one ("25/03/2024") is read in that
// one, and dotted dates ("05.03.2024") are read day first.
type Order uint8

const (
	// ZoneOrder is Parse's rule: month first in UTC and in the zones of
	// the United States and the Philippines, day first elsewhere.
	ZoneOrder Order = iota
	// DayFirst reads "05/03/2024" as 5 March.
	DayFirst
	// MonthFirst reads "05/03/2024" as May 3.
	MonthFirst
)

// String names the order in messages.
func (o Order) String() string {
	switch o {
	case DayFirst:
		return "day first"
	case MonthFirst:
		return "month first"
	}
	return "by the time zone's rule"
}

// Reading says what a value's numeric date (day, month and year in
// figures, with slashes or dashes) allows, and how it was read.
type Reading uint8

const (
	// Fixed: the value reads the same in either order: it has no such
	// date (a month name, ISO 8601, year first, dots), its day and month
	// are equal, or it is no date Parse reads.
	Fixed Reading = iota
	// OnlyDayFirst: the first number is above 12 ("25/03/2024").
	OnlyDayFirst
	// OnlyMonthFirst: the second number is above 12 ("03/25/2024").
	OnlyMonthFirst
	// EitherReadDayFirst: both orders are possible ("05/03/2024") and it
	// was read day first.
	EitherReadDayFirst
	// EitherReadMonthFirst: both orders are possible and it was read
	// month first.
	EitherReadMonthFirst
)

// Ambiguous reports whether the value could be read in either order.
func (r Reading) Ambiguous() bool { return r == EitherReadDayFirst || r == EitherReadMonthFirst }

// ReadIn reports whether an ambiguous value was read in order o (a
// concrete order, DayFirst or MonthFirst): false when reading it in o
// would give another date.
func (r Reading) ReadIn(o Order) bool {
	return !r.Ambiguous() || (r == EitherReadDayFirst) == (o == DayFirst)
}

// Evidence gathers the Readings of values written together (one field
// of the items of one page), which one writer writes in one order, to
// choose that order for all of them: a value possible only day first
// says the writer writes day first.
type Evidence struct {
	dayFirst, monthFirst, ambiguous int
}

// Add counts one value's Reading.
func (e *Evidence) Add(r Reading) {
	switch {
	case r == OnlyDayFirst:
		e.dayFirst++
	case r == OnlyMonthFirst:
		e.monthFirst++
	case r.Ambiguous():
		e.ambiguous++
	}
}

// Order returns the order for the values' ambiguous numeric dates: day
// first when some value is possible only day first and none only month
// first, month first in the reverse case, and otherwise ZoneOrder, Parse's
// rule for each value. conflict is true when that otherwise is because
// the values were written both ways and some could be read either way:
// those are then a guess.
func (e Evidence) Order() (o Order, conflict bool) {
	switch {
	case e.dayFirst > 0 && e.monthFirst == 0:
		return DayFirst, false
	case e.monthFirst > 0 && e.dayFirst == 0:
		return MonthFirst, false
	}
	return ZoneOrder, e.dayFirst > 0 && e.ambiguous > 0
}

// ParseOrder is Parse with the order of ambiguous numeric dates chosen by
// the caller (ZoneOrder is Parse's), and reports what the value's numeric
// date allowed (Fixed when the value is not read).
func ParseOrder(s string, loc *time.Location, o Order) (time.Time, Reading, bool) {
	if !MayParse(s) {
		return time.Time{}, Fixed, false
	}
	t, r, ok := parse(s, loc, o)
	if !ok {
		return t, Fixed, false
	}
	return t, r, true
}

// MayParse reports whether Parse may read s: false only when it cannot.
// It is a scan of s without a copy, for a caller that tries many texts
// and windows of words that are no date (the suggester), where a failing
// Parse, its copies and a cache of its answers cost more.
//
// Every value Parse reads passes normalize, which fails on a field made
// only of marks outside ASCII that are neither letters nor digits (a
// middle dot or a bullet between a date and the words after it, "12 March
// 2005 · Harbour news"): no layout reads those bytes, no zone, month or
// numeric date is made of them, and nothing before normalize reads such
// a value (the ISO forms are ASCII) or rewrites the field, except the
// Korean and Japanese rewriting, which is left to Parse.
//
// A value in ASCII must also name a month or write a numeric date: every
// layout names its month or has '-' between its numbers, and those come
// only from a word of the value (mayNameMonth), from '-' or '/' in it or
// two dots in one of its fields (a numeric date, rewritten as YYYY-MM-DD,
// or a word split at them: dottedField), or
// from the ISO forms, which start with eight digits when they have no '-'
// (a partial one, "2003" or "031231", is digits alone). A title with two
// numbers and neither ("Episode 12: Bridge park 11") failed only after
// normalize had copied and read every word: on a podcast page of 70,000
// such titles, a tenth of the suggestion.
//
// FuzzMayParse checks it against Parse.
func MayParse(s string) bool {
	if isASCII(s) { // no marks outside ASCII
		return mayNameMonth(s)
	}
	return marksMayParse(s)
}

// mayNameMonth reports whether an ASCII value may name a month or write a
// numeric date, as MayParse says: false only when no reading of it does.
// A month comes from a run of letters that is a name of monthNames, or,
// as normalize keeps what it does not know after a ':' ("12:MAR"),
// from any three letters that are an English abbreviation, which
// mayMatchLayout finds anywhere in the value.
func mayNameMonth(s string) bool {
	if strings.ContainsAny(s, "-/") || dottedField(s) {
		return true
	}
	if t := strings.TrimSpace(s); isNumber(t) || len(t) >= 8 && isNumber(t[:8]) {
		return true
	}
	return lettersNameMonth(s)
}

// MayParseWord reports whether w, one of the words of a value in ASCII
// of several words (between ASCII spaces or '|', the first word first),
// may let the value through MayParse: MayParse lets such a value through
// only when one of its words does this (first is whether w is the first).
// Each of mayNameMonth's tests reads one word (a '-' or '/', a field with
// two dots, a run of letters), but a number alone, which a value of
// several words is not, and eight digits first, which only the first
// word has. The suggester asks it once a word of a text, not MayParse of
// every run of words (FuzzMayParseWords checks it against MayParse).
func MayParseWord(w string, first bool) bool {
	if !isASCII(w) {
		return true
	}
	return strings.ContainsAny(w, "-/") || dottedField(w) || first && len(w) >= 8 && isNumber(w[:8]) || lettersNameMonth(w)
}

// lettersNameMonth is mayNameMonth's test of the runs of letters of s.
func lettersNameMonth(s string) bool {
	var buf [longestMonthName]byte
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		run := s[i:j]
		for k := 0; k+3 <= len(run); k++ {
			if isMonthAbbr(run[k : k+3]) {
				return true
			}
		}
		if len(run) <= len(buf) && asciiMonthLengths[run[0]|0x20-'a']&(1<<len(run)) != 0 {
			for k := 0; k < len(run); k++ {
				buf[k] = run[k] | 0x20 // lower case, for letters
			}
			if _, ok := monthNames[string(buf[:len(run)])]; ok {
				return true
			}
		}
		i = j
	}
	return false
}

// dottedField reports whether a field of an ASCII value, between spaces
// and separators, has two dots or more: the only way a '.' gives a value
// without '-' or '/' a numeric date (numericDate wants two of them in a
// field; mixedField's parts, split at the dots, have none, and a month
// name among them is a run of letters mayNameMonth reads). A sentence's
// full stop and a size's decimal point ("£490 pcm. 1.7m x 3.7m, 11
// years old", a classified ad) do not make one, and such runs of words
// failed only after normalize had read every word.
func dottedField(s string) bool {
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			if dots++; dots == 2 {
				return true
			}
		case c == ' ' || '\t' <= c && c <= '\r' || isSeparator(rune(c)):
			dots = 0
		}
	}
	return false
}

// longestMonthName bounds the ASCII names of monthNames
// (TestLongestMonthName checks it).
const longestMonthName = 10

// asciiMonthLengths holds, for each first letter of the ASCII names of
// monthNames, a bit for each of their lengths: a word of another letter
// or length ("Episode", "Bridge") is no name, known without a lookup.
var asciiMonthLengths = func() (lengths [26]uint16) {
	for name := range monthNames {
		if isASCII(name) {
			lengths[name[0]-'a'] |= 1 << len(name)
		}
	}
	return lengths
}()

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// marksMayParse is MayParse's test of the marks: false when a field of s
// is made only of marks outside ASCII.
func marksMayParse(s string) bool {
	in, marks := false, false // in a field, and whether it is marks so far
	for _, r := range s {
		switch field := !unicode.IsSpace(r) && !isSeparator(r); {
		case RewritesCJK(r):
			return true
		case field:
			marks = isMark(r) && (marks || !in)
			in = true
		case in && marks:
			return false
		default:
			in = false
		}
	}
	return !(in && marks)
}

// RewritesCJK reports whether r is one of the Korean and Japanese runes
// (year, morning and afternoon) whose rewriting in Parse comes before
// normalize: a value holding one may pass MayParse whatever its marks.
func RewritesCJK(r rune) bool {
	return r == '년' || r == '年' || r == '오' || r == '午'
}

// isMark reports whether r makes a field of marks outside ASCII (a middle
// dot, a bullet), on which normalize fails: outside ASCII, and neither a
// space, a separator, a letter nor a digit.
func isMark(r rune) bool {
	return r >= utf8.RuneSelf && !unicode.IsSpace(r) && !isSeparator(r) && !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// MarksOnly reports whether w, a word of a value (no space in it), is
// made only of marks outside ASCII: then MayParse is false for every
// value in which w stands between two spaces, unless the value holds a
// rune for which RewritesCJK is true (marksMayParse fails when such a
// field ends). The suggester asks it once of each word of a text, and no
// longer asks MayParse of each run of words around it ("12 March 2005 ·
// Harbour news").
func MarksOnly(w string) bool {
	for _, r := range w {
		if !isMark(r) {
			return false
		}
	}
	return w != ""
}

// NeverInDate reports whether Parse reads no value of several words in
// which w is one of the words (a field between spaces, separators or
// marks outside ASCII), unless the value holds a rune for which
// RewritesCJK is true: false when unsure, and for a w with a space in it
// (" " alone is no word). It is MarksOnly widened to the
// words that fill the descriptions of classified ads beside their dates
// ("Call 555-0111 after 5pm. £650 pcm. Viewing 9-5."), each a field that
// normalize fails on or keeps and no layout reads:
//
//   - a word with a mark outside ASCII in it ("£650", "€25", "3°"):
//     normalize puts spaces around the mark (spaceMarks) and fails on it
//     as on a field of marks;
//   - a word in ASCII without a letter or ':' whose parts between
//     separators (isSeparator: "9-5," is "9-5") include one normalize
//     fails on, a part that begins with no sign (so no zone: "#699997",
//     "50%") and has a byte no layout reads (layoutBytes), with no '/',
//     '.' or '-' before its last byte (so no numeric date);
//   - or such a word with a part normalize keeps as it is, two numbers
//     joined by one '-' ("555-0111", "9-5."): no numeric date (that needs
//     two), and no layout reads it, since each reads its numbers from
//     runs of digits and has '-' only between the year, month and day of
//     "2006-01-02".
//
// A value of several words is never an ISO form (no space, '|' or mark
// in those), so only normalize and the layouts read it. The suggester
// passes over every run of words with such a word in it (a run of a
// description was tried word run by word run, each a failed Parse).
// FuzzNeverInDate checks it against Parse.
func NeverInDate(w string) bool {
	if w == "" || strings.ContainsFunc(w, unicode.IsSpace) {
		return false // no word: a space is no part of one
	}
	if !isASCII(w) {
		return strings.ContainsFunc(w, isMark)
	}
	if strings.IndexByte(w, ':') >= 0 {
		return false // a time, or a zone's offset
	}
	for i := 0; i < len(w); i++ {
		if isASCIILetter(w[i]) {
			return false // a month, a zone, an ordinal, or a dropped word
		}
	}
	for len(w) > 0 {
		end := 0
		for end < len(w) && !isSeparator(rune(w[end])) {
			end++
		}
		if neverInDatePart(w[:end]) {
			return true
		}
		if end == len(w) {
			break
		}
		w = w[end+1:]
	}
	return false
}

// neverInDatePart is NeverInDate's test of one part of a word in ASCII
// without a letter or ':', between separators.
func neverInDatePart(p string) bool {
	if p == "" || p[0] == '+' || p[0] == '-' || p == "/" {
		return false // nothing, a zone's offset, a sign, or dropped
	}
	body := strings.TrimSuffix(p, ".")
	if !strings.ContainsAny(body, "/.-") && !layoutBytes(body) {
		return true // normalize fails on it
	}
	dash := strings.IndexByte(body, '-')
	return dash > 0 && dash < len(body)-1 && isNumber(body[:dash]) && isNumber(body[dash+1:])
}

// parse is ParseOrder of a value MayParse lets through.
func parse(s string, loc *time.Location, o Order) (time.Time, Reading, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxLen {
		return time.Time{}, Fixed, false
	}
	if t, ok := parsePartialISO(s, loc); ok {
		return t, Fixed, true
	}
	if t, ok := parseISO(s, loc); ok {
		return t, Fixed, true
	}
	s, loc = rewriteCJK(s, loc)
	if digitTDigit(s) { // splitDateTime needs one
		s = splitDateTime.ReplaceAllString(s, "$1 $2")
	}
	mf := o == MonthFirst || o == ZoneOrder && monthFirst(loc)
	fields, zone, r, ok := normalize(s, mf)
	if !ok || len(fields) == 0 {
		return time.Time{}, Fixed, false
	}
	if zone != nil {
		loc = zone
	}
	t, ok := parseFields(strings.Join(fields, " "), loc)
	return t, r, ok
}

// digitTDigit reports whether s has a 'T' or 't' between two ASCII
// digits, which every match of splitDateTime has: the regexp on every text
// with a 't' in a word was 8 % of a failing Parse.
func digitTDigit(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if (s[i] == 'T' || s[i] == 't') && isDigit(s[i-1]) && isDigit(s[i+1]) {
			return true
		}
	}
	return false
}

// monthFirst reports whether ambiguous numeric dates read month first for
// pages in this zone: UTC (no hint), the United States and the Philippines.
func monthFirst(loc *time.Location) bool {
	name := loc.String()
	if name == "UTC" || name == "" || name == "Local" || monthFirstZones[name] {
		return true
	}
	for _, prefix := range []string{"US/", "America/Indiana/", "America/Kentucky/", "America/North_Dakota/"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// parseFields tries the layout table on a normalized value: first the
// layouts of the value's shape, in table order, then, for what time.Parse
// reads beyond its layout's shape (a fractional second), the others.
// Trying all 68 layouts on every value cost more than the rest of Parse.
func parseFields(v string, loc *time.Location) (time.Time, bool) {
	if !mayMatchLayout(v) {
		return time.Time{}, false
	}
	var buf [64]byte
	likely := layoutsByShape[string(appendShape(buf[:0], v))]
	for _, layout := range likely {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return rfc2822Year(t, layout), true
		}
	}
	for _, layout := range layouts {
		if slices.Contains(likely, layout) {
			continue
		}
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return rfc2822Year(t, layout), true
		}
	}
	return time.Time{}, false
}

// mayMatchLayout reports whether any layout may read v: false only when
// none can. Every layout has a day and a year, numbers that time.Parse
// reads each from at least one ASCII digit (a two-digit year may carry a
// sign), with a literal that is no digit between them: so v needs two runs
// of digits. And every layout names its month ("Jan", matched without
// regard to ASCII case) or is numeric with '-' between its year and month
// and between its month and day, two literals the value must hold (a
// phone number, "555-0111", has one). Text
// that is no date ("Posted by 5 readers") failed all 68 layouts, each
// failure an error value. Every layout also ends in a number (a year, a
// day, minutes or seconds, which time.Parse may follow with a fraction's
// digits) or in "PM", and time.Parse reads the whole value: so v ends in a
// digit or an 'M'. Words around a date that normalize keeps ("12 March
// 2005 · Harbour news" is "12 Mar 2005 ·") failed every layout too:
// about a third of a 10 MiB podcast page's suggestion. FuzzMayMatchLayout checks
// it against every layout.
func mayMatchLayout(v string) bool {
	if v == "" {
		return false
	}
	if c := v[len(v)-1]; (c < '0' || c > '9') && c != 'M' {
		return false
	}
	runs, inRun, dashes, month := 0, false, 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		digit := '0' <= c && c <= '9'
		if digit && !inRun {
			runs++
		}
		inRun = digit
		if c == '-' {
			dashes++
		}
		if !month && i+3 <= len(v) && isMonthAbbr(v[i:i+3]) {
			month = true
		}
	}
	return runs >= 2 && (dashes >= 2 || month)
}

// isMonthAbbr reports whether s (three bytes) is an English month
// abbreviation in any ASCII case, as time.Parse's "Jan" reads it.
func isMonthAbbr(s string) bool {
	var b [3]byte
	for i := range b {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:]) {
	case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec":
		return true
	}
	return false
}

// rfc2822Year moves a two-digit year that time.Parse read as 2050–2068
// (its pivot is 69) to 1950–1968, as RFC 2822 §4.3 reads it.
func rfc2822Year(t time.Time, layout string) time.Time {
	if !strings.Contains(layout, "2006") && t.Year() >= 2050 && t.Year() < 2069 {
		return t.AddDate(-100, 0, 0)
	}
	return t
}

// layoutsByShape groups the layouts by shape, each group in table order.
var layoutsByShape = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range layouts {
		k := string(appendShape(nil, l))
		m[k] = append(m[k], l)
	}
	return m
}()

// appendShape appends the shape of a value or a layout to dst: a run of
// digits becomes '9', a run of letters 'a', anything else stays. A
// layout's reference values have the shape of the values it reads ("Jan 2
// 2006 3:04 PM" and "Dec 08 2005 08:25 AM" are both "a 9 9 9:9 a").
func appendShape(dst []byte, s string) []byte {
	var last byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c = '9'
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			c = 'a'
		}
		if (c == '9' || c == 'a') && c == last {
			continue
		}
		dst = append(dst, c)
		last = c
	}
	return dst
}
