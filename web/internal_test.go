package web

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

func TestParseSearch(t *testing.T) {
	title := func(v string, or bool) dynamo.Condition {
		return dynamo.Condition{Field: dynamo.FieldTitle, Value: v, Or: or}
	}
	desc := func(v string, or bool) dynamo.Condition {
		return dynamo.Condition{Field: dynamo.FieldDescription, Value: v, Or: or}
	}
	cases := []struct {
		raw      string
		want     []dynamo.Condition
		max      int
		fromForm bool
		err      string
	}{
		{raw: "", max: 100},
		{raw: "id=a&title=x", want: []dynamo.Condition{title("x", false)}, max: 100},
		{raw: "id=a&op=or&title=x&title=y", want: []dynamo.Condition{title("x", false), title("y", true)}, max: 100},
		{raw: "title=x&op=or&desc=y&description=z&op=and&title=w&max=5",
			want: []dynamo.Condition{title("x", false), desc("y", true), desc("z", true), title("w", false)}, max: 5},
		{raw: "title=%C3%A9t%C3%A9+x", want: []dynamo.Condition{title("été x", false)}, max: 100},
		{raw: "title=&desc=y", want: []dynamo.Condition{desc("y", false)}, max: 100},
		{raw: "field=title&value=x&op=or&field=desc&value=y&op=and&field=link&value=",
			want: []dynamo.Condition{title("x", false), desc("y", true)}, max: 100, fromForm: true},
		{raw: "op=maybe", err: "op must be and or or"},
		{raw: "title=x&op=or", err: "followed by no condition"},
		{raw: "max=10001", err: "max must be"},
		{raw: "field=colour&value=x", err: "field must be"},
		{raw: "x=%", err: "malformed escape"},
		{raw: "title=" + strings.Repeat("a", 257), err: "at most 256 bytes"},
		{raw: strings.Repeat("title=a&", 33), err: "at most 32 conditions"},
		{raw: strings.Repeat("&", 65), err: "at most 64 parameters"},
		{raw: strings.Repeat("a", 4097), err: "at most 4096 bytes"},
	}
	for _, tc := range cases {
		q, err := parseSearch(tc.raw)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSearch(%.40q) = %v, want an error saying %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseSearch(%.40q): %v", tc.raw, err)
			continue
		}
		if !sameConditions(q.Conditions, tc.want) || q.Max != tc.max || q.fromForm != tc.fromForm {
			t.Errorf("parseSearch(%q) = %+v, want %+v max %d form %v", tc.raw, q, tc.want, tc.max, tc.fromForm)
		}
	}
}

func sameConditions(a, b []dynamo.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParseSearch checks that any query either fails cleanly or gives a
// search whose written form reads back as the same search.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"id=a&title=x&op=or&desc=y", "field=link&value=%20x%20&op=or&field=desc&value=y", "max=3&op=and&title=a", "title=%zz", "op=or"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseSearch(raw)
		if err != nil {
			return
		}
		again, err := parseSearch(strings.TrimPrefix(q.pageURL(), Prefix+"search?"))
		if err != nil {
			t.Fatalf("%q reads %+v, written %q, which does not read: %v", raw, q, q.pageURL(), err)
		}
		if again.ID != q.ID || again.Max != q.Max || !sameConditions(again.Conditions, q.Conditions) {
			t.Fatalf("%q reads %+v, written %q reads %+v", raw, q, q.pageURL(), again)
		}
		if _, err := url.Parse(q.restURL("rss2")); err != nil {
			t.Fatalf("REST URL %q: %v", q.restURL("rss2"), err)
		}
	})
}

func TestHighlight(t *testing.T) {
	page := "<p><!-- <item:title index=\"1\"> -->Hello\nworld<!-- </item:title> --></p>\n<!-- <channel:title> -->T<!-- <channel:link> -->L<!-- </channel:link> --><!-- </channel:title> -->\n"
	res := wrapper.Wrap([]byte(page), wrapper.Options{URL: "https://x.example/"})
	lines := highlight(res.Text, res.Annotations, []dynamo.Warning{{Line: 2, Message: "m"}})
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4", len(lines))
	}
	got := func(line int) string {
		var b strings.Builder
		for _, r := range lines[line-1].Runs {
			b.WriteString("[" + r.Class + "|" + r.Text + "]")
		}
		return b.String()
	}
	wants := map[int]string{
		1: `[|<p>][hl-tag hl-item|<!-- <item:title index="1"> -->][hl-content hl-item|Hello]`,
		2: `[hl-content hl-item|world][hl-tag hl-item|<!-- </item:title> -->][|</p>]`,
		3: `[hl-tag hl-channel|<!-- <channel:title> -->][hl-content hl-channel|T][hl-tag hl-channel|<!-- <channel:link> -->][hl-content hl-channel|L][hl-tag hl-channel|<!-- </channel:link> -->][hl-tag hl-channel|<!-- </channel:title> -->]`,
		4: ``,
	}
	for n, want := range wants {
		if g := got(n); g != want {
			t.Errorf("line %d:\n got %s\nwant %s", n, g, want)
		}
	}
	if len(lines[1].Warnings) != 1 || lines[1].Warnings[0] != "m" {
		t.Errorf("line 2 warnings %q, want [m]", lines[1].Warnings)
	}
}

// FuzzPlay checks that the playground never panics on a page, that its
// view of the page keeps every byte of it (the lines joined again are the
// decoded text), and that every warning with a line lands on that line.
func FuzzPlay(f *testing.F) {
	for _, p := range examples.List {
		body, err := examples.Read(p.File)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte("<!-- <item:title index=\"1\"> -->a<!-- <item:description index=\"1\"> -->b\r\n<!-- </item:title> -->"))
	f.Fuzz(func(t *testing.T, page []byte) {
		res := play(page, wrapper.Options{URL: "https://x.example/"}, "fuzz", nil)
		var b strings.Builder
		warned := 0
		for i, l := range res.Lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			for _, r := range l.Runs {
				b.WriteString(r.Text)
			}
			warned += len(l.Warnings)
		}
		crlf := strings.NewReplacer("\r\n", "\n")
		if got, want := crlf.Replace(b.String()), crlf.Replace(res.pageText); got != want {
			t.Fatalf("lines give %q, want %q", got, want)
		}
		if warned+len(res.PageWarnings) != len(res.Warnings) {
			t.Fatalf("%d warnings placed and %d page-wide, of %d", warned, len(res.PageWarnings), len(res.Warnings))
		}
		if len(res.Feeds) != 4 || !bytes.Contains([]byte(res.XMLData), []byte("<resource")) {
			t.Fatalf("feeds or XMLData missing")
		}
	})
}

func TestNiceCeil(t *testing.T) {
	cases := map[float64]float64{0: 0, -1: 0, 0.03: 0.05, 1: 1, 1.2: 2, 3: 5, 7: 10, 10: 10, 11: 20, 480: 500}
	for in, want := range cases {
		if got := niceCeil(in); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	cases := map[float64]string{0: "0", 3: "3", 2.5: "2.5", 0.041666: "0.0417", 1234: "1230", 120: "120", 0.25: "0.25"}
	for in, want := range cases {
		if got := number(in); got != want {
			t.Errorf("number(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestBarChartScalesToTheTallestBar(t *testing.T) {
	c := barChart([]float64{0, 5, 10}, []string{"a", "", "c"}, []string{"k"}, func(v float64) string { return "" }, false)
	plotH := float64(chartHeight - padTop - padBottom)
	if c.Bars[0].H != 0 || c.Bars[2].H != plotH || c.Bars[1].H != round1(plotH/2) {
		t.Errorf("bar heights %v, %v, %v; want 0, half, %v", c.Bars[0].H, c.Bars[1].H, c.Bars[2].H, plotH)
	}
	if len(c.XLabels) != 2 {
		t.Errorf("%d axis labels, want the 2 non-empty ones", len(c.XLabels))
	}
	for _, b := range c.Bars {
		if b.X < padLeft || b.X+b.W > chartWidth-padRight+0.1 || b.Y < padTop-0.1 {
			t.Errorf("bar %+v is outside the plot", b)
		}
	}
}

func TestCountAxesReadInWholeNumbers(t *testing.T) {
	for _, tc := range []struct {
		max   float64
		ticks []string
	}{
		{1, []string{"0", "1", "2"}},
		{3, []string{"0", "3", "6"}},
		{4, []string{"0", "3", "6"}},
		{10, []string{"0", "5", "10"}},
		{70, []string{"0", "50", "100"}},
		{0, []string{"0", "0", "0"}},
	} {
		c := barChart([]float64{tc.max, 0}, []string{"a", "b"}, []string{"k"}, number, true)
		var got []string
		for _, y := range c.YTicks {
			got = append(got, y.Text)
		}
		if !slices.Equal(got, tc.ticks) {
			t.Errorf("count axis for a maximum of %v reads %v, want %v", tc.max, got, tc.ticks)
		}
	}
}

func TestPostingHours(t *testing.T) {
	first := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	dated := dynamo.Item{Extensions: []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2026-01-02T14:30:00+02:00"}}}
	items := []dynamo.ArchivedItem{
		{FirstSeen: first},                     // from the first version, undated: unknown
		{FirstSeen: first, Item: dated},        // dated: 12 UTC
		{FirstSeen: first.Add(3 * time.Hour)},  // seen later: 11
		{FirstSeen: first.Add(27 * time.Hour)}, // 11 again, a day later
		{FirstSeen: first.Add(-2 * time.Hour)}, // before the first version: unknown
	}
	counts, total := postingHours(items, first)
	if total != 3 || counts[12] != 1 || counts[11] != 2 {
		t.Errorf("counts %v, total %d; want 1 at 12h, 2 at 11h, 3 in all", counts, total)
	}
}

func TestAgo(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, ""},
		{now, "just now"},
		{now.Add(-20 * time.Second), "20 s ago"},
		{now.Add(20*time.Second + 500*time.Millisecond), "20 s from now"},
		{now.Add(-5*time.Minute - time.Second), "5 min ago"},
		{now.Add(3*time.Hour + time.Minute), "3 h from now"},
		{now.Add(-72 * time.Hour), "3 days ago"},
	} {
		if got := ago(tc.at); got != tc.want {
			t.Errorf("ago(now%+v) = %q, want %q", tc.at.Sub(now).Round(time.Second), got, tc.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	cases := []struct {
		n       int
		in, out string
	}{
		{10, "short", "short"},
		{10, "  spaced\n  out  ", "spaced out"},
		{12, "one two three four five", "one two…"},
		{5, "ééééééé", "éé…"},
	}
	for _, tc := range cases {
		if got := excerpt(tc.n, tc.in); got != tc.out {
			t.Errorf("excerpt(%d, %q) = %q, want %q", tc.n, tc.in, got, tc.out)
		}
	}
}

// TestDescribeOutcomeCountsInTheSingular: the poll-now flash says "1 new
// item", as the API's listings do.
func TestDescribeOutcomeCountsInTheSingular(t *testing.T) {
	for n, want := range map[int]string{
		1: "Polled news: changed, stored version 3 with 1 new item.",
		2: "Polled news: changed, stored version 3 with 2 new items.",
	} {
		if got := describeOutcome("news", dynamo.PollOutcome{Status: dynamo.StatusChanged, Version: 3, NewItems: n}); got != want {
			t.Errorf("%d new: %q, want %q", n, got, want)
		}
	}
}
