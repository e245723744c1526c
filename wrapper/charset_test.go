package wrapper_test

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

func TestCharset(t *testing.T) {
	const annotated = `<!-- <channel:title>T</channel:title> --><!-- <item:title index="1"> -->%s<!-- </item:title> -->`
	item := func(title string) string { return strings.Replace(annotated, "%s", title, 1) }
	sjis, err := japanese.ShiftJIS.NewEncoder().String(`<title>ニュース</title>` + item("東京の天気"))
	if err != nil {
		t.Fatal(err)
	}
	longHead := "<head>" + strings.Repeat("<link rel=\"stylesheet\" href=\"/css/a-rather-long-style-sheet-name.css\">\n", 30)
	tests := []struct {
		name, contentType, page string
		charset, from, title    string
		warning                 string // a part of the one warning expected, if any
	}{
		{"http header", "text/html; charset=UTF-8", item("café"), "utf-8", wrapper.FromHTTP, "café", ""},
		{"ISO-8859-1 is read as windows-1252", "text/html; charset=ISO-8859-1", item("\x80 caf\xe9 \x93q\x94"), "windows-1252", wrapper.FromHTTP, "€ café “q”", ""},
		{"header without a media type", "charset=koi8-r", item("\xf0\xd2\xc9\xd7\xc5\xd4"), "koi8-r", wrapper.FromHTTP, "Привет", ""},
		{"Shift_JIS", "text/html; charset=Shift_JIS", sjis, "shift_jis", wrapper.FromHTTP, "東京の天気", ""},
		{"a UTF-8 BOM overrides the header", "text/html; charset=iso-8859-1", "\xef\xbb\xbf" + item("café"), "utf-8", wrapper.FromBOM, "café", ""},
		{"UTF-16LE BOM", "", "\xff\xfe" + utf16le(item("A")), "utf-16le", wrapper.FromBOM, "A", ""},
		{"UTF-16BE BOM", "", "\xfe\xff" + utf16be(item("B")), "utf-16be", wrapper.FromBOM, "B", ""},
		{"meta charset", "", `<meta charset="windows-1252">` + item("caf\xe9"), "windows-1252", wrapper.FromMeta, "café", ""},
		{"meta http-equiv", "text/html", `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=koi8-r">` + item("\xf0\xd2\xc9\xd7\xc5\xd4"), "koi8-r", wrapper.FromMeta, "Привет", ""},
		{"meta after the first 1024 bytes of the head", "", longHead + `<meta charset="iso-8859-15"></head>` + item("\xa4"), "iso-8859-15", wrapper.FromMeta, "€", ""},
		{"meta in the body is too late", "", "<body><meta charset=\"koi8-r\">" + item("café"), "utf-8", wrapper.FromSniffed, "café", ""},
		{"meta saying UTF-16 means UTF-8", "", `<meta charset="utf-16">` + item("café"), "utf-8", wrapper.FromMeta, "café", ""},
		{"valid UTF-8 is sniffed", "text/html", item("café"), "utf-8", wrapper.FromSniffed, "café", ""},
		{"ASCII", "", item("cafe"), "utf-8", wrapper.FromDefault, "cafe", ""},
		{"not UTF-8, nothing declared", "", item("caf\xe9"), "windows-1252", wrapper.FromDefault, "café", ""},
		{"unknown header label", "text/html; charset=klingon", `<meta charset="windows-1252">` + item("caf\xe9"), "windows-1252", wrapper.FromMeta, "café", `the Content-Type charset "klingon" is not a known encoding`},
		{"unknown meta label", "", `<meta charset="x-foo">` + item("caf\xe9"), "windows-1252", wrapper.FromDefault, "café", `<meta> charset "x-foo" is not a known encoding`},
		// Found by FuzzWrap: lower-casing turned the invalid byte into three,
		// and the offsets found in the lower-cased header overran the header.
		{"invalid byte before charset in the header", "\xc9ChArset=koi8-r", item("\xf0\xd2\xc9\xd7\xc5\xd4"), "koi8-r", wrapper.FromHTTP, "Привет", ""},
		{"non-ASCII letters before charset in a meta", "", "<meta http-equiv=content-type content=\"\u0130\xc9 text/html; CHARSET=koi8-r\">" + item("\xf0\xd2\xc9\xd7\xc5\xd4"), "koi8-r", wrapper.FromMeta, "Привет", ""},
		{"invalid UTF-8 as declared", "text/html; charset=utf-8", item("caf\xe9 \xff"), "utf-8", wrapper.FromHTTP, "caf\ufffd \ufffd", "the page is not valid UTF-8: 2 invalid bytes replaced with U+FFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wrapper.Wrap([]byte(tt.page), wrapper.Options{URL: pageURL, ContentType: tt.contentType, Now: testNow})
			if r.Charset != tt.charset || r.CharsetFrom != tt.from {
				t.Errorf("charset %s from %s, want %s from %s", r.Charset, r.CharsetFrom, tt.charset, tt.from)
			}
			if len(r.Resource.Items) != 1 || r.Resource.Items[0].Title != tt.title {
				t.Fatalf("items = %+v, want one titled %q", r.Resource.Items, tt.title)
			}
			var want []wantWarning
			if tt.warning != "" {
				want = append(want, wantWarning{0, tt.warning})
			}
			checkWarnings(t, r.Warnings, want)
			if strings.HasPrefix(r.Text, "\ufeff") {
				t.Errorf("the byte order mark is left in Text")
			}
		})
	}
}

// Line numbers count lines of Text, whatever the page's line breaks.
func TestLineNumbers(t *testing.T) {
	for name, br := range map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r"} {
		page := "\xef\xbb\xbf<title>T</title>" + br + br + "<!-- </item:title> -->" + br + "<!-- <item:title index=x> -->A<!-- </item:title> -->"
		r := wrapper.Wrap([]byte(page), wrapper.Options{URL: pageURL})
		checkWarnings(t, r.Warnings, []wantWarning{{3, "closes nothing"}, {4, `index "x" is not an integer`}})
		if strings.Contains(r.Text, "\r") {
			t.Errorf("%s: Text keeps carriage returns", name)
		}
		if got := strings.Split(r.Text, "\n")[3]; !strings.HasPrefix(got, "<!-- <item:title index=x>") {
			t.Errorf("%s: line 4 of Text is %q", name, got)
		}
	}
}

func utf16be(s string) string {
	var b []byte
	for _, r := range s { // ASCII only in these tests
		b = append(b, 0, byte(r))
	}
	return string(b)
}
