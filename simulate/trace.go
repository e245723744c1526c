package simulate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// Trace is what a simulation replays: feeds, each with its capacity and
// the times it posted, and the span to simulate. Postings before Start are
// the backlog a feed already shows when the simulation first reads it.
type Trace struct {
	Feeds      []Feed
	Start, End time.Time
}

// Feed is one simulated source.
//
// Its window is what a poll can still see: the Capacity newest postings
// (S; 0 for no limit by count) and, when Window is set, only those posted
// within Window of the poll (a feed of "the last 24 hours"). A feed has at
// least one of the two.
type Feed struct {
	ID       string
	Capacity int           // S: how many newest items the feed shows; 0: no limit by count
	Window   time.Duration // how long an item stays in the feed; 0: no limit by time
	// Push says the source advertises a WebSub hub: its postings are
	// pushed (see Options.Push) and polls are only its safety polls.
	Push bool
	// Zone is the source's time zone, as its owner would configure it
	// (the policies count its weekdays in it); nil for UTC.
	Zone     *time.Location
	Postings []time.Time // sorted, oldest first
	// Shape is the synthetic shape the feed was drawn from ("" for a
	// trace file): the results can be broken down by it.
	Shape string
}

// Limits that keep a trace file from exhausting memory or time.
const (
	maxTraceLine     = 1 << 16
	maxTracePostings = 50_000_000
	maxTraceFeeds    = 1_000_000
	maxFeedCapacity  = 100_000
	maxFeedWindow    = 366 * 24 * time.Hour
)

// ParseTrace reads a trace file. The format is line-based text:
//
//	# a comment; blank lines are ignored too
//	capacity FEED S        the feed shows its S newest items
//	window FEED DURATION   the feed shows the items of the last DURATION
//	hub FEED URL           the feed advertises a WebSub hub (its postings are pushed)
//	zone FEED ZONE         the feed's time zone: an IANA name or UTC±HH:MM
//	FEED TIME              FEED posted at TIME
//	span START END         optional: the span to simulate
//
// FEED is any word without spaces. TIME is RFC 3339
// (2026-03-02T09:15:00Z) or Unix seconds (1772442900). DURATION is a Go
// duration (24h, 90m). Postings may come in any order. A feed with both a
// capacity and a window shows at most S items, none older than DURATION;
// one with a window only is limited by time alone. A feed with neither
// gets policy.DefaultCapacity and a warning; a feed may have no postings
// (it is polled all the same). Without a span line the simulation runs from
// midnight UTC of the first posting's day to midnight after the last one;
// with one, postings before START are the backlog the feeds show when they
// are first read, and postings after END keep arriving while the
// simulation resolves the postings of the span.
//
// A line that cannot be read is an error naming it: a simulation of half
// a trace would report misleading figures.
func ParseTrace(r io.Reader) (*Trace, []dynamo.Warning, error) {
	p := traceParser{index: map[string]int{}, capacityLine: map[int]int{}, windowLine: map[int]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTraceLine)
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(line, sc.Text()); err != nil {
			return nil, p.warnings, fmt.Errorf("trace line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, p.warnings, fmt.Errorf("trace line %d: %w", line+1, err)
	}
	return p.finish()
}

type traceParser struct {
	feeds        []Feed
	index        map[string]int
	capacityLine map[int]int // feed → line of its capacity
	windowLine   map[int]int // feed → line of its window
	postings     int
	start, end   time.Time // from a span line
	warnings     []dynamo.Warning
}

func (p *traceParser) line(n int, text string) error {
	fields := strings.Fields(text)
	if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
		return nil
	}
	switch {
	case len(fields) == 3 && fields[0] == "capacity":
		return p.capacity(n, fields[1], fields[2])
	case len(fields) == 3 && fields[0] == "window":
		return p.window(n, fields[1], fields[2])
	case len(fields) == 3 && fields[0] == "span":
		return p.span(fields[1], fields[2])
	case len(fields) == 3 && fields[0] == "zone":
		return p.zone(fields[1], fields[2])
	case len(fields) == 3 && fields[0] == "hub":
		i, err := p.feed(fields[1])
		if err == nil {
			p.feeds[i].Push = true
		}
		return err
	case len(fields) == 2:
		return p.posting(fields[0], fields[1])
	}
	return fmt.Errorf("want \"FEED TIME\", \"capacity FEED S\", \"window FEED DURATION\" or \"hub FEED URL\", got %q", truncate(text, 80))
}

func (p *traceParser) zone(id, value string) error {
	loc, err := parseZone(value)
	if err != nil {
		return fmt.Errorf("zone of feed %s: %w", truncate(id, 40), err)
	}
	i, err := p.feed(id)
	if err != nil {
		return err
	}
	p.feeds[i].Zone = loc
	return nil
}

// parseZone reads an IANA zone name or a fixed offset, UTC+01:00.
func parseZone(value string) (*time.Location, error) {
	if rest, ok := strings.CutPrefix(value, "UTC"); ok && rest != "" {
		t, err := time.Parse("-07:00", rest)
		if err != nil {
			return nil, fmt.Errorf("zone %q: want UTC+HH:MM or an IANA name", truncate(value, 40))
		}
		_, offset := t.Zone()
		return time.FixedZone(value, offset), nil
	}
	loc, err := time.LoadLocation(value)
	if err != nil || value == "" || value == "Local" {
		return nil, fmt.Errorf("zone %q: want UTC+HH:MM or an IANA name", truncate(value, 40))
	}
	return loc, nil
}

func (p *traceParser) window(n int, id, value string) error {
	d, err := time.ParseDuration(value)
	if err != nil || d < time.Minute || d > maxFeedWindow {
		return fmt.Errorf("window %q of feed %s: want a duration from 1m to %v", truncate(value, 20), truncate(id, 40), maxFeedWindow)
	}
	i, err := p.feed(id)
	if err != nil {
		return err
	}
	if prev, ok := p.windowLine[i]; ok {
		p.warnings = append(p.warnings, dynamo.Warning{Line: n, Message: fmt.Sprintf("feed %s: window given again (first on line %d); using %v", id, prev, d)})
	}
	p.windowLine[i] = n
	p.feeds[i].Window = d
	return nil
}

func (p *traceParser) capacity(n int, id, value string) error {
	s, err := strconv.Atoi(value)
	if err != nil || s < 1 || s > maxFeedCapacity {
		return fmt.Errorf("capacity %q of feed %s: want a whole number from 1 to %d", truncate(value, 20), truncate(id, 40), maxFeedCapacity)
	}
	i, err := p.feed(id)
	if err != nil {
		return err
	}
	if prev, ok := p.capacityLine[i]; ok {
		p.warnings = append(p.warnings, dynamo.Warning{Line: n, Message: fmt.Sprintf("feed %s: capacity given again (first on line %d); using %d", id, prev, s)})
	}
	p.capacityLine[i] = n
	p.feeds[i].Capacity = s
	return nil
}

func (p *traceParser) span(from, to string) error {
	start, err := parseTraceTime(from)
	if err != nil {
		return fmt.Errorf("span start: %w", err)
	}
	end, err := parseTraceTime(to)
	if err != nil {
		return fmt.Errorf("span end: %w", err)
	}
	if !end.After(start) {
		return fmt.Errorf("span ends %s, not after its start %s", to, from)
	}
	p.start, p.end = start, end
	return nil
}

func (p *traceParser) posting(id, value string) error {
	t, err := parseTraceTime(value)
	if err != nil {
		return err
	}
	i, err := p.feed(id)
	if err != nil {
		return err
	}
	if p.postings++; p.postings > maxTracePostings {
		return fmt.Errorf("more than %d postings", maxTracePostings)
	}
	p.feeds[i].Postings = append(p.feeds[i].Postings, t)
	return nil
}

// feed returns the index of the feed with id, adding it if new.
func (p *traceParser) feed(id string) (int, error) {
	if i, ok := p.index[id]; ok {
		return i, nil
	}
	if len(p.feeds) >= maxTraceFeeds {
		return 0, fmt.Errorf("more than %d feeds", maxTraceFeeds)
	}
	p.index[id] = len(p.feeds)
	p.feeds = append(p.feeds, Feed{ID: id})
	return len(p.feeds) - 1, nil
}

// Trace times are kept between these, so that every duration the
// simulation computes fits in a time.Duration.
var (
	minTraceTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTraceTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// parseTraceTime reads RFC 3339 or Unix seconds.
func parseTraceTime(s string) (time.Time, error) {
	var t time.Time
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || secs < float64(minTraceTime.Unix()) || secs >= float64(maxTraceTime.Unix()) {
			return t, fmt.Errorf("time %q is outside 1970..2200", truncate(s, 40))
		}
		whole, frac := math.Modf(secs)
		t = time.Unix(int64(whole), int64(frac*1e9)).UTC()
	} else {
		parsed, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return t, fmt.Errorf("time %q: want RFC 3339 (2026-03-02T09:15:00Z) or Unix seconds", truncate(s, 40))
		}
		t = parsed.UTC()
	}
	if t.Before(minTraceTime) || !t.Before(maxTraceTime) {
		return time.Time{}, fmt.Errorf("time %q is outside 1970..2200", truncate(s, 40))
	}
	return t, nil
}

func (p *traceParser) finish() (*Trace, []dynamo.Warning, error) {
	if len(p.feeds) == 0 {
		return nil, p.warnings, fmt.Errorf("trace: no feeds")
	}
	var first, last time.Time
	for i := range p.feeds {
		f := &p.feeds[i]
		if f.Capacity == 0 && f.Window == 0 {
			f.Capacity = policy.DefaultCapacity
			p.warnings = append(p.warnings, dynamo.Warning{Message: fmt.Sprintf("feed %s has no capacity or window line; assuming a capacity of %d", f.ID, policy.DefaultCapacity)})
		}
		slices.SortFunc(f.Postings, func(a, b time.Time) int { return a.Compare(b) })
		if n := len(f.Postings); n > 0 {
			if first.IsZero() || f.Postings[0].Before(first) {
				first = f.Postings[0]
			}
			if f.Postings[n-1].After(last) {
				last = f.Postings[n-1]
			}
		}
	}
	if !p.start.IsZero() {
		return &Trace{Feeds: p.feeds, Start: p.start, End: p.end}, p.warnings, nil
	}
	if first.IsZero() {
		return nil, p.warnings, fmt.Errorf("trace: no postings and no span")
	}
	start := first.Truncate(24 * time.Hour)
	end := last.Truncate(24 * time.Hour).Add(24 * time.Hour)
	return &Trace{Feeds: p.feeds, Start: start, End: end}, p.warnings, nil
}

// WriteTrace writes t in the format ParseTrace reads, times in RFC 3339,
// so that a synthetic trace can be kept, edited and replayed.
func WriteTrace(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# dynamo simulate trace: %d feeds\n", len(t.Feeds))
	fmt.Fprintf(bw, "span %s %s\n", t.Start.UTC().Format(time.RFC3339Nano), t.End.UTC().Format(time.RFC3339Nano))
	for _, f := range t.Feeds {
		if f.Capacity > 0 {
			fmt.Fprintf(bw, "capacity %s %d\n", f.ID, f.Capacity)
		}
		if f.Window > 0 {
			fmt.Fprintf(bw, "window %s %v\n", f.ID, f.Window)
		}
		if f.Push {
			fmt.Fprintf(bw, "hub %s %s\n", f.ID, simulatedHub)
		}
		if f.Zone != nil && f.Zone != time.UTC {
			fmt.Fprintf(bw, "zone %s %s\n", f.ID, f.Zone)
		}
	}
	for _, f := range t.Feeds {
		for _, p := range f.Postings {
			fmt.Fprintf(bw, "%s %s\n", f.ID, p.UTC().Format(time.RFC3339Nano))
		}
	}
	return bw.Flush()
}

// simulatedHub is the hub URL WriteTrace gives push-capable feeds: the
// simulation only needs to know that there is one.
const simulatedHub = "https://hub.invalid/"

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// MarkPush marks a share of t's feeds as push-capable (Feed.Push), drawn
// with seed: each feed independently, so the same seed marks the same
// feeds whatever their number.
func MarkPush(t *Trace, share float64, seed uint64) {
	for i := range t.Feeds {
		if uniform(seed^0x9005, uint64(i)) < share {
			t.Feeds[i].Push = true
		}
	}
}
