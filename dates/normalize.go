package dates

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// parseISO reads the ISO 8601 / RFC 3339 shapes, which carry a 'T' or are a
// bare date and must be tried before normalization splits them apart.
func parseISO(s string, loc *time.Location) (time.Time, bool) {
	if len(s) < 8 || !isDigit(s[0]) {
		return time.Time{}, false
	}
	// Every layout starts with four digits and '-', or with eight digits;
	// no rune upper-cases into a digit or '-', so s has them in the same
	// places. A text that starts with a short number ("12 March 2005") is
	// no ISO date, found without upper-casing a copy and failing every
	// layout. FuzzISOLayoutsNeedT checks this against every layout.
	if s[4] != '-' && !isNumber(s[:8]) {
		return time.Time{}, false
	}
	v := s
	if len(s) >= 9 && s[4] == '-' && s[5] == '0' { // what threeDigitMonth needs
		v = threeDigitMonth.ReplaceAllString(s, "$1-$2-")
	}
	v = strings.ToUpper(v)
	// A layout's literal 'T' must be in the value, so without one only the
	// bare date can match: trying the others on every "2005-12-08" cost
	// seven failed parses, each an error value. FuzzISOLayoutsNeedT checks
	// this against every layout.
	hasT := strings.IndexByte(v, 'T') >= 0
	for _, layout := range isoLayouts {
		if !hasT && strings.IndexByte(layout, 'T') >= 0 {
			continue
		}
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// threeDigitMonth is ISO 8601:2000's "2003-012-31".
var threeDigitMonth = regexp.MustCompile(`^(\d{4})-0(\d{2})-`)

// normalize rewrites a free-form date into canonical fields that the layout
// table knows: English three-letter month names, numeric dates as
// YYYY-MM-DD, times as H:MM[:SS] with a separate AM/PM, and no commas,
// weekdays, ordinals or connecting words. The zone, if any, is taken out
// and returned, and so is what its numeric date allowed (the last one's,
// when it has several, which no layout reads). ok is false when the value
// holds something that makes any reading a guess (an unknown zone
// abbreviation, two zones).
func normalize(s string, monthFirst bool) (fields []string, zone *time.Location, r Reading, ok bool) {
	s = strings.Map(separatorToSpace, s)
	if !isASCII(s) {
		s = spaceMarks(s)
	}
	n := normalizer{monthFirst: monthFirst}
	fields = make([]string, 0, 8)
	for raw := range strings.FieldsSeq(s) {
		var z *time.Location
		var ok bool
		fields, z, ok = n.field(fields, raw, len(fields) > 0 && endsWithDigit(fields[len(fields)-1]))
		if !ok {
			return nil, nil, Fixed, false
		}
		if z != nil {
			if zone != nil {
				return nil, nil, Fixed, false
			}
			zone = z
		}
	}
	return fields, zone, n.reading, true
}

// spaceMarks puts spaces around the marks outside ASCII (isMark) written
// against a word, so that each is a field of its own, on which normalize
// fails as when it stands between spaces: "June 27, 2024•Ref. 1000" (a
// bullet written "&bull;" between two fields of a page) was read as
// 27 June 1000, its "2024•Ref." a word normalize passed over.
func spaceMarks(s string) string {
	if !strings.ContainsFunc(s, isMark) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if isMark(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// separatorToSpace turns the punctuation that people put between the parts
// of a date into spaces.
func separatorToSpace(r rune) rune {
	if isSeparator(r) {
		return ' '
	}
	return r
}

// isSeparator reports whether r is punctuation that people put between
// the parts of a date.
func isSeparator(r rune) bool {
	switch r {
	case ',', '@', '|', '(', ')', '[', ']', ';', '\u2013', '\u2014':
		return true
	}
	return false
}

// normalizer rewrites the fields of one value.
type normalizer struct {
	monthFirst bool    // how to read an ambiguous numeric date with '/' or '-'
	reading    Reading // what the numeric date read allowed
}

// field rewrites one whitespace-separated field into zero or more canonical
// fields, appended to out. afterNumber tells whether the previous field
// ended in a digit, which makes "am" a meridiem rather than the German "am"
// (on).
func (n *normalizer) field(out []string, f string, afterNumber bool) ([]string, *time.Location, bool) {
	if f == "-" || f == "/" {
		return out, nil, true
	}
	switch {
	case strings.EqualFold(f, "a.m."), strings.EqualFold(f, "a.m"), strings.EqualFold(f, "am"):
		if afterNumber || len(f) != 2 {
			return append(out, "AM"), nil, true
		}
		return out, nil, true // German "am 8. Dezember"
	case strings.EqualFold(f, "p.m."), strings.EqualFold(f, "p.m"), strings.EqualFold(f, "pm"):
		return append(out, "PM"), nil, true
	}
	if z, ok := zoneOf(f); ok {
		return out, z, true
	}
	if name, ok := regionZones[f]; ok && afterNumber {
		return out, regionZone(name), true
	}
	if hasLetter(f) && hasDigit(f) {
		return n.mixedField(out, f)
	}
	if hasLetter(f) {
		return wordField(out, f)
	}
	if strings.Contains(f, ":") {
		return timeField(out, f)
	}
	if d, r, ok := numericDate(f, n.monthFirst); ok {
		n.reading = r
		return append(out, d), nil, true
	}
	f = strings.TrimSuffix(f, ".") // "8." (German day), "2005"
	if !layoutBytes(f) {
		// A mark between a date and the words after it ("12 March 2005
		// · Harbour news", a bullet) would be in the value, which no
		// layout reads: the words after it need not be read.
		return nil, nil, false
	}
	return append(out, f), nil, true
}

// layoutBytes reports whether every byte of f is one that some layout
// reads: an ASCII letter or digit, a sign, ':', or the '.' or ',' of a
// fraction of a second. time.Parse reads the whole value, and the layouts
// have no other literal (FuzzMayMatchLayout checks this against each).
func layoutBytes(f string) bool {
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case c == '+' || c == '-' || c == ':' || c == '.' || c == ',':
		default:
			return false
		}
	}
	return true
}

// wordField handles a field made of letters only: a month, a weekday, a
// connecting word, or something else.
func wordField(out []string, f string) ([]string, *time.Location, bool) {
	w := lowerWord(strings.TrimRight(f, "."))
	if m, ok := monthNames[w]; ok {
		return append(out, m), nil, true
	}
	if weekdayNames[w] || fillerWords[w] {
		return out, nil, true
	}
	if looksLikeZone(f) {
		return nil, nil, false // an abbreviation we do not know: the offset would be a guess
	}
	return out, nil, true // "Posted", "on", "Le": words around the date
}

// lowerWord is strings.ToLower(w), without a copy for a word already in
// lower case.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// mixedField handles letters glued to digits: ordinals ("8th"), times with
// a meridiem or zone ("8:25PM", "08:25:00Z"), French hours ("08h25"),
// dashed dates with a month name ("02-Dec-2005").
func (n *normalizer) mixedField(out []string, f string) ([]string, *time.Location, bool) {
	lower := strings.ToLower(strings.TrimSuffix(f, "."))
	for _, suffix := range []string{"st", "nd", "rd", "th", "er", "e", "º", "°"} {
		if digits, ok := strings.CutSuffix(lower, suffix); ok && isNumber(digits) {
			return append(out, digits), nil, true
		}
	}
	for _, m := range []string{"a.m.", "p.m.", "a.m", "p.m", "am", "pm"} {
		if num, ok := strings.CutSuffix(lower, m); ok && num != "" && isDigit(num[len(num)-1]) {
			out, z, ok := numberOrTime(out, num)
			return append(out, strings.ToUpper(m[:1])+"M"), z, ok
		}
	}
	if h, m, ok := strings.Cut(lower, "h"); ok && isNumber(h) && (m == "" || isNumber(m)) {
		if m == "" {
			m = "00"
		}
		return timeField(out, h+":"+m)
	}
	if strings.ContainsAny(f, "-/.") && !strings.Contains(f, ":") {
		for _, p := range strings.FieldsFunc(f, func(r rune) bool { return r == '-' || r == '/' || r == '.' }) {
			var ok bool
			if out, _, ok = n.field(out, p, false); !ok {
				return nil, nil, false
			}
		}
		return out, nil, true
	}
	if strings.Contains(f, ":") {
		return timeField(out, f)
	}
	return wordField(out, f)
}

func numberOrTime(out []string, s string) ([]string, *time.Location, bool) {
	if strings.Contains(s, ":") || strings.Contains(s, ".") {
		return timeField(out, strings.ReplaceAll(s, ".", ":"))
	}
	if isNumber(s) {
		return append(out, s), nil, true
	}
	return nil, nil, false
}

// timeField handles a time of day, possibly followed by a zone
// ("08:25:00Z", "08:25:00-0500", "08:25:00+01:00").
func timeField(out []string, f string) ([]string, *time.Location, bool) {
	upper := strings.ToUpper(f)
	if t, ok := strings.CutSuffix(upper, "Z"); ok {
		return append(out, t), time.UTC, true
	}
	colon := strings.IndexByte(upper, ':')
	if i := strings.IndexAny(upper[colon+1:], "+-"); colon >= 0 && i >= 0 {
		i += colon + 1
		z, ok := numericZone(upper[i:])
		if !ok {
			return nil, nil, false
		}
		return append(out, upper[:i]), z, true
	}
	return append(out, upper), nil, true
}

// numericDate rewrites a numeric date with '/', '.' or '-' separators as
// YYYY-MM-DD, choosing between day-month and month-day as Parse documents
// (monthFirst for an ambiguous one with '/' or '-'), and says what the
// value allowed.
func numericDate(f string, monthFirst bool) (string, Reading, bool) {
	sep := byte(0)
	for _, c := range []byte{'/', '.', '-'} {
		if strings.Count(f, string(c)) == 2 {
			sep = c
			break
		}
	}
	if sep == 0 {
		return "", Fixed, false
	}
	p := strings.Split(f, string(sep))
	if len(p[0]) == 4 {
		d, ok := ymd(p[0], p[1], p[2])
		return d, Fixed, ok
	}
	if len(p[2]) != 4 && len(p[2]) != 2 {
		return "", Fixed, false
	}
	dayFirst, dayOK := ymd(p[2], p[1], p[0])         // 08.12.2005, 08/12/2005 in Europe
	monthFirstDate, monthOK := ymd(p[2], p[0], p[1]) // 12/08/2005 in the United States
	switch {
	case !dayOK && !monthOK:
		return "", Fixed, false
	case sep == '.' || dayOK && dayFirst == monthFirstDate: // dots are day first
		if dayOK {
			return dayFirst, Fixed, true
		}
		return monthFirstDate, Fixed, true
	case dayOK && monthOK && monthFirst:
		return monthFirstDate, EitherReadMonthFirst, true
	case dayOK && monthOK:
		return dayFirst, EitherReadDayFirst, true
	case dayOK:
		return dayFirst, OnlyDayFirst, true
	}
	return monthFirstDate, OnlyMonthFirst, true
}

// ymd formats year, month and day as YYYY-MM-DD when they are numbers in
// range (the day is checked against the month by time.Parse later).
func ymd(y, m, d string) (string, bool) {
	year, err1 := strconv.Atoi(y)
	month, err2 := strconv.Atoi(m)
	day, err3 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || err3 != nil || len(m) > 2 || len(d) > 2 {
		return "", false
	}
	switch len(y) {
	case 2:
		year = twoDigitYear(year)
	case 4:
	default:
		return "", false
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return "", false
	}
	return strconv.Itoa(10000 + year)[1:] + "-" + strconv.Itoa(100 + month)[1:] + "-" + strconv.Itoa(100 + day)[1:], true
}

// zoneOf recognizes a zone written as a field: a known abbreviation, "Z",
// a numeric offset (+0100, -05:00, +01) or GMT/UTC with an offset (GMT+1).
//
// A short ASCII field is upper-cased on the stack: zoneOf reads every
// field Parse is given, and a copy of each word of the text around a date
// was a seventh of a failing Parse.
func zoneOf(f string) (*time.Location, bool) {
	if isDigit(f[0]) { // every form begins with a letter or a sign
		return nil, false
	}
	var buf [16]byte
	var upper []byte
	if len(f) <= len(buf) && isASCII(f) {
		upper = buf[:len(f)]
		for i := 0; i < len(f); i++ {
			c := f[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			upper[i] = c
		}
	} else {
		upper = []byte(strings.ToUpper(f))
	}
	upper = bytes.TrimPrefix(upper, []byte("ETC/")) // Etc/GMT, Etc/UTC
	if len(upper) == 0 {
		return nil, false // "Etc/" alone
	}
	if off, ok := zoneAbbreviations[string(upper)]; ok {
		return time.FixedZone(string(upper), off), true
	}
	for _, prefix := range []string{"GMT", "UTC", "UT"} {
		if rest, ok := bytes.CutPrefix(upper, []byte(prefix)); ok && len(rest) > 0 && (rest[0] == '+' || rest[0] == '-') {
			return numericZone(string(rest))
		}
	}
	if upper[0] == '+' || upper[0] == '-' {
		return numericZone(string(upper))
	}
	return nil, false
}

// numericZone reads +HH, +HHMM or +HH:MM (and a lone +H after GMT).
func numericZone(s string) (*time.Location, bool) {
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return nil, false
	}
	digits := strings.Replace(s[1:], ":", "", 1)
	if !isNumber(digits) {
		return nil, false
	}
	var h, m int
	switch len(digits) {
	case 1, 2:
		h, _ = strconv.Atoi(digits)
	case 3:
		h, _ = strconv.Atoi(digits[:1])
		m, _ = strconv.Atoi(digits[1:])
	case 4:
		h, _ = strconv.Atoi(digits[:2])
		m, _ = strconv.Atoi(digits[2:])
	default:
		return nil, false
	}
	if h > 14 || m > 59 {
		return nil, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), true
}

// looksLikeZone reports whether an unknown word is shaped like a zone
// abbreviation (EST, CEST, AEDT): upper-case letters only.
func looksLikeZone(f string) bool {
	if len(f) < 3 || len(f) > 5 {
		return false
	}
	for i := 0; i < len(f); i++ {
		if f[i] < 'A' || f[i] > 'Z' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }
func hasDigit(s string) bool  { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }
func endsWithDigit(s string) bool {
	return s != "" && isDigit(s[len(s)-1])
}

// partialISO are the ISO 8601 forms that leave out the day or write the
// year with two digits, which time.Parse has no layout for.
var partialISO = regexp.MustCompile(`^(?:` +
	`(\d{4})(?:-(\d{2}))?` + // W3C-DTF: 2003, 2003-12
	`|(\d{2})-?(\d{2})-?(\d{2})` + // ISO 8601:2000: 03-12-31, 031231
	`|-(\d{2})-?(\d{2})` + // ISO 8601:2000: -03-12, -0312 (a year and month)
	`)$`)

// Partial reports whether Parse reads s as a whole year or month, not a
// day: W3C-DTF's "2003" and "2003-12", ISO 8601:2000's "-03-12" and
// "-0312". Parse keeps reading them (feeds and webmasters write them, and
// the wrapper's documentation promises it), but a caller that needs a day
// (the suggester, which must not take a count such as "3382" for a date)
// asks this.
func Partial(s string) bool {
	s = strings.TrimSpace(s)
	if _, ok := parsePartialISO(s, time.UTC); !ok {
		return false
	}
	m := partialISO.FindStringSubmatch(s)
	return m[1] != "" || m[6] != ""
}

// ParseISO reads s as an ISO 8601 / RFC 3339 date with its day, and
// perhaps a time and a zone ("2024-03-04", "2024-03-04T09:30:00+01:00",
// "20240304T193000Z"): the machine-readable forms of HTML's <time
// datetime> and of microformats' title attributes. A value without a zone
// is read in loc (nil means UTC). Nothing else is read: no partial date, no
// month name. HTML's date and time strings may separate the date from the
// time with one space instead of the T ("2024-06-10 11:23:00Z"), and so
// may this value.
func ParseISO(s string, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.TrimSpace(s)
	if len(s) > maxLen {
		return time.Time{}, false
	}
	if len(s) > 11 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && isDigit(s[11]) {
		s = s[:10] + "T" + s[11:]
	}
	return parseISO(s, loc)
}

// parsePartialISO reads the forms of partialISO as the first instant of
// the period they name, in loc.
func parsePartialISO(s string, loc *time.Location) (time.Time, bool) {
	for i := 0; i < len(s); i++ { // partialISO holds only digits and dashes
		if !isDigit(s[i]) && s[i] != '-' {
			return time.Time{}, false
		}
	}
	m := partialISO.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	atoi := func(s string, def int) int {
		if s == "" {
			return def
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	var y, mo, d int
	switch {
	case m[1] != "":
		y, mo, d = atoi(m[1], 0), atoi(m[2], 1), 1
	case m[3] != "":
		y, mo, d = twoDigitYear(atoi(m[3], 0)), atoi(m[4], 0), atoi(m[5], 0)
	default:
		y, mo, d = twoDigitYear(atoi(m[6], 0)), atoi(m[7], 0), 1
	}
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, loc)
	if mo < 1 || mo > 12 || t.Day() != d {
		return time.Time{}, false // 2003-13, 03-02-30
	}
	return t, true
}

// twoDigitYear applies RFC 2822 §4.3: 00–49 are 2000–2049, 50–99 are
// 1950–1999.
func twoDigitYear(y int) int {
	if y < 50 {
		return 2000 + y
	}
	return 1900 + y
}

// splitDateTime separates a date from a time glued to it by ISO 8601's 'T'
// when the date is not all digits ("2004-július-13T9:15-05:00").
var splitDateTime = regexp.MustCompile(`(\d)[Tt](\d{1,2}:)`)

var (
	cjkDate     = regexp.MustCompile(`(\d{4})\s*([년年])\s*(\d{1,2})\s*[월月]\s*(\d{1,2})\s*[일日]`)
	cjkMeridiem = regexp.MustCompile(`(오전|오후|午前|午後)\s*(\d{1,2}(?::\d{1,2}){0,2})`)
	// koreaJapan is the zone of Korea and of Japan: UTC+9, no daylight
	// saving since 1988 (Korea) and 1951 (Japan).
	koreaJapan = time.FixedZone("UTC+9", 9*3600)
)

// rewriteCJK turns Korean and Japanese dates ("2004년 05월 28일 오후
// 11:23") into the numeric forms normalize reads, and chooses Korea's and
// Japan's time when loc is UTC, which gives no hint.
func rewriteCJK(s string, loc *time.Location) (string, *time.Location) {
	// cjkDate needs 년 or 年, cjkMeridiem 오 or 午, and cjkDate's
	// rewriting adds neither: without one, skip the regexps (on text with
	// a middle dot they were 14 % of a failing Parse).
	if isASCII(s) || !strings.ContainsAny(s, "년年오午") {
		return s, loc
	}
	found := false
	s = cjkDate.ReplaceAllStringFunc(s, func(m string) string {
		found = true
		p := cjkDate.FindStringSubmatch(m)
		return p[1] + "-" + p[3] + "-" + p[4]
	})
	s = cjkMeridiem.ReplaceAllStringFunc(s, func(m string) string {
		found = true
		p := cjkMeridiem.FindStringSubmatch(m)
		if p[1] == "오전" || p[1] == "午前" {
			return p[2] + " AM"
		}
		return p[2] + " PM"
	})
	if found && loc.String() == "UTC" {
		loc = koreaJapan
	}
	return s, loc
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// regionZone loads an IANA zone of regionZones, falling back to its
// standard offset when the system has no zone database.
func regionZone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.FixedZone(name, regionStandard[name])
}
