package dynamo

import (
	"slices"
	"strings"
	"testing"
)

func TestMatchStoredItems(t *testing.T) {
	own := func(id, title string) Item { return Item{ID: id, Title: title} }
	derived := func(id, title string) Item { return Item{ID: id, Title: title, IDFromContent: true} }
	tests := []struct {
		name        string
		items       []Item
		stored      []string
		byTitle     map[string][]string
		wantTitles  []string
		wantKeys    []string
		wantByTitle []string
	}{
		{
			name:       "stored under its own id",
			items:      []Item{own("a", "A"), derived("b", "B")},
			stored:     []string{"a", "b"},
			wantTitles: nil,
			wantKeys:   []string{"a", "b"},
		},
		{
			name:       "new items keep their ids; an own link is never matched by title",
			items:      []Item{own("x", "Same"), derived("y", "Other")},
			stored:     []string{"old"},
			byTitle:    map[string][]string{"Other": nil},
			wantTitles: []string{"Other"},
			wantKeys:   []string{"x", "y"},
		},
		{
			name:        "an edited description is the stored item of that title",
			items:       []Item{derived("new-id", "Budget passes")},
			stored:      []string{"old-id"},
			byTitle:     map[string][]string{"Budget passes": {"old-id"}},
			wantTitles:  []string{"Budget passes"},
			wantKeys:    []string{"old-id"},
			wantByTitle: []string{"old-id"},
		},
		{
			name:        "each stored item is claimed once, ids before titles",
			items:       []Item{derived("n1", "Weather"), derived("k1", "Weather"), derived("n2", "Weather")},
			stored:      []string{"k1", "k2"},
			byTitle:     map[string][]string{"Weather": {"k1", "k2"}},
			wantTitles:  []string{"Weather", "Weather"},
			wantKeys:    []string{"k2", "k1", "n2"},
			wantByTitle: []string{"k2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := func(key string) bool { return slices.Contains(tt.stored, key) }
			if got := TitlesToMatch(tt.items, stored); !slices.Equal(got, tt.wantTitles) {
				t.Errorf("TitlesToMatch = %q, want %q", got, tt.wantTitles)
			}
			keys, byTitle := MatchStoredItems(tt.items, stored, tt.byTitle)
			if !slices.Equal(keys, tt.wantKeys) || !slices.Equal(byTitle, tt.wantByTitle) {
				t.Errorf("MatchStoredItems = %q, %q; want %q, %q", keys, byTitle, tt.wantKeys, tt.wantByTitle)
			}
		})
	}
}

// Ids stored items are found by: a change of ItemID's bytes would make
// every item whose id comes from its content new at its next poll.
func TestItemIDStable(t *testing.T) {
	for _, c := range []struct {
		link              string
		ownLink           bool
		title, desc, want string
	}{
		{"", false, "", "", "261748ec72e4145e7b863edba1583ed8"},
		{"http://x/a ", true, "", "", "cf65e7a4faf43a7fb3b1c29dd917710d"},
		{"http://x/a ", false, "", "", "261748ec72e4145e7b863edba1583ed8"},
		{"", false, "  A\tb\n c ", " <p>x  y</p>\u00a0z\u2003 ", "47efc9718d127ed13580d086483f5dd7"},
		{"", false, "", "only desc", "52f1fdbf1fcfe7c541915d302825979a"},
		{"", false, strings.Repeat(" T\u2003t ", 300), strings.Repeat("<p>long  \n", 400), "b18a70cca537237e87579ff67eeb9799"},
	} {
		if got := ItemID(c.link, c.ownLink, c.title, c.desc); got != c.want {
			t.Errorf("ItemID(%q, %v, %.20q, %.20q) = %s, want %s", c.link, c.ownLink, c.title, c.desc, got, c.want)
		}
	}
}

// appendWords appends what strings.Fields and strings.Join would make of
// any text, whether it takes its shortcut (wordsJoined) or not.
func TestAppendWordsJoinsFields(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "\u00a0a", "a\u00a0b", "a\u2003", "\u0085",
		"é b", "a’s — b", "\xff b", "a \xc2", "a\xc2\xa0b", "<p>x y</p> <p>z</p>", "\v", "a\rb", "\u3000a b"} {
		want := appendField(nil, strings.Join(strings.Fields(s), " "))
		if got := appendWords(nil, s); string(got) != string(want) {
			t.Errorf("appendWords(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendWords(f *testing.F) {
	for _, s := range []string{"", "a b", " a  b\t", "a\u00a0b", "\xff \xc2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := appendField(nil, strings.Join(strings.Fields(s), " "))
		if got := appendWords(nil, s); string(got) != string(want) {
			t.Errorf("appendWords(%q) = %q, want %q", s, got, want)
		}
	})
}
