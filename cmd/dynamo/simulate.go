package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/simulate"
)

func init() {
	register("simulate", "compare scheduling policies on a posting trace or a synthetic one", runSimulate)
}

const simulateUsage = `usage: dynamo simulate [--trace FILE | --synthetic N [--shape SHAPE] [--seed S] [--days D]]
                       [--policy P,...] [--budget M,... | --budget-per-feed B,...]
                       [--push SHARE] [--config JSON] [--json [--per-feed]]

Replays posting times under each policy and budget (polls per day over all
feeds) and reports, per policy: polls used, postings made, postings missed
(they scrolled out of the feed's window before a poll saw them), the delay
from posting to retrieval over the postings retrieved and over all
postings (a missed posting counts until the poll that found it gone), the
most postings any feed made between two polls, and the share of feeds
starved (a posting waited more than a day for a poll). The policies learn
everything from their simulated polls, as they do live; the first --warmup
is not measured.

A trace file (or - for standard input) has one line per posting, FEED TIME
(RFC 3339 or Unix seconds), and "capacity FEED S" or "window FEED 24h" lines
saying how many items, or the items of how long, each feed shows; see
docs/SCHEDULING.md. --push marks a share of the feeds as advertising a
WebSub hub: their postings are pushed, and they are polled only for safety.

flags:
`

// simulateConfig is the parsed command line of simulate.
type simulateConfig struct {
	trace      string
	synthetic  int
	shape      string
	seed       uint64
	days       int
	writeTrace string
	opts       simulate.Options
	perFeed    []float64 // budgets per feed, from --budget-per-feed
	push       float64   // share of feeds marked push-capable
	json       bool
	quiet      bool
}

func runSimulate(ctx context.Context, args []string, s stdio) int {
	cfg, code, ok := parseSimulateArgs(args, s.err)
	if !ok {
		return code
	}
	trace, err := loadTrace(cfg, s)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo simulate: %v\n", err)
		return 1
	}
	if cfg.writeTrace != "" {
		if err := saveTrace(cfg.writeTrace, trace); err != nil {
			fmt.Fprintf(s.err, "dynamo simulate: %v\n", err)
			return 1
		}
	}
	for _, b := range cfg.perFeed {
		cfg.opts.Budgets = append(cfg.opts.Budgets, max(int(math.Round(b*float64(len(trace.Feeds)))), 1))
	}
	if len(cfg.opts.Budgets) == 0 {
		// Four polls a day per feed: a poll every six hours on average.
		cfg.opts.Budgets = []int{4 * len(trace.Feeds)}
	}
	if cfg.push > 0 {
		simulate.MarkPush(trace, cfg.push, cfg.seed)
	}
	if !cfg.quiet && isTerminal(s.err) {
		cfg.opts.Progress = progressBar(s.err)
	}
	results, err := simulate.Run(ctx, trace, cfg.opts)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo simulate: %v\n", err)
		return 1
	}
	if cfg.json {
		return schedJSON(s, struct {
			Results []simulate.Result `json:"results"`
		}{results})
	}
	printResults(s.out, trace, results)
	return 0
}

func parseSimulateArgs(args []string, w io.Writer) (simulateConfig, int, bool) {
	var cfg simulateConfig
	fs := schedFlagSet("simulate", w)
	fs.Usage = func() {
		fmt.Fprint(w, simulateUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.trace, "trace", "", "replay the trace in `FILE` (- for standard input)")
	fs.IntVar(&cfg.synthetic, "synthetic", 0, "generate a synthetic trace of `N` feeds")
	fs.StringVar(&cfg.shape, "shape", simulate.Poisson, "the synthetic trace's `shape`: "+strings.Join(simulate.Shapes(), ", "))
	fs.Uint64Var(&cfg.seed, "seed", 1, "the synthetic trace's random `seed`")
	fs.IntVar(&cfg.days, "days", 28, "the synthetic trace's length in `days`")
	fs.StringVar(&cfg.writeTrace, "write-trace", "", "also write the trace replayed to `FILE`, to keep or edit it")
	policies := fs.String("policy", strings.Join(policy.Names(), ","), "the policies to compare, comma-separated")
	budgets := fs.String("budget", "", "polls per day over all feeds, comma-separated for several (default 4 per feed)")
	perFeed := fs.String("budget-per-feed", "", "polls per day per feed, comma-separated for several: 1,2,4 (instead of --budget)")
	fs.Float64Var(&cfg.push, "push", 0, "the `share` of feeds (0 to 1) that advertise a WebSub hub, drawn with --seed")
	fs.DurationVar(&cfg.opts.Push.Latency, "push-latency", time.Minute, "how long after a posting its push arrives")
	fs.Float64Var(&cfg.opts.Push.Loss, "push-loss", 0.02, "the `share` of pushes lost")
	fs.DurationVar(&cfg.opts.Warmup, "warmup", 7*24*time.Hour, "learning time at the start that is not measured")
	tuning := fs.String("config", "", "tune the policies with a `JSON` policy configuration, e.g. {\"miss_hours\":2,\"guard\":\"12h\"} (docs/SCHEDULING.md)")
	noDates := fs.Bool("no-dates", false, "hide the postings' dates from the policies, as for pages without dates")
	fs.BoolVar(&cfg.opts.PerFeed, "per-feed", false, "with --json, add each feed's figures to the results")
	fs.BoolVar(&cfg.json, "json", false, "print JSON")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress bar")
	if code, ok := schedParseFlags(fs, args, w); !ok {
		return cfg, code, false
	}
	cfg.opts.NoDates = *noDates
	var problems []string
	if *tuning != "" {
		c, err := parsePolicyConfig(*tuning)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--config: %v", err))
		}
		cfg.opts.Config = c
	}
	if cfg.opts.Push.Loss == 0 {
		cfg.opts.Push.Loss = -1 // the simulator's "none"; its 0 means the default
	}
	if !(cfg.push >= 0 && cfg.push <= 1) {
		problems = append(problems, fmt.Sprintf("--push %v: want a share from 0 to 1", cfg.push))
	}
	if !(cfg.opts.Push.Loss < 1) || cfg.opts.Push.Loss < -1 || (cfg.opts.Push.Loss < 0 && cfg.opts.Push.Loss != -1) {
		problems = append(problems, fmt.Sprintf("--push-loss %v: want a share from 0 to less than 1", cfg.opts.Push.Loss))
	}
	if cfg.opts.Push.Latency < 0 {
		problems = append(problems, fmt.Sprintf("--push-latency %v is negative", cfg.opts.Push.Latency))
	}
	if cfg.opts.Push.Latency == 0 {
		cfg.opts.Push.Latency = time.Nanosecond // "at once": the simulator's 0 means the default
	}
	if cfg.opts.Warmup == 0 {
		cfg.opts.Warmup = -1 // the simulator's "none"; its 0 means the default
	}
	switch {
	case cfg.trace != "" && cfg.synthetic != 0:
		problems = append(problems, "give --trace or --synthetic, not both")
	case cfg.trace == "" && cfg.synthetic == 0:
		problems = append(problems, "give --trace FILE or --synthetic N")
	case cfg.trace != "":
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "seed" || f.Name == "days" {
				problems = append(problems, fmt.Sprintf("--%s shapes a synthetic trace, not --trace", f.Name))
			}
		})
	}
	for _, p := range strings.Split(*policies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.opts.Policies = append(cfg.opts.Policies, p)
		}
	}
	if len(cfg.opts.Policies) == 0 {
		problems = append(problems, "--policy names no policy")
	}
	for _, p := range cfg.opts.Policies {
		if _, err := policy.ByName(p, policy.Config{}); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for _, b := range strings.Split(*budgets, ",") {
		if b = strings.TrimSpace(b); b == "" {
			continue
		}
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("--budget %q: want whole numbers of polls a day, 1 or more", b))
			continue
		}
		cfg.opts.Budgets = append(cfg.opts.Budgets, n)
	}
	for _, b := range strings.Split(*perFeed, ",") {
		if b = strings.TrimSpace(b); b == "" {
			continue
		}
		v, err := strconv.ParseFloat(b, 64)
		if err != nil || !(v > 0 && v <= 1000) {
			problems = append(problems, fmt.Sprintf("--budget-per-feed %q: want polls a day per feed, above 0 and at most 1000", b))
			continue
		}
		cfg.perFeed = append(cfg.perFeed, v)
	}
	if len(cfg.perFeed) > 0 && len(cfg.opts.Budgets) > 0 {
		problems = append(problems, "give --budget or --budget-per-feed, not both")
	}
	if cfg.opts.Warmup < -1 {
		problems = append(problems, fmt.Sprintf("--warmup %v is negative", cfg.opts.Warmup))
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "dynamo simulate: %s\n", strings.Join(problems, "; "))
		return cfg, 2, false
	}
	return cfg, 0, true
}

// loadTrace reads the trace file, or generates the synthetic trace.
func loadTrace(cfg simulateConfig, s stdio) (*simulate.Trace, error) {
	if cfg.synthetic != 0 {
		return simulate.Synthetic(cfg.shape, cfg.synthetic, cfg.seed, cfg.days)
	}
	var r io.Reader = s.in
	if cfg.trace != "-" {
		f, err := os.Open(cfg.trace)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	trace, warnings, err := simulate.ParseTrace(r)
	name := cfg.trace
	if name == "-" {
		name = "stdin"
	}
	for _, w := range warnings {
		if w.Line > 0 {
			fmt.Fprintf(s.err, "%s:%d: %s\n", name, w.Line, w.Message)
		} else {
			fmt.Fprintf(s.err, "%s: %s\n", name, w.Message)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return trace, nil
}

func saveTrace(path string, t *simulate.Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := simulate.WriteTrace(f, t)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("write trace %s: %w", path, werr)
	}
	return nil
}

// printResults prints the comparison as a table, delays in hours: over
// the postings retrieved (mean, p95), then over all postings (mean, p50,
// p95, p99). Push columns appear when some feeds are push-capable.
func printResults(w io.Writer, t *simulate.Trace, results []simulate.Result) {
	pushed := 0
	for _, f := range t.Feeds {
		if f.Push {
			pushed++
		}
	}
	fmt.Fprintf(w, "%d feeds, %s to %s", len(t.Feeds), t.Start.Format(time.DateOnly), t.End.Format(time.DateOnly))
	if pushed > 0 {
		fmt.Fprintf(w, ", %d push-capable", pushed)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-12s %8s %8s %9s %8s %8s %9s %9s %9s %9s %9s %9s %8s %8s",
		"policy", "budget", "polls", "postings", "missed", "missed%", "mean (h)", "p95 (h)", "all mean", "all p50", "all p95", "all p99", "pending", "starved%")
	if pushed > 0 {
		fmt.Fprintf(w, " %10s %8s", "push polls", "pushes")
	}
	fmt.Fprintln(w)
	for _, r := range results {
		share := 0.0
		if r.Postings > 0 {
			share = 100 * float64(r.Missed) / float64(r.Postings)
		}
		fmt.Fprintf(w, "%-12s %8d %8d %9d %8d %8.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8d %8.1f",
			r.Policy, r.Budget, r.Polls, r.Postings, r.Missed, share, r.MeanDelay/3600, r.P95Delay/3600,
			r.AllMeanDelay/3600, r.AllP50Delay/3600, r.AllP95Delay/3600, r.AllP99Delay/3600, r.MaxPending, 100*r.StarvedShare)
		if pushed > 0 {
			fmt.Fprintf(w, " %10d %8d", r.PushPolls, r.Pushes)
		}
		fmt.Fprintln(w)
	}
}

// parsePolicyConfig reads a policy configuration as JSON, its durations
// written as Go durations ("10m", "24h") or as nanoseconds; unknown
// fields and unusable values are errors.
func parsePolicyConfig(raw string) (policy.Config, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return policy.Config{}, err
	}
	durations := map[string]bool{}
	ct := reflect.TypeFor[policy.Config]()
	for i := range ct.NumField() {
		if f := ct.Field(i); f.Type == reflect.TypeFor[time.Duration]() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			durations[name] = true
		}
	}
	for name, v := range fields {
		var text string
		if durations[name] && json.Unmarshal(v, &text) == nil {
			d, err := time.ParseDuration(text)
			if err != nil {
				return policy.Config{}, fmt.Errorf("%s: %w", name, err)
			}
			fields[name] = json.RawMessage(strconv.FormatInt(int64(d), 10))
		}
	}
	normal, err := json.Marshal(fields)
	if err != nil {
		return policy.Config{}, err
	}
	var c policy.Config
	dec := json.NewDecoder(bytes.NewReader(normal))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return policy.Config{}, err
	}
	return c, c.Validate()
}

// isTerminal reports whether w is a terminal, where a progress bar helps
// rather than litters a log.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressBar draws the share of simulated days done on one line of w,
// redrawn only when it moves a percent, and ends the line when done.
func progressBar(w io.Writer) func(done, total int) {
	const width = 40
	last := -1
	return func(done, total int) {
		if total <= 0 {
			return
		}
		percent := min(100*done/total, 100)
		if percent == last {
			return
		}
		last = percent
		filled := width * percent / 100
		fmt.Fprintf(w, "\rsimulating [%s%s] %3d%%", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), percent)
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}
