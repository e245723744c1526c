package dynamo

import (
	"slices"
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
