package dedup

import (
	"strings"
	"testing"
)

// FuzzCompare checks, for any two items, that profiling and deciding do
// not fail, are deterministic and symmetric, keep scores within 0 and 1,
// that an item is one story with itself unless it has no text, and that
// profiles ignore what they promise to ignore: the markup around a
// description, and the case of ASCII letters, which changes no term
// (only, capitals marking names, a term's class).
func FuzzCompare(f *testing.F) {
	f.Add(kenyaTitle, kenyaDescription, "", kenyaTitleCopy, kenyaDescCopy, "Reuters:")
	f.Add("", plotNotice, "", "", underTwelve, "")
	f.Add("UPDATE 2-Soccer-Kingsport beat Ashvale 2-1 | Reuters", "", "", "東京タワー Straße Αθήνα", "<ul><li>ＦＵＬＬ</li></ul>", "[東京]")
	f.Add("It is what it is", "<script>alert(1)</script>", "", "CORRECTED-x", "a\\u0301\\u0301 e\\u0308", "x")
	f.Fuzz(func(t *testing.T, titleA, descA, prefixA, titleB, descB, prefixB string) {
		a, b := NewProfile(titleA, descA, prefixA, nil), NewProfile(titleB, descB, prefixB, nil)
		d := Compare(a, b)
		if again := Compare(NewProfile(titleA, descA, prefixA, nil), b); again != d {
			t.Fatalf("not deterministic: %+v then %+v", d, again)
		}
		if back := Compare(b, a); back.Same != d.Same || back.Rule != d.Rule {
			t.Errorf("not symmetric: %+v one way, %+v the other", d, back)
		}
		if d.Score < 0 || d.Score > 1 {
			t.Errorf("score %v", d.Score)
		}
		if self := Compare(a, a); self.Same == a.Empty() {
			t.Errorf("an item compared with itself: %+v (empty: %v)", self, a.Empty())
		}
		if up := NewProfile(asciiUpper(titleA), descA, asciiUpper(prefixA), nil); !sameProfile(up, a, classMask) {
			t.Errorf("upper-case title: %+v, want %+v up to classes", up, a)
		}
		if wrapped := NewProfile(titleA, "<div><p>"+descA+"</p></div>", prefixA, nil); !sameProfile(wrapped, a, 0) && !strings.Contains(descA, "<") {
			t.Errorf("description wrapped in markup: %+v, want %+v", wrapped, a)
		}
	})
}

// sameProfile compares profiles, ignoring the term flags in ignore.
func sameProfile(a, b Profile, ignore term) bool {
	if a.flags != b.flags || a.order != b.order || len(a.terms) != len(b.terms) {
		return false
	}
	for i := range a.terms {
		if a.terms[i]&^ignore != b.terms[i]&^ignore {
			return false
		}
	}
	return true
}

func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
