package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/simulate"
)

func init() {
	register("simulate", "compare scheduling policies on a posting trace or a synthetic one", runSimulate)
}

const simulateUsage = `usage: dynamo simulate [--trace FILE | --synthetic N --seed S [--days D]]
                       [--policy P,...] [--budget M,...] [--json]

Replays posting times under each policy and budget (polls per day over all
feeds) and reports, per policy: polls used, postings made, postings missed
(they scrolled out of the feed's window before a poll saw them), mean and
95th-percentile delay from posting to retrieval, and the most postings any
feed made between two polls. The policies learn everything from their
simulated polls, as they do live; the first --warmup is not measured.

A trace file (or - for standard input) has one line per posting, FEED TIME
(RFC 3339 or Unix seconds), and "capacity FEED S" lines giving how many
items each feed shows; see docs/SCHEDULING.md.

flags:
`

// simulateConfig is the parsed command line of simulate.
type simulateConfig struct {
	trace      string
	synthetic  int
	seed       uint64
	days       int
	writeTrace string
	opts       simulate.Options
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
	if len(cfg.opts.Budgets) == 0 {
		// Four polls a day per feed: a poll every six hours on average.
		cfg.opts.Budgets = []int{4 * len(trace.Feeds)}
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
	fs.Uint64Var(&cfg.seed, "seed", 1, "the synthetic trace's random `seed`")
	fs.IntVar(&cfg.days, "days", 28, "the synthetic trace's length in `days`")
	fs.StringVar(&cfg.writeTrace, "write-trace", "", "also write the trace replayed to `FILE`, to keep or edit it")
	policies := fs.String("policy", strings.Join(policy.Names(), ","), "the policies to compare, comma-separated")
	budgets := fs.String("budget", "", "polls per day over all feeds, comma-separated for several (default 4 per feed)")
	fs.DurationVar(&cfg.opts.Warmup, "warmup", 7*24*time.Hour, "learning time at the start that is not measured")
	noDates := fs.Bool("no-dates", false, "hide the postings' dates from the policies, as for pages without dates")
	fs.BoolVar(&cfg.json, "json", false, "print JSON")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress bar")
	if code, ok := schedParseFlags(fs, args, w); !ok {
		return cfg, code, false
	}
	cfg.opts.NoDates = *noDates
	if cfg.opts.Warmup == 0 {
		cfg.opts.Warmup = -1 // the simulator's "none"; its 0 means the default
	}
	var problems []string
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
		return simulate.Synthetic(cfg.synthetic, cfg.seed, cfg.days)
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

// printResults prints the comparison as a table, delays in hours.
func printResults(w io.Writer, t *simulate.Trace, results []simulate.Result) {
	fmt.Fprintf(w, "%d feeds, %s to %s\n", len(t.Feeds), t.Start.Format(time.DateOnly), t.End.Format(time.DateOnly))
	fmt.Fprintf(w, "%-12s %8s %8s %9s %8s %8s %10s %10s %12s\n",
		"policy", "budget", "polls", "postings", "missed", "missed%", "mean (h)", "p95 (h)", "max pending")
	for _, r := range results {
		share := 0.0
		if r.Postings > 0 {
			share = 100 * float64(r.Missed) / float64(r.Postings)
		}
		fmt.Fprintf(w, "%-12s %8d %8d %9d %8d %8.2f %10.2f %10.2f %12d\n",
			r.Policy, r.Budget, r.Polls, r.Postings, r.Missed, share, r.MeanDelay/3600, r.P95Delay/3600, r.MaxPending)
	}
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
