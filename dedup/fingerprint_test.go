package dedup

import (
	"slices"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

const (
	tenThingsTitle16 = "10 things to know today: November 16"
	tenThingsTitle17 = "10 things to know today: November 17"
	tenThingsDesc16  = "Storm Arlo brings gales of up to 120 km/h to the north coast. Parliament begins the budget debate. Harbour City fans prepare for a victory parade. Plus: the science of why cats knock things off tables."
	tenThingsDesc17  = "Power cuts hit 40,000 homes after Storm Arlo. The finance minister defends tax rises in the budget debate. A new study links poor sleep to memory loss. Plus: the town that elected a goat as honorary mayor."

	recallTitle = "Voltra recalls 85,000 electric SUVs over brake software fault"
	recallDesc  = "Voltra is recalling about 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said. Owners will receive an over-the-air update."
)

type item struct{ title, description, prefix string }

func (it item) fingerprint() uint64 { return Fingerprint(it.title, it.description, it.prefix) }

func TestCopiesAndLightEditsCollapse(t *testing.T) {
	original := item{recallTitle, recallDesc, ""}
	for _, tc := range []struct {
		name string
		copy item
		max  int // the largest distance allowed
	}{
		{"identical, another source", item{recallTitle, recallDesc, ""}, 0},
		{"upper case", item{"VOLTRA RECALLS 85,000 ELECTRIC SUVS OVER BRAKE SOFTWARE FAULT", recallDesc, ""}, 0},
		{"punctuation and typography", item{"Voltra recalls 85000 electric SUVs over brake software fault!", "Voltra is recalling about 85,000 of its Terra electric SUVs -- because a software fault can delay braking in cold weather, the company said; owners will receive an “over-the-air” update.", ""}, 0},
		{"source prefix removed", item{"Reuters: " + recallTitle, recallDesc, "Reuters: "}, 0},
		{"source prefix written differently", item{"REUTERS - " + recallTitle, recallDesc, "Reuters:"}, 0},
		{"markup and entities", item{recallTitle, "<p>Voltra is recalling about <b>85,000</b> of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said.</p><p>Owners will receive an over&#45;the&#45;air update.</p>", ""}, 0},
		{"accents dropped", item{"Vóltra recalls 85,000 electric SUVs over brake software fault", recallDesc, ""}, 0},
		{"words added and removed", item{recallTitle, "Voltra is recalling 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said on Monday. Owners will receive an over-the-air update.", ""}, DefaultK},
		{"sentence reworded", item{recallTitle, "Voltra is recalling about 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said. An over-the-air update will fix it.", ""}, DefaultK},
		{"second sentence dropped", item{recallTitle, "Voltra is recalling about 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said.", ""}, DefaultK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := Distance(original.fingerprint(), tc.copy.fingerprint()); d > tc.max {
				t.Errorf("distance %d, want at most %d", d, tc.max)
			}
		})
	}
}

func TestSimilarTitlesOfDifferentStoriesStayApart(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b item
	}{
		{"daily template, different descriptions", item{tenThingsTitle16, tenThingsDesc16, ""}, item{tenThingsTitle17, tenThingsDesc17, ""}},
		{"daily template, titles only", item{tenThingsTitle16, "", ""}, item{tenThingsTitle17, "", ""}},
		{"same company, another story", item{recallTitle, recallDesc, ""}, item{"Voltra opens first European battery factory", "Voltra opened its first battery plant in Europe on Thursday, a 2 billion factory near Lyon that will employ 1,800 people and supply cells for the Terra SUV.", ""}},
		{"weekly figures", item{"Flu cases rise to 1,204 this week", "Doctors recorded 1,204 new flu cases in the week to Sunday, up from 1,050 the week before, the health agency said. Hospital admissions rose to 310.", ""}, item{"Flu cases fall to 987 this week", "Doctors recorded 987 new flu cases in the week to Sunday, down from 1,204 the week before, the health agency said. Hospital admissions fell to 240.", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := Distance(tc.a.fingerprint(), tc.b.fingerprint()); d <= DefaultK {
				t.Errorf("distance %d: different stories would be duplicates at k=%d", d, DefaultK)
			}
		})
	}
}

func TestTitlePrefix(t *testing.T) {
	bare := Fingerprint(recallTitle, recallDesc, "")
	for _, tc := range []struct {
		name, title, prefix string
		same                bool
	}{
		{"prefix removed", "Reuters: " + recallTitle, "Reuters: ", true},
		{"prefix matched by its words", "reuters — " + recallTitle, "Reuters:", true},
		{"bracketed prefix", "[City Post] " + recallTitle, "[City Post]", true},
		{"title without the prefix", recallTitle, "Reuters: ", true},
		{"prefix of another source kept", "Reuters: " + recallTitle, "AP: ", false},
		{"no prefix configured", "Reuters: " + recallTitle, "", false},
		{"prefix only at the start", recallTitle + " (Reuters)", "Reuters", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fingerprint(tc.title, recallDesc, tc.prefix); (got == bare) != tc.same {
				t.Errorf("Fingerprint(%q, prefix %q) equal to the bare title's: %v, want %v", tc.title, tc.prefix, got == bare, tc.same)
			}
		})
	}
	// The prefix is a title's, not a description's.
	if Fingerprint(recallTitle, "Reuters: "+recallDesc, "Reuters: ") == bare {
		t.Error("the prefix was removed from the description")
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Don't STOP — now!", "dont stop now"},
		{"U.S. economy grows 3.5%", "us economy grows 3.5"},
		{"1,000 jobs, 2 plants", "1000 jobs 2 plants"},
		{"COVID-19 year-old", "covid 19 year old"},
		{"ＦＵＬＬ width ﬁle", "full width file"},
		{"Straße São Tomé", "strasse sao tome"},
		{"Αθήνα Москва́", "αθηνα москва"},
		{"東京タワー opens", "東 京 タ ワ ー opens"},
		{"end. Start", "end start"},
		{"", ""},
		{"   ...   ", ""},
	} {
		got := words(tc.in, maxTitleWords)
		want := []string{}
		if tc.want != "" {
			want = splitSpaces(tc.want)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("words(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func splitSpaces(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestFingerprintIsZeroOnlyWithoutWords(t *testing.T) {
	for _, tc := range []struct {
		title, description, prefix string
		zero                       bool
	}{
		{"", "", "", true},
		{"!!!", "<p> </p><script>alert('x')</script>", "", true},
		{"It is what it is", "", "", true}, // stop words only
		{"Reuters:", "", "Reuters:", true},
		{"Reuters:", "", "", false},
		{"", "<p>Storm</p>", "", false},
		{"Storm", "", "", false},
	} {
		if got := Fingerprint(tc.title, tc.description, tc.prefix); (got == 0) != tc.zero {
			t.Errorf("Fingerprint(%q, %q, %q) = %#x, want zero: %v", tc.title, tc.description, tc.prefix, got, tc.zero)
		}
	}
}

func TestDescriptionBeyondItsStartIsIgnored(t *testing.T) {
	lede := "Voltra is recalling about 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather."
	var long, other string
	for range 20 {
		long += lede + " "
	}
	other = long + "A completely different closing paragraph about football, weather and the markets."
	if Fingerprint(recallTitle, long, "") != Fingerprint(recallTitle, other, "") {
		t.Errorf("words after the first %d of the description changed the fingerprint", defaultScheme.bodyWords)
	}
}

// FuzzFingerprint checks, for any title, description and prefix, that
// Fingerprint does not fail, is deterministic, is 0 exactly when there is
// nothing to compare, and ignores what it promises to ignore: the case of
// the title's ASCII letters, the markup around the description and the
// source's prefix in front of the title.
func FuzzFingerprint(f *testing.F) {
	f.Add(recallTitle, recallDesc, "")
	f.Add("TechBeat | "+recallTitle, "<p>"+recallDesc+"</p>", "TechBeat | ")
	f.Add(tenThingsTitle16, tenThingsDesc16, "Morning Brief:")
	f.Add("東京タワー Straße Αθήνα", "<ul><li>ＦＵＬＬ width</li><li>ﬁle U.S. 1,000</li></ul>", "[東京]")
	f.Add("It is what it is", "<script>alert(1)</script>", "")
	f.Add("", "a\u0301\u0301\u0301 e\u0308", "")
	f.Fuzz(func(t *testing.T, title, description, prefix string) {
		fp := Fingerprint(title, description, prefix)
		if again := Fingerprint(title, description, prefix); again != fp {
			t.Fatalf("not deterministic: %#x then %#x", fp, again)
		}
		fs := defaultScheme.features(title, sanitize.Text(description), prefix)
		if (fp == 0) != (len(fs) == 0) {
			t.Fatalf("fingerprint %#x with %d features", fp, len(fs))
		}
		if up := Fingerprint(asciiUpper(title), description, asciiUpper(prefix)); up != fp {
			t.Errorf("upper-case title: %#x, want %#x", up, fp)
		}
		if wrapped := Fingerprint(title, "<div><p>"+description+"</p></div>", prefix); wrapped != fp && !strings.Contains(description, "<") {
			t.Errorf("description wrapped in markup: %#x, want %#x", wrapped, fp)
		}
		// The promise holds for titles within maxTitleWords words, prefix
		// included, not already starting with the prefix.
		prefixWords, titleWords := words(prefix, maxTextBytes), words(title, maxTextBytes)
		startsWithPrefix := len(prefixWords) > 0 && len(titleWords) >= len(prefixWords) && slices.Equal(titleWords[:len(prefixWords)], prefixWords)
		short := len(prefixWords)+len(titleWords) <= maxTitleWords && len(prefix)+len(title) < maxTextBytes
		if prefixed := Fingerprint(prefix+" "+title, description, prefix); prefixed != fp && short && !startsWithPrefix {
			t.Errorf("title with the prefix in front: %#x, want %#x", prefixed, fp)
		}
	})
}

func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
