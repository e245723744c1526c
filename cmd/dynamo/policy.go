package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

func init() {
	register("policy", "show how a scheduling policy allocates polls or forecasts updates", runPolicy)
}

const policyUsage = `usage: dynamo policy allocate --policy uniform|min-delay|min-missing --budget M
                              --feed RATE:CAPACITY[:WEIGHT] ... [--json]
       dynamo policy weekday --start YYYY-MM-DD --history 0110... [--days N] [--json]

allocate shares M polls per period among the feeds (RATE postings per
period, CAPACITY items shown, WEIGHT min-delay's ω, default 1) and prints
each feed's polls and the postings it would miss: a poll collects
min(CAPACITY, postings not yet collected); ties go to the feed listed first.

weekday reads a 0/1 history, one character a day from --start (did the
source publish that day), and prints, for each of the next N days, the
probability P = 0.9·β(d) + 0.1·Ū that the source publishes that day, and
the predicted next update day (the first with P ≥ 0.5).
`

// Bounds on what the command line may ask, so that a typing slip cannot
// make the command run for ever or exhaust memory.
const (
	maxCLIFeeds    = 100_000
	maxHistory     = 100_000
	maxCLIForecast = 3660
)

func runPolicy(ctx context.Context, args []string, s stdio) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(s.out, policyUsage)
		return 0
	}
	switch args[0] {
	case "allocate":
		return runAllocate(args[1:], s)
	case "weekday":
		return runWeekday(args[1:], s)
	}
	fmt.Fprintf(s.err, "dynamo policy: unknown subcommand %q\n\n%s", args[0], policyUsage)
	return 2
}

// feedList collects repeated --feed flags.
type feedList []policy.Feed

func (l *feedList) String() string { return fmt.Sprint(len(*l), " feeds") }

func (l *feedList) Set(v string) error {
	if len(*l) >= maxCLIFeeds {
		return fmt.Errorf("more than %d feeds", maxCLIFeeds)
	}
	f, err := parseFeedSpec(v)
	if err != nil {
		return err
	}
	*l = append(*l, f)
	return nil
}

// parseFeedSpec reads RATE:CAPACITY[:WEIGHT]. The ranges are checked by
// policy.Allocate, which names the feed.
func parseFeedSpec(v string) (policy.Feed, error) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return policy.Feed{}, fmt.Errorf("feed %q: want RATE:CAPACITY[:WEIGHT]", v)
	}
	rate, err := strconv.ParseFloat(parts[0], 64)
	if err != nil {
		return policy.Feed{}, fmt.Errorf("feed %q: rate %q is not a number", v, parts[0])
	}
	capacity, err := strconv.Atoi(parts[1])
	if err != nil {
		return policy.Feed{}, fmt.Errorf("feed %q: capacity %q is not a whole number", v, parts[1])
	}
	weight := 1.0
	if len(parts) == 3 {
		if weight, err = strconv.ParseFloat(parts[2], 64); err != nil {
			return policy.Feed{}, fmt.Errorf("feed %q: weight %q is not a number", v, parts[2])
		}
	}
	return policy.Feed{Rate: rate, Capacity: capacity, Weight: weight}, nil
}

// allocation is policy allocate's answer, as --json prints it.
type allocation struct {
	Policy string          `json:"policy"`
	Budget int             `json:"budget"`
	Feeds  []allocatedFeed `json:"feeds"`
	Missed float64         `json:"missed"`
}

type allocatedFeed struct {
	Rate     float64 `json:"rate"`
	Capacity int     `json:"capacity"`
	Weight   float64 `json:"weight"`
	Polls    int     `json:"polls"`
	Missed   float64 `json:"missed"`
}

func runAllocate(args []string, s stdio) int {
	fs := schedFlagSet("policy allocate", s.err)
	name := fs.String("policy", "", "uniform, min-delay or min-missing")
	budget := fs.Int("budget", -1, "polls per period shared by the feeds")
	var feeds feedList
	fs.Var(&feeds, "feed", "a feed as RATE:CAPACITY[:WEIGHT] (repeat for each feed)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := schedParseFlags(fs, args, s.err); !ok {
		return code
	}
	var problems []string
	if *name == "" {
		problems = append(problems, "--policy is required")
	}
	if *budget < 0 {
		problems = append(problems, "--budget is required (a whole number of polls, 0 or more)")
	}
	if len(feeds) == 0 {
		problems = append(problems, "at least one --feed is required")
	}
	if len(problems) > 0 {
		fmt.Fprintf(s.err, "dynamo policy allocate: %s\n", strings.Join(problems, "; "))
		return 2
	}
	polls, err := policy.Allocate(*name, *budget, feeds)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo policy %v\n", err)
		return 2
	}
	a := allocation{Policy: *name, Budget: *budget, Feeds: make([]allocatedFeed, len(feeds))}
	var missed float64
	for i, f := range feeds {
		m := policy.Missed(f, polls[i])
		missed += m
		a.Feeds[i] = allocatedFeed{Rate: f.Rate, Capacity: f.Capacity, Weight: f.Weight, Polls: polls[i], Missed: schedTidy(m)}
	}
	a.Missed = schedTidy(missed)
	if *asJSON {
		return schedJSON(s, a)
	}
	printAllocation(s.out, a)
	return 0
}

// schedTidy rounds away the float noise of subtracting decimal rates
// (0.30000000000000004), which would only confuse a reader.
func schedTidy(v float64) float64 {
	return math.Round(v*1e9) / 1e9
}

func schedNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func printAllocation(w io.Writer, a allocation) {
	fmt.Fprintf(w, "%s: %d polls per period over %d feeds\n", a.Policy, a.Budget, len(a.Feeds))
	fmt.Fprintf(w, "%5s %10s %9s %8s %6s %8s\n", "feed", "rate", "capacity", "weight", "polls", "missed")
	total := 0
	for i, f := range a.Feeds {
		total += f.Polls
		fmt.Fprintf(w, "%5d %10s %9d %8s %6d %8s\n", i+1, schedNum(f.Rate), f.Capacity, schedNum(f.Weight), f.Polls, schedNum(f.Missed))
	}
	fmt.Fprintf(w, "%-34s %6d %8s\n", "total", total, schedNum(a.Missed))
}

// forecast is policy weekday's answer, as --json prints it.
type forecast struct {
	Days []forecastDay `json:"days"`
	Next *string       `json:"next"` // null when no day reaches 0.5
}

type forecastDay struct {
	Date    string  `json:"date"`
	Weekday string  `json:"weekday"`
	P       float64 `json:"p"`
}

func runWeekday(args []string, s stdio) int {
	fs := schedFlagSet("policy weekday", s.err)
	start := fs.String("start", "", "the history's first day, YYYY-MM-DD")
	history := fs.String("history", "", "one 0 or 1 a day from --start: did the source publish that day")
	days := fs.Int("days", 7, "how many coming days to forecast")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := schedParseFlags(fs, args, s.err); !ok {
		return code
	}
	first, published, err := parseWeekdayArgs(*start, *history, *days)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo policy weekday: %v\n", err)
		return 2
	}
	predicted := policy.Forecast(first, published, *days)
	out := forecast{Days: make([]forecastDay, len(predicted))}
	for i, d := range predicted {
		// Two decimals, as the specification shows P: more would claim a
		// precision the counts behind it do not have.
		out.Days[i] = forecastDay{Date: d.Date.Format(time.DateOnly), Weekday: d.Date.Weekday().String(), P: math.Round(d.P*100) / 100}
	}
	if next, ok := policy.Predicted(predicted); ok {
		date := next.Format(time.DateOnly)
		out.Next = &date
	}
	if *asJSON {
		return schedJSON(s, out)
	}
	printForecast(s.out, out)
	return 0
}

func parseWeekdayArgs(start, history string, days int) (time.Time, []bool, error) {
	var problems []string
	first, err := time.Parse(time.DateOnly, start)
	if err != nil {
		problems = append(problems, fmt.Sprintf("--start %q: want a date as YYYY-MM-DD", start))
	}
	published := make([]bool, 0, len(history))
	switch {
	case history == "":
		problems = append(problems, "--history is required (one 0 or 1 a day)")
	case len(history) > maxHistory:
		problems = append(problems, fmt.Sprintf("--history has %d days, more than %d", len(history), maxHistory))
	default:
		for i, c := range history {
			if c != '0' && c != '1' {
				problems = append(problems, fmt.Sprintf("--history: character %d is %q, want 0 or 1", i+1, c))
				break
			}
			published = append(published, c == '1')
		}
	}
	if days < 1 || days > maxCLIForecast {
		problems = append(problems, fmt.Sprintf("--days %d is outside 1..%d", days, maxCLIForecast))
	}
	if len(problems) > 0 {
		return time.Time{}, nil, errors.New(strings.Join(problems, "; "))
	}
	return first, published, nil
}

func printForecast(w io.Writer, f forecast) {
	fmt.Fprintf(w, "%-10s  %-9s  %4s\n", "date", "weekday", "p")
	for _, d := range f.Days {
		fmt.Fprintf(w, "%-10s  %-9s  %4.2f\n", d.Date, d.Weekday, d.P)
	}
	if f.Next == nil {
		fmt.Fprintf(w, "next update: none predicted in the next %d days\n", len(f.Days))
		return
	}
	fmt.Fprintf(w, "next update: %s\n", *f.Next)
}

// schedFlagSet is a flag set that reports to w and lets the caller choose
// the exit code.
func schedFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("dynamo "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(w, policyUsage+"\nflags of dynamo "+name+":\n")
		fs.PrintDefaults()
	}
	return fs
}

// schedParseFlags parses args and refuses stray arguments; on failure it
// returns the exit code: 0 for -h, 2 for a mistake.
func schedParseFlags(fs *flag.FlagSet, args []string, w io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(w, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// schedJSON writes v as one line of JSON.
func schedJSON(s stdio, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo: %v\n", err)
		return 1
	}
	fmt.Fprintf(s.out, "%s\n", b)
	return 0
}
