package dedup

import (
	"slices"
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
	if a.flags != b.flags || a.order != b.order || len(a.terms) != len(b.terms) || !slices.Equal(a.pairings, b.pairings) {
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

// TestCompareRules shows each rule of issue 16's second round on a pair
// made for it, with the pair one edit away that the rule lets through.
func TestCompareRules(t *testing.T) {
	type item struct{ title, desc string }
	// factsOn are the thresholds of step 21 (docs/DEDUP.md), with the
	// facts rule on, which DefaultThresholds turn off since step 23.
	factsOn := DefaultThresholds
	factsOn.Facts, factsOn.FactsWeight, factsOn.TextOfFacts = 0.75, 10, 0.35
	tests := []struct {
		name string
		a, b item
		same bool
		rule Rule
		th   *Thresholds // nil: DefaultThresholds
	}{
		{
			name: "another edition of a template: figures",
			a:    item{"Lake levels this week", "Lake Orrin stood at 3.42 m on Monday, up 0.15 m in a week, and Lake Tarn at 2.08 m. Boating remains allowed on both lakes."},
			b:    item{"Lake levels this week", "Lake Orrin stood at 3.61 m on Monday, up 0.19 m in a week, and Lake Tarn at 2.08 m. Boating remains allowed on both lakes."},
			rule: RuleFigures,
		},
		{
			name: "the same edition republished with one figure added",
			a:    item{"Lake levels this week", "Lake Orrin stood at 3.42 m on Monday, up 0.15 m in a week, and Lake Tarn at 2.08 m. Boating remains allowed on both lakes."},
			b:    item{"Lake levels this week", "Lake Orrin stood at 3.42 m on Monday, up 0.15 m in a week, and Lake Tarn at 2.08 m, its highest for 9 years. Boating remains allowed on both lakes."},
			same: true,
			rule: RuleText,
		},
		{
			name: "one team, another opponent: names",
			a:    item{"Brackley beat Ormond with late goal from Sesay", "Brackley beat Ormond 1-0 at home, Musa Sesay scoring in the last minute to keep his side top of the table."},
			b:    item{"Brackley beat Tavistock with late goal from Sesay", "Brackley beat Tavistock 1-0 at home, Musa Sesay scoring in the last minute to keep his side top of the table."},
			rule: RuleNames,
		},
		{
			name: "a name only one headline has, the other's text has too",
			a:    item{"Brackley beat Ormond with late goal from Sesay", "Brackley beat Ormond 1-0 at home, Musa Sesay scoring in the last minute to keep his side top of the table."},
			b:    item{"Brackley beat Ormond with late goal", "Brackley beat Ormond 1-0 at home, Musa Sesay scoring in the last minute to keep his side top of the table."},
			same: true,
			rule: RuleText,
		},
		{
			name: "the same schedule with other names in front: headline-names",
			a:    item{"Street sweeping this week: Oxley and Penn on Monday", "Streets will be swept in Oxley and Penn on Monday this week, and in Quarry and Rusk on Wednesday."},
			b:    item{"Street sweeping this week: Quarry and Rusk on Monday", "Streets will be swept in Quarry and Rusk on Monday this week, and in Oxley and Penn on Wednesday."},
			rule: RuleHeadlineNames,
		},
		{
			name: "the same schedule, one headline naming one area fewer",
			a:    item{"Street sweeping this week: Oxley and Penn on Monday", "Streets will be swept in Oxley and Penn on Monday this week, and in Quarry and Rusk on Wednesday."},
			b:    item{"Street sweeping this week: Oxley on Monday", "Streets will be swept in Oxley and Penn on Monday this week, and in Quarry and Rusk on Wednesday."},
			same: true,
			rule: RuleText,
		},
		{
			name: "another edition under one headline: edition",
			a:    item{"Street cleaning: Holm north round", "Streets in Holm north will be swept on Wednesday 3 September and then every other Wednesday. Cars must be moved by 8am."},
			b:    item{"Street cleaning: Holm north round", "Streets in Holm north will be swept on Wednesday 17 September and then every other Wednesday. Cars must be moved by 8am."},
			rule: RuleEdition,
		},
		{
			name: "the same edition republished with a figure added",
			a:    item{"Street cleaning: Holm north round", "Streets in Holm north will be swept on Wednesday 3 September and then every other Wednesday. Cars must be moved by 8am."},
			b:    item{"Street cleaning: Holm north round", "Streets in Holm north will be swept on Wednesday 3 September and then every other Wednesday. Cars must be moved by 8am or be towed, at a cost of 90."},
			same: true,
			rule: RuleText,
		},
		{
			name: "one place's two notices of one week: no figure shared, no facts",
			a:    item{"Ferry crews at Oldport to strike on Friday", "Ferry crews at Oldport harbour will strike on Friday, their union announced on Tuesday. Most sailings to the islands are expected to be cancelled."},
			b:    item{"Harbour pilots at Oldport to strike on Friday", "Harbour pilots at Oldport will walk out on Friday, their union announced on Tuesday. Cargo ships may be held at anchor outside the port."},
			rule: RuleDifferent,
		},
		{
			name: "another outlet's wording of the same facts, a figure among them",
			a:    item{"Ferry crews at Oldport to strike on Friday", "Ferry crews at Oldport harbour will strike on Friday, their union announced on Tuesday. Most of the 40 sailings to the islands are expected to be cancelled."},
			b:    item{"Oldport ferry walkout set for Friday", "Oldport's ferry crews will walk out on Friday, the union said on Tuesday, putting 40 island sailings at risk."},
			same: true,
			rule: RuleFacts,
			th:   &factsOn,
		},
		{
			name: "the same, with the facts rule off as by default",
			a:    item{"Ferry crews at Oldport to strike on Friday", "Ferry crews at Oldport harbour will strike on Friday, their union announced on Tuesday. Most of the 40 sailings to the islands are expected to be cancelled."},
			b:    item{"Oldport ferry walkout set for Friday", "Oldport's ferry crews will walk out on Friday, the union said on Tuesday, putting 40 island sailings at risk."},
			rule: RuleDifferent,
		},
		{
			name: "a Japanese daily report on another day: dates",
			a:    item{"高森市の花粉情報", "高森市の木曜日のスギ花粉は「多い」の予想です。外出時はマスクを着用してください。"},
			b:    item{"高森市の花粉情報", "高森市の金曜日のスギ花粉は「多い」の予想です。外出時はマスクを着用してください。"},
			rule: RuleDates,
		},
		{
			name: "the same Japanese report republished",
			a:    item{"高森市の花粉情報", "高森市の木曜日のスギ花粉は「多い」の予想です。外出時はマスクを着用してください。"},
			b:    item{"高森市の花粉情報", "高森市の木曜日のスギ花粉は「多い」の予想です。外出の際はマスクを着用してください。"},
			same: true,
			rule: RuleText,
		},
		{
			name: "a correction that says so in its text: correction",
			a:    item{"Three hurt in Osterby bus crash", "Three people were hurt when a bus hit a wall in Osterby on Monday evening, the ambulance service said."},
			b:    item{"Two hurt in Osterby bus crash", "Two people were hurt when a bus hit a wall in Osterby on Monday evening, the ambulance service said, correcting an earlier figure of three."},
			rule: RuleCorrection,
		},
		{
			name: "another round of a league: pairings",
			a:    item{"Results: Kellworth City 2 Fennick 0, Ashcombe 1 Halden 1", "Saturday's results: Kellworth City 2 Fennick 0; Ashcombe 1 Halden 1; Pellham 3 Greyford 2. Kellworth City stay top."},
			b:    item{"Results: Fennick 2 Kellworth City 0, Halden 1 Ashcombe 1", "Saturday's results: Fennick 2 Kellworth City 0; Halden 1 Ashcombe 1; Greyford 3 Pellham 2. Kellworth City stay top."},
			rule: RulePairings,
		},
		{
			name: "the same round, scores written otherwise",
			a:    item{"Results: Kellworth City 2 Fennick 0, Ashcombe 1 Halden 1", "Saturday's results: Kellworth City 2 Fennick 0; Ashcombe 1 Halden 1; Pellham 3 Greyford 2. Kellworth City stay top."},
			b:    item{"Results: Kellworth City 2-0 Fennick, Ashcombe 1-1 Halden", "Saturday's results: Kellworth City 2-0 Fennick; Ashcombe 1-1 Halden; Pellham 3-2 Greyford. Kellworth City stay top of the table."},
			same: true,
			rule: RuleText,
		},
		{
			name: "fixtures, the same teams paired otherwise",
			a:    item{"Fixtures: Kellworth City v Fennick, Ashcombe v Halden", ""},
			b:    item{"Fixtures: Fennick v Ashcombe, Halden v Kellworth City", ""},
			rule: RulePairings,
		},
		{
			name: "the same fixtures, home and away named the other way",
			a:    item{"Fixtures: Kellworth City v Fennick, Ashcombe v Halden", ""},
			b:    item{"Fixtures: Fennick v Kellworth City, Halden v Ashcombe", ""},
			same: true,
			rule: RuleShort,
		},
		{
			name: "before and after are words",
			a:    item{"Hall open before the concert", ""},
			b:    item{"Hall open after the concert", ""},
			rule: RuleDifferent,
		},
		{
			name: "percent and % are one",
			a:    item{"Orrin Mills shares up 8%", ""},
			b:    item{"Orrin Mills shares up 8 percent", ""},
			same: true,
			rule: RuleShort,
		},
		{
			name: "a letter glued to a number or apart is one label of it",
			a:    item{"M5.4 quake strikes 40 km south of Vell", ""},
			b:    item{"M 5.4 quake strikes 40 km south of Vell", ""},
			same: true,
			rule: RuleShort,
		},
		{
			name: "another road: the letter counts",
			a:    item{"A40 closed eastbound at junction 7", ""},
			b:    item{"M40 closed eastbound at junction 7", ""},
			rule: RuleDifferent,
		},
		{
			name: "another road: the number counts",
			a:    item{"A40 closed eastbound at junction 7", ""},
			b:    item{"A4 closed eastbound at junction 7", ""},
			rule: RuleDifferent,
		},
		{
			name: "a day in the plural is that day",
			a:    item{"Ostby library to open on Sundays", "Ostby library will open on Sundays from 11 am to 4 pm from January, the council said, after 2,300 people signed a petition."},
			b:    item{"Sunday opening for Ostby library", "Ostby library will open on Sundays from 11 am to 4 pm from January, the council said, after 2,300 residents signed a petition."},
			same: true,
			rule: RuleText,
		},
		{
			name: "another day, in the plural",
			a:    item{"Ostby library to open on Sundays", ""},
			b:    item{"Ostby library to open on Saturdays", ""},
			rule: RuleDifferent,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := NewProfile(tt.a.title, tt.a.desc, "", nil), NewProfile(tt.b.title, tt.b.desc, "", nil)
			th := DefaultThresholds
			if tt.th != nil {
				th = *tt.th
			}
			if d := th.Compare(a, b); d.Same != tt.same || d.Rule != tt.rule {
				t.Errorf("Compare = %+v, want same %v by rule %s", d, tt.same, tt.rule)
			}
		})
	}
}
