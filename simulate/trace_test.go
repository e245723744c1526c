package simulate

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

func TestParseTrace(t *testing.T) {
	in := `# two feeds
capacity news 12
news 2026-03-02T09:15:00Z
news 1772442000

blog 2026-03-03T20:00:00+01:00
news 2026-03-02T08:00:00Z
`
	tr, warnings, err := ParseTrace(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Feeds) != 2 || tr.Feeds[0].ID != "news" || tr.Feeds[0].Capacity != 12 || tr.Feeds[1].Capacity != policy.DefaultCapacity {
		t.Fatalf("feeds %+v", tr.Feeds)
	}
	want := []time.Time{
		time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), // Unix 1772442000
		time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC),
	}
	for i, p := range tr.Feeds[0].Postings {
		if !p.Equal(want[i]) {
			t.Errorf("posting %d = %v, want %v", i, p, want[i])
		}
	}
	if !tr.Start.Equal(day0) || !tr.End.Equal(day0.AddDate(0, 0, 2)) {
		t.Errorf("span %v – %v, want the two whole days", tr.Start, tr.End)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "blog has no capacity") {
		t.Errorf("warnings %v", warnings)
	}
}

// Windows by time, hubs and zones: a feed may show the items of a time,
// with or without a count; "hub" marks it push-capable; "zone" gives its
// time zone, an IANA name or a fixed offset.
func TestParseTraceWindowsHubsZones(t *testing.T) {
	in := `window day 24h
hub day https://hub.example/
zone day Europe/Paris
capacity both 20
window both 90m
zone both UTC-05:00
day 2026-03-02T09:15:00Z
both 2026-03-02T10:00:00Z
`
	tr, warnings, err := ParseTrace(strings.NewReader(in))
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	day, both := tr.Feeds[0], tr.Feeds[1]
	if day.Capacity != 0 || day.Window != 24*time.Hour || !day.Push || day.Zone.String() != "Europe/Paris" {
		t.Errorf("day: %+v", day)
	}
	if _, off := time.Date(2026, 3, 2, 0, 0, 0, 0, both.Zone).Zone(); both.Capacity != 20 || both.Window != 90*time.Minute || both.Push || off != -5*3600 {
		t.Errorf("both: %+v (offset %d)", both, off)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, _, err := ParseTrace(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range tr.Feeds {
		g := back.Feeds[i]
		if g.Capacity != f.Capacity || g.Window != f.Window || g.Push != f.Push || g.Zone.String() != f.Zone.String() {
			t.Errorf("feed %s written and read back as %+v", f.ID, g)
		}
	}
}

func TestParseTraceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "no feeds"},
		{"capacity a 5\n", "no postings and no span"},
		{"a b c d\n", `line 1: want "FEED TIME"`},
		{"a yesterday\n", "line 1: time \"yesterday\""},
		{"capacity a 0\n", "capacity \"0\" of feed a"},
		{"capacity a many\n", "capacity \"many\""},
		{"a 1\nb 99999999999\n", "line 2: time \"99999999999\" is outside"},
		{"a NaN\n", "NaN"},
		{"span 2026-03-02T00:00:00Z 2026-03-01T00:00:00Z\n", "not after its start"},
		{"window a 30s\n", "window \"30s\" of feed a"},
		{"window a forever\n", "window \"forever\""},
		{"zone a Mars/Olympus\n", "zone \"Mars/Olympus\""},
		{"zone a UTC+25:00\n", "zone \"UTC+25:00\""},
		{"hub a\n", `time "a"`},
		{strings.Repeat("x", maxTraceLine+1) + " 1\n", "token too long"},
	}
	for _, tt := range tests {
		_, _, err := ParseTrace(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.30q: err = %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

func TestTraceRoundTrip(t *testing.T) {
	tr, err := Synthetic(Mixed, 15, 9, 3)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, warnings, err := ParseTrace(&buf)
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if !back.Start.Equal(tr.Start) || !back.End.Equal(tr.End) || len(back.Feeds) != len(tr.Feeds) {
		t.Fatalf("span or feeds changed")
	}
	for i, f := range tr.Feeds {
		g := back.Feeds[i]
		if g.ID != f.ID || g.Capacity != f.Capacity || g.Window != f.Window || g.Zone.String() != f.Zone.String() || len(g.Postings) != len(f.Postings) {
			t.Fatalf("feed %d: %s/%d/%d, want %s/%d/%d", i, g.ID, g.Capacity, len(g.Postings), f.ID, f.Capacity, len(f.Postings))
		}
		for k := range f.Postings {
			if !g.Postings[k].Equal(f.Postings[k]) {
				t.Fatalf("feed %d posting %d: %v, want %v", i, k, g.Postings[k], f.Postings[k])
			}
		}
	}
}

// FuzzParseTrace: any input parses or fails with an error, and what parses
// is sorted, within its limits, and written back to the same trace.
func FuzzParseTrace(f *testing.F) {
	f.Add("capacity a 3\na 2026-03-02T09:15:00Z\na 1772442000\n")
	f.Add("span 1772409600 1772496000\nb 1772442000.5\n# c\n")
	f.Add("a 1e9\na -1\n")
	f.Add("capacity a 1\ncapacity a 2\n\xff 1\n")
	f.Add("window a 24h\nhub a https://hub.example/\nzone a Europe/Paris\na 1772442000\n")
	f.Add("zone b UTC-05:00\nwindow b 90m\ncapacity b 3\nb 1772442000\n")
	f.Fuzz(func(t *testing.T, in string) {
		tr, _, err := ParseTrace(strings.NewReader(in))
		if err != nil {
			return
		}
		if !tr.End.After(tr.Start) {
			t.Fatalf("span %v – %v", tr.Start, tr.End)
		}
		for _, fd := range tr.Feeds {
			if fd.Capacity < 0 || fd.Capacity > maxFeedCapacity || (fd.Capacity == 0 && fd.Window == 0) || fd.Window < 0 || fd.Window > maxFeedWindow {
				t.Fatalf("capacity %d, window %v", fd.Capacity, fd.Window)
			}
			for k := 1; k < len(fd.Postings); k++ {
				if fd.Postings[k].Before(fd.Postings[k-1]) {
					t.Fatal("postings not sorted")
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteTrace(&buf, tr); err != nil {
			t.Fatal(err)
		}
		back, _, err := ParseTrace(&buf)
		if err != nil {
			t.Fatalf("written trace does not parse: %v", err)
		}
		if len(back.Feeds) != len(tr.Feeds) {
			t.Fatalf("%d feeds back, want %d", len(back.Feeds), len(tr.Feeds))
		}
	})
}
