package dates_test

import (
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dates"
)

// What each numeric date allows, and how ParseOrder reads it in each order.
func TestParseOrder(t *testing.T) {
	london := mustZone(t, "Europe/London")
	tests := []struct {
		in                         string
		loc                        *time.Location
		reading                    dates.Reading // as read in ZoneOrder
		zone, dayFirst, monthFirst string        // the date read in each order
	}{
		// Ambiguous: the order decides.
		{"05/03/2024", nil, dates.EitherReadMonthFirst, "2024-05-03", "2024-03-05", "2024-05-03"},
		{"05/03/2024", london, dates.EitherReadDayFirst, "2024-03-05", "2024-03-05", "2024-05-03"},
		{"05-03-2024 10:30", london, dates.EitherReadDayFirst, "2024-03-05", "2024-03-05", "2024-05-03"},
		{"Posted 5/3/24 at 8 PM", nil, dates.EitherReadMonthFirst, "2024-05-03", "2024-03-05", "2024-05-03"},
		// Possible one way only: every order reads it so.
		{"25/03/2024", nil, dates.OnlyDayFirst, "2024-03-25", "2024-03-25", "2024-03-25"},
		{"03/25/2024", london, dates.OnlyMonthFirst, "2024-03-25", "2024-03-25", "2024-03-25"},
		{"31/12/99", nil, dates.OnlyDayFirst, "1999-12-31", "1999-12-31", "1999-12-31"},
		// Alike either way.
		{"05/05/2024", nil, dates.Fixed, "2024-05-05", "2024-05-05", "2024-05-05"},
		{"2024/05/03", nil, dates.Fixed, "2024-05-03", "2024-05-03", "2024-05-03"},
		{"2024-05-03", nil, dates.Fixed, "2024-05-03", "2024-05-03", "2024-05-03"},
		{"March 5, 2024", nil, dates.Fixed, "2024-03-05", "2024-03-05", "2024-03-05"},
		// Dots stay day first, whatever the order, and are no evidence.
		{"05.03.2024", nil, dates.Fixed, "2024-03-05", "2024-03-05", "2024-03-05"},
		{"05.13.2024", nil, dates.Fixed, "2024-05-13", "2024-05-13", "2024-05-13"},
		// ISO 8601:2000's two-digit-year form comes before any order.
		{"05-03-24", london, dates.Fixed, "2005-03-24", "2005-03-24", "2005-03-24"},
		// Not read at all: Fixed.
		{"31/02/2024", nil, dates.Fixed, "", "", ""},
		{"13/13/2024", nil, dates.Fixed, "", "", ""},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			o    dates.Order
			want string
		}{{dates.ZoneOrder, tt.zone}, {dates.DayFirst, tt.dayFirst}, {dates.MonthFirst, tt.monthFirst}} {
			got, r, ok := dates.ParseOrder(tt.in, tt.loc, c.o)
			if c.want == "" {
				if ok || r != dates.Fixed {
					t.Errorf("ParseOrder(%q, %v, %s) = %v, %d, %v; want no date", tt.in, tt.loc, c.o, got, r, ok)
				}
				continue
			}
			if !ok || got.Format("2006-01-02") != c.want {
				t.Errorf("ParseOrder(%q, %v, %s) = %v, %v; want %s", tt.in, tt.loc, c.o, got, ok, c.want)
			}
			// What the value allows does not depend on the order, only
			// which reading an ambiguous one got.
			want := tt.reading
			if want.Ambiguous() && c.o != dates.ZoneOrder {
				want = map[dates.Order]dates.Reading{dates.DayFirst: dates.EitherReadDayFirst, dates.MonthFirst: dates.EitherReadMonthFirst}[c.o]
			}
			if r != want {
				t.Errorf("ParseOrder(%q, %v, %s) reading %d, want %d", tt.in, tt.loc, c.o, r, want)
			}
			if r.Ambiguous() && r.ReadIn(dates.DayFirst) != (got.Format("2006-01-02") == tt.dayFirst) {
				t.Errorf("ParseOrder(%q, %v, %s): reading %d says otherwise than the date read", tt.in, tt.loc, c.o, r)
			}
		}
		// Parse is ParseOrder in ZoneOrder.
		got, ok := dates.Parse(tt.in, tt.loc)
		want, _, wantOK := dates.ParseOrder(tt.in, tt.loc, dates.ZoneOrder)
		if ok != wantOK || !got.Equal(want) {
			t.Errorf("Parse(%q) = %v, %v; ParseOrder in ZoneOrder %v, %v", tt.in, got, ok, want, wantOK)
		}
	}
}

// The order chosen for values written together.
func TestEvidenceOrder(t *testing.T) {
	const (
		d  = dates.OnlyDayFirst
		m  = dates.OnlyMonthFirst
		ad = dates.EitherReadDayFirst
		am = dates.EitherReadMonthFirst
		f  = dates.Fixed
	)
	tests := []struct {
		name     string
		readings []dates.Reading
		want     dates.Order
		conflict bool
	}{
		{"nothing", nil, dates.ZoneOrder, false},
		{"only fixed values", []dates.Reading{f, f}, dates.ZoneOrder, false},
		{"only ambiguous values: the zone decides", []dates.Reading{am, am, am}, dates.ZoneOrder, false},
		{"one value day first only", []dates.Reading{am, d, am}, dates.DayFirst, false},
		{"day first only, read either way before", []dates.Reading{ad, am, d, f}, dates.DayFirst, false},
		{"one value month first only", []dates.Reading{ad, m}, dates.MonthFirst, false},
		{"only unambiguous values of one kind", []dates.Reading{d, d}, dates.DayFirst, false},
		{"both kinds, some ambiguous: a guess", []dates.Reading{d, am, m}, dates.ZoneOrder, true},
		{"both kinds, none ambiguous: nothing to guess", []dates.Reading{d, m, f}, dates.ZoneOrder, false},
	}
	for _, tt := range tests {
		var e dates.Evidence
		for _, r := range tt.readings {
			e.Add(r)
		}
		if o, conflict := e.Order(); o != tt.want || conflict != tt.conflict {
			t.Errorf("%s: Order() = %s, %v; want %s, %v", tt.name, o, conflict, tt.want, tt.conflict)
		}
	}
}
