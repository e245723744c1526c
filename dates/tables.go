package dates

// isoLayouts are the ISO 8601 / RFC 3339 shapes, tried on the upper-cased
// value before any normalization. time.Parse accepts a fractional second
// (with '.' or ',') after the seconds even when the layout has none.
var isoLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	"20060102T150405Z0700",
	"20060102T150405Z07:00",
	"20060102T150405",
}

// dateLayouts are the calendar dates after normalization: numeric dates are
// already YYYY-MM-DD, month names are English abbreviations, commas are gone.
var dateLayouts = []string{
	"2006-01-02", // 2005-12-08, 08.12.2005, 12/08/2005
	"Jan 2 2006", // December 08, 2005
	"2 Jan 2006", // 8 Dec 2005, 8. Dezember 2005
	"2006 Jan 2", // 2005 Dec 08
	"2 Jan 06",   // RFC 822: 08 Dec 05
	"Jan 2 06",   // Dec 8 05
}

// timeLayouts are the times of day after normalization (AM/PM separated
// and upper-cased).
var timeLayouts = []string{
	"15:04:05",
	"15:04",
	"3:04:05 PM",
	"3:04 PM",
	"3 PM",
}

// layouts is every normalized shape Parse accepts: a date alone, a date
// followed or preceded by a time, and Unix ctime (time between the day and
// the year, once the weekday and zone are taken out).
var layouts = func() []string {
	var all []string
	for _, d := range dateLayouts {
		all = append(all, d)
		for _, t := range timeLayouts {
			all = append(all, d+" "+t, t+" "+d)
		}
	}
	return append(all, "Jan 2 15:04:05 2006", "Jan 2 15:04 2006")
}()

// monthNames maps the month names people write, in English and in the main
// Western European languages, full and abbreviated, lower-cased and without
// a trailing dot, and in Greek and Hungarian (which feeds from those
// countries write), to the English abbreviation that time.Parse reads.
var monthNames = func() map[string]string {
	names := map[string][]string{
		"Jan": {"january", "jan", "janvier", "janv", "januar", "jän", "jänner", "enero", "ene", "gennaio", "gen", "januari", "janeiro", "ιαν", "ιανουαρίου", "január"},
		"Feb": {"february", "feb", "février", "fevrier", "févr", "fevr", "fév", "fev", "februar", "febrero", "febbraio", "februari", "fevereiro", "φεβ", "φεβρουαρίου", "február", "febr"},
		"Mar": {"march", "mar", "mars", "märz", "maerz", "mär", "marzo", "maart", "mrt", "março", "marco", "μάρ", "μαρ", "μαρτίου", "március", "márc"},
		"Apr": {"april", "apr", "avril", "avr", "abril", "abr", "aprile", "απρ", "απριλίου", "április", "ápr"},
		"May": {"may", "mai", "mayo", "maggio", "mag", "mei", "maio", "μάι", "μαΐ", "μαϊ", "μαι", "μαΐου", "május", "máj"},
		"Jun": {"june", "jun", "juin", "juni", "junio", "giugno", "giu", "junho", "ιούν", "ιουν", "ιουνίου", "június", "jún"},
		"Jul": {"july", "jul", "juillet", "juil", "juli", "julio", "luglio", "lug", "julho", "ιούλ", "ιουλ", "ιουλίου", "július", "júl"},
		"Aug": {"august", "aug", "août", "aout", "agosto", "ago", "augustus", "αύγ", "αυγ", "αυγούστου", "augusztus"},
		"Sep": {"september", "sep", "sept", "septembre", "septiembre", "settembre", "set", "setembro", "σεπ", "σεπτεμβρίου", "szeptember", "szept"},
		"Oct": {"october", "oct", "octobre", "oktober", "okt", "octubre", "ottobre", "ott", "outubro", "out", "οκτ", "οκτωβρίου", "október"},
		"Nov": {"november", "nov", "novembre", "noviembre", "novembro", "νοέ", "νοε", "νοεμβρίου"},
		"Dec": {"december", "dec", "décembre", "decembre", "déc", "dezember", "dez", "diciembre", "dic", "dicembre", "dezembro", "δεκ", "δεκεμβρίου"},
	}
	m := map[string]string{}
	for canonical, list := range names {
		for _, n := range list {
			m[n] = canonical
		}
	}
	return m
}()

// weekdayNames are dropped wherever they appear: the date says the day.
var weekdayNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{
		"monday", "mon", "tuesday", "tue", "tues", "wednesday", "wed", "thursday", "thu", "thur", "thurs",
		"friday", "fri", "saturday", "sat", "sunday", "sun",
		"lundi", "lun", "mardi", "mercredi", "mer", "jeudi", "jeu", "vendredi", "ven", "samedi", "sam", "dimanche", "dim",
		"montag", "mo", "dienstag", "di", "mittwoch", "mi", "donnerstag", "do", "freitag", "fr", "samstag", "sa", "sonntag", "so",
		"lunes", "martes", "miércoles", "miercoles", "jueves", "viernes", "sábado", "sabado", "domingo",
		"lunedì", "lunedi", "martedì", "martedi", "mercoledì", "mercoledi", "giovedì", "giovedi", "venerdì", "venerdi", "sabato", "domenica",
		"κυρ", "δευ", "τρι", "τετ", "πεμ", "παρ", "σαβ",
		"hétfő", "kedd", "szerda", "csütörtök", "péntek", "szombat", "vasárnap",
		"maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag",
	} {
		m[n] = true
	}
	return m
}()

// fillerWords connect the parts of a date ("at", "um", "de", "le") and are
// dropped. Unknown lower-case words are dropped as well; these are listed
// because they are short and upper-case in some pages ("ON", "AT"), which
// would otherwise look like a zone abbreviation.
var fillerWords = map[string]bool{
	"at": true, "on": true, "the": true, "of": true, "um": true, "à": true, "a": true, "las": true, "de": true,
	"del": true, "le": true, "den": true, "der": true, "el": true, "il": true, "op": true, "om": true, "uhr": true,
	"o'clock": true, "posted": true, "updated": true, "published": true, "by": true,
}

// zoneAbbreviations are the zone names that pages and feeds write, with
// their offsets east of UTC in seconds. RFC 822's names (UT, GMT, EST, EDT,
// CST, CDT, MST, MDT, PST, PDT) come first; the others are the common ones
// whose meaning is not disputed. IST (India, Ireland, Israel) and AST
// (Atlantic, Arabia) are left out on purpose: an ambiguous zone fails
// rather than being guessed.
var zoneAbbreviations = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "WET": 0, "Z": 0,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
	"AKST": -9 * 3600, "AKDT": -8 * 3600, "HST": -10 * 3600,
	"NST": -(3*3600 + 1800), "NDT": -(2*3600 + 1800),
	"BST": 3600, "WEST": 3600, "CET": 3600, "MET": 3600, "CEST": 2 * 3600, "MEST": 2 * 3600,
	"EET": 2 * 3600, "EEST": 3 * 3600, "MSK": 3 * 3600,
	"JST": 9 * 3600, "KST": 9 * 3600, "HKT": 8 * 3600, "SGT": 8 * 3600, "AWST": 8 * 3600,
	"ACST": 9*3600 + 1800, "ACDT": 10*3600 + 1800, "AEST": 10 * 3600, "AEDT": 11 * 3600,
	"NZST": 12 * 3600, "NZDT": 13 * 3600,
}

// regionZones are the North American zone names that say no season ("16:31
// ET"): they mean the region's clock, standard time in winter and daylight
// time in summer. They are recognized only as written here, upper-case and
// after a number, so that "at 8:25" or the French "et" stay words.
var regionZones = map[string]string{
	"ET": "America/New_York", "CT": "America/Chicago", "MT": "America/Denver",
	"PT": "America/Los_Angeles", "AT": "America/Halifax",
}

// regionStandard is each region's standard offset, used when the system
// has no zone database.
var regionStandard = map[string]int{
	"America/New_York": -5 * 3600, "America/Chicago": -6 * 3600, "America/Denver": -7 * 3600,
	"America/Los_Angeles": -8 * 3600, "America/Halifax": -4 * 3600,
}

// monthFirstZones are the IANA zones of the countries that write numeric
// dates month first (the United States, the Philippines), besides the
// prefixes that monthFirst checks.
var monthFirstZones = map[string]bool{
	"America/New_York": true, "America/Chicago": true, "America/Denver": true, "America/Los_Angeles": true,
	"America/Phoenix": true, "America/Anchorage": true, "America/Detroit": true, "America/Boise": true,
	"America/Juneau": true, "America/Sitka": true, "America/Nome": true, "America/Adak": true,
	"America/Yakutat": true, "America/Metlakatla": true, "America/Menominee": true, "America/Indianapolis": true,
	"America/Louisville": true, "America/Puerto_Rico": true, "Pacific/Honolulu": true, "Pacific/Guam": true,
	"EST": true, "MST": true, "HST": true, "EST5EDT": true, "CST6CDT": true, "MST7MDT": true, "PST8PDT": true,
	"Asia/Manila": true,
}
