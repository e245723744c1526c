package encodings

import "testing"

func TestHTTPCharset(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"text/xml":                              "",
		"text/xml; charset=windows-1251":        "windows-1251",
		`application/xml;charset= "us-ascii"`:   "us-ascii",
		"application/rss+xml;charset= 'gb2312'": "gb2312",
		"text/xml;charset = us-ascii":           "us-ascii",
		"text/xml; charset:iso-8859-1":          "",
		"text/html; charset=UTF-8; x=\"":        "UTF-8",
	} {
		if got := HTTPCharset(in); got != want {
			t.Errorf("HTTPCharset(%q) = %q, want %q", in, got, want)
		}
	}
}
