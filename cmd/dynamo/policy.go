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
       dynamo policy rank --policy hourly|at-risk [--budget M] [--at TIME]
                          --feed RATE:CAPACITY:WAITED[:SUBSCRIBERS] ... [--json]
       dynamo policy weekday --start YYYY-MM-DD --history 0110... [--days N] [--json]

allocate shares M polls per period among the feeds (RATE postings per
period, CAPACITY items shown, WEIGHT min-delay's ω, default 1) and prints
each feed's polls and the postings it would miss: a poll collects
min(CAPACITY, postings not yet collected); ties go to the feed listed first.

rank ranks the feeds as hourly or at-risk would in the planning cycle at
--at (default now): each feed posts RATE items a day, steadily, shows
CAPACITY items, was last polled WAITED ago (a duration: 90m, 6h) and has
SUBSCRIBERS (default 0). It prints each feed's pending postings, their
waiting, the risk to its window, its rank and whether the cycle polls it
(M polls a day over all the feeds, default 24 per feed).

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
	if len(args) == 0 {
		fmt.Fprint(s.err, policyUsage)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(s.out, policyUsage)
		return 0
	}
	switch args[0] {
	case "allocate":
		return runAllocate(args[1:], s)
	case "weekday":
		return runWeekday(args[1:], s)
	case "rank":
		return runRank(args[1:], s)
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

// allocation is policy allocate's answer, as --json prints it, at full
// precision.
type allocation struct {
	Policy string `json:"policy"`
	Budget int    `json:"budget"`
	// Kappa is κ (min-delay's m = κ·√(ω·λ), uniform's equal share); null
	// for min-missing, whose greedy has none.
	Kappa  *float64        `json:"kappa"`
	Feeds  []allocatedFeed `json:"feeds"`
	Missed float64         `json:"missed"`
}

type allocatedFeed struct {
	Rate     float64 `json:"rate"`
	Capacity int     `json:"capacity"`
	Weight   float64 `json:"weight"`
	// M is the real-valued allocation the whole Polls were rounded from.
	M      float64 `json:"m"`
	Polls  int     `json:"polls"`
	Missed float64 `json:"missed"`
}

func runAllocate(args []string, s stdio) int {
	fs := schedFlagSet("policy allocate", s.err)
	name := fs.String("policy", "", "uniform, min-delay or min-missing")
	// Required, so its default is no value to print in --help: whether it
	// was given is asked of the flag set after parsing.
	budget := fs.Int("budget", 0, "polls per period shared by the feeds (required; 0 or more)")
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
	budgetSet := false
	fs.Visit(func(f *flag.Flag) { budgetSet = budgetSet || f.Name == "budget" })
	switch {
	case !budgetSet:
		problems = append(problems, "--budget is required (a whole number of polls, 0 or more)")
	case *budget < 0:
		problems = append(problems, fmt.Sprintf("--budget must be a whole number of polls, 0 or more, not %d", *budget))
	}
	if len(feeds) == 0 {
		problems = append(problems, "at least one --feed is required")
	}
	if len(problems) > 0 {
		fmt.Fprintf(s.err, "dynamo policy allocate: %s\n", strings.Join(problems, "; "))
		return 2
	}
	exact, err := policy.AllocateExact(*name, *budget, feeds)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo policy %v\n", err)
		return 2
	}
	a := allocation{Policy: *name, Budget: *budget, Feeds: make([]allocatedFeed, len(feeds))}
	if *name != policy.MinMissing {
		a.Kappa = &exact.Kappa
	}
	var missed float64
	for i, f := range feeds {
		m := policy.Missed(f, exact.Polls[i])
		missed += m
		a.Feeds[i] = allocatedFeed{Rate: f.Rate, Capacity: f.Capacity, Weight: f.Weight, M: exact.Exact[i], Polls: exact.Polls[i], Missed: schedTidy(m)}
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
	fmt.Fprintf(w, "%s: %d polls per period over %d feeds", a.Policy, a.Budget, len(a.Feeds))
	if a.Kappa != nil {
		fmt.Fprintf(w, ", κ = %.6g", *a.Kappa)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%5s %10s %9s %8s %9s %6s %8s\n", "feed", "rate", "capacity", "weight", "m", "polls", "missed")
	total := 0
	for i, f := range a.Feeds {
		total += f.Polls
		fmt.Fprintf(w, "%5d %10s %9d %8s %9.4f %6d %8s\n", i+1, schedNum(f.Rate), f.Capacity, schedNum(f.Weight), f.M, f.Polls, schedNum(f.Missed))
	}
	fmt.Fprintf(w, "%-44s %6d %8s\n", "total", total, schedNum(a.Missed))
}

// rankFeed is one --feed of policy rank.
type rankFeed struct {
	Rate        float64
	Capacity    int
	Waited      time.Duration
	Subscribers int
}

// rankList collects repeated --feed flags of policy rank.
type rankList []rankFeed

func (l *rankList) String() string { return fmt.Sprint(len(*l), " feeds") }

func (l *rankList) Set(v string) error {
	if len(*l) >= maxCLIFeeds {
		return fmt.Errorf("more than %d feeds", maxCLIFeeds)
	}
	parts := strings.Split(v, ":")
	if len(parts) < 3 || len(parts) > 4 {
		return fmt.Errorf("feed %q: want RATE:CAPACITY:WAITED[:SUBSCRIBERS]", v)
	}
	var f rankFeed
	var err error
	if f.Rate, err = strconv.ParseFloat(parts[0], 64); err != nil || !(f.Rate >= 0 && f.Rate <= 1e9) {
		return fmt.Errorf("feed %q: rate %q: want postings a day, 0 to 1e9", v, parts[0])
	}
	if f.Capacity, err = strconv.Atoi(parts[1]); err != nil || f.Capacity < 1 || f.Capacity > 1_000_000 {
		return fmt.Errorf("feed %q: capacity %q: want a whole number of items, 1 to 1000000", v, parts[1])
	}
	if f.Waited, err = time.ParseDuration(parts[2]); err != nil || f.Waited < 0 || f.Waited > 366*24*time.Hour {
		return fmt.Errorf("feed %q: waited %q: want a duration since the last poll (90m, 6h), up to a year", v, parts[2])
	}
	if len(parts) == 4 {
		if f.Subscribers, err = strconv.Atoi(parts[3]); err != nil || f.Subscribers < 0 {
			return fmt.Errorf("feed %q: subscribers %q: want a whole number, 0 or more", v, parts[3])
		}
	}
	*l = append(*l, f)
	return nil
}

// ranking is policy rank's answer, as --json prints it, at full precision.
type ranking struct {
	Policy string       `json:"policy"`
	At     time.Time    `json:"at"`
	Budget int          `json:"budget"`
	Feeds  []rankedFeed `json:"feeds"`
	policy.Cycle
}

type rankedFeed struct {
	Rate        float64 `json:"rate"`
	Capacity    int     `json:"capacity"`
	WaitedS     float64 `json:"waited_s"`
	Subscribers int     `json:"subscribers"`
}

func runRank(args []string, s stdio) int {
	fs := schedFlagSet("policy rank", s.err)
	name := fs.String("policy", "", "hourly or at-risk")
	budget := fs.Int("budget", 0, "polls per day shared by the feeds (default 24 per feed)")
	at := fs.String("at", "", "the moment of the planning cycle, RFC 3339 (default now)")
	var feeds rankList
	fs.Var(&feeds, "feed", "a feed as RATE:CAPACITY:WAITED[:SUBSCRIBERS] (repeat for each feed)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := schedParseFlags(fs, args, s.err); !ok {
		return code
	}
	var problems []string
	if *name != policy.Hourly && *name != policy.AtRisk {
		problems = append(problems, fmt.Sprintf("--policy %q: want hourly or at-risk", *name))
	}
	if *budget < 0 {
		problems = append(problems, fmt.Sprintf("--budget %d is negative", *budget))
	}
	now := time.Now().UTC().Truncate(time.Second)
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--at %q: want RFC 3339 (2026-03-02T09:00:00Z)", *at))
		}
		now = t.UTC()
	}
	if len(feeds) == 0 {
		problems = append(problems, "at least one --feed is required")
	}
	if len(problems) > 0 {
		fmt.Fprintf(s.err, "dynamo policy rank: %s\n", strings.Join(problems, "; "))
		return 2
	}
	sources := make([]policy.Source, len(feeds))
	out := ranking{Policy: *name, At: now, Budget: *budget, Feeds: make([]rankedFeed, len(feeds))}
	for i, f := range feeds {
		st := policy.Steady(f.Rate, f.Capacity, now.Add(-f.Waited))
		sources[i] = policy.Source{ID: fmt.Sprint(i + 1), Subscribers: f.Subscribers, State: &st}
		out.Feeds[i] = rankedFeed{Rate: f.Rate, Capacity: f.Capacity, WaitedS: f.Waited.Seconds(), Subscribers: f.Subscribers}
	}
	if out.Budget == 0 {
		out.Budget = 24 * len(feeds)
	}
	cycle, err := policy.Ranks(*name, policy.Config{Budget: out.Budget}, sources, now)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo policy rank: %v\n", err)
		return 2
	}
	out.Cycle = cycle
	if *asJSON {
		return schedJSON(s, out)
	}
	printRanking(s.out, out)
	return 0
}

func printRanking(w io.Writer, r ranking) {
	fmt.Fprintf(w, "%s at %s: %d polls a day over %d feeds, %d this cycle", r.Policy, r.At.Format(time.RFC3339), r.Budget, len(r.Feeds), r.Polls)
	if r.Policy == policy.AtRisk {
		fmt.Fprintf(w, ", θ = %.4g item-hours", r.Theta)
	}
	fmt.Fprintln(w)
	// hourly ranks by the pending postings alone: it has no waiting, risk
	// or θ, which its JSON gives as 0 and its text leaves out.
	hourly := r.Policy == policy.Hourly
	if hourly {
		fmt.Fprintf(w, "%5s %10s %9s %9s %10s %10s  %s\n", "feed", "rate", "capacity", "waited", "pending", "rank", "poll")
	} else {
		fmt.Fprintf(w, "%5s %10s %9s %9s %10s %11s %10s %10s  %s\n", "feed", "rate", "capacity", "waited", "pending", "waiting", "risk", "rank", "poll")
	}
	for i, f := range r.Feeds {
		rk := r.Ranks[i]
		poll := "no"
		switch {
		case rk.Poll && rk.Guarded:
			poll = "yes (guard)"
		case rk.Poll:
			poll = "yes"
		case !rk.Eligible:
			poll = "no (gap)"
		}
		waited := time.Duration(f.WaitedS * float64(time.Second))
		if hourly {
			fmt.Fprintf(w, "%5d %10s %9d %9s %10.4f %10.4f  %s\n", i+1, schedNum(f.Rate), f.Capacity, waited, rk.Pending, rk.Rank, poll)
			continue
		}
		fmt.Fprintf(w, "%5d %10s %9d %9s %10.4f %11.4f %10.4f %10.4f  %s\n", i+1, schedNum(f.Rate), f.Capacity,
			waited, rk.Pending, rk.Waiting, rk.Risk, rk.Rank, poll)
	}
}

// forecast is policy weekday's answer, as --json prints it.
type forecast struct {
	Days []forecastDay `json:"days"`
	Next *string       `json:"next"` // null when no day reaches 0.5
}

type forecastDay struct {
	Date    string `json:"date"`
	Weekday string `json:"weekday"`
	// P is the probability at full precision; PRounded the same to four
	// decimals, as the text shows it; Likely whether P ≥ 0.5, decided on
	// the exact counts.
	P        float64 `json:"p"`
	PRounded float64 `json:"p_rounded"`
	Likely   bool    `json:"likely"`
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
		out.Days[i] = forecastDay{
			Date:     d.Date.Format(time.DateOnly),
			Weekday:  d.Date.Weekday().String(),
			P:        d.P,
			PRounded: math.Round(d.P*1e4) / 1e4,
			Likely:   d.Likely,
		}
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
	fmt.Fprintf(w, "%-10s  %-9s  %6s\n", "date", "weekday", "p")
	for _, d := range f.Days {
		fmt.Fprintf(w, "%-10s  %-9s  %6.4f\n", d.Date, d.Weekday, d.P)
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
