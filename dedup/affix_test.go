package dedup

import (
	"fmt"
	"testing"
)

// A label learned from a source's titles repeats word for word; a segment
// whose number changes from title to title is news, however many titles
// start with its shape.
func TestSourceAffixesLearnWordForWord(t *testing.T) {
	var a SourceAffixes
	for i := range 8 {
		a.Observe(fmt.Sprintf("M %d.%d - %d km N of Grell", 2+i%4, i, 10+i))
		a.Observe(fmt.Sprintf("Quake desk: M %d.%d near Tarrow", 3+i%3, i))
	}
	tests := []struct {
		title, core string
	}{
		{"M 4.7 - 12 km N of Grell", "M 4.7 - 12 km N of Grell"}, // a magnitude: not learned
		{"Quake desk: M 4.1 near Tarrow", "M 4.1 near Tarrow"},   // a label: learned
		{"UPDATE 3-Quake shakes Grell", "Quake shakes Grell"},    // built in, any number
	}
	for _, tt := range tests {
		if got := a.Split(tt.title, "").Core; got != tt.core {
			t.Errorf("Split(%q).Core = %q, want %q", tt.title, got, tt.core)
		}
	}
	m41, m47 := NewProfile("M 4.1 - 12 km N of Grell", "", "", &a), NewProfile("M 4.7 - 12 km N of Grell", "", "", &a)
	if d := Compare(m41, m47); d.Same {
		t.Errorf("two magnitudes at one place: %+v, want different", d)
	}
}
