package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/simulate"
)

// The hand-worked trace of the simulate package's tests, read from
// standard input: one feed showing 2 items, polled flat every 6 hours.
const handTrace = `span 2026-03-02T00:00:00Z 2026-03-03T00:00:00Z
capacity a 2
a 2026-03-02T01:00:00Z
a 2026-03-02T02:00:00Z
a 2026-03-02T03:00:00Z
a 2026-03-02T07:00:00Z
`

func TestSimulateTrace(t *testing.T) {
	code, out, errOut := schedRun(t, handTrace, "simulate", "--trace", "-", "--policy", "flat", "--budget", "4", "--warmup", "0", "--json")
	// Over all postings the missed 01:00 posting counts until 06:00,
	// which found it gone: 5, 4, 3 and 5 hours, mean 4.25 h.
	want := `{"results":[{"policy":"flat","budget":4,"polls":4,"push_polls":0,"pushes":0,"postings":4,"missed":1,"mean_delay_s":14400,"p50_delay_s":14400,"p95_delay_s":18000,"p99_delay_s":18000,"all_mean_delay_s":15300,"all_p50_delay_s":14400,"all_p95_delay_s":18000,"all_p99_delay_s":18000,"max_pending":3,"starved_feeds":0,"starved_share":0}]}` + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\ngot  %s\nwant %s", code, errOut, out, want)
	}
	code, out, _ = schedRun(t, handTrace, "simulate", "--trace", "-", "--policy", "flat", "--budget", "4", "--warmup", "0")
	wantText := `1 feeds, 2026-03-02 to 2026-03-03
policy         budget    polls  postings   missed  missed%  mean (h)   p95 (h)  all mean   all p50   all p95   all p99  pending starved%
flat                4        4         4        1    25.00      4.00      5.00      4.25      4.00      5.00      5.00        3      0.0
`
	if code != 0 || out != wantText {
		t.Errorf("text: exit %d\ngot:\n%s\nwant:\n%s", code, out, wantText)
	}
}

// A synthetic run compares every policy given, at every budget, and can
// keep the trace it replayed, which replays to the same figures.
func TestSimulateSynthetic(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "trace.txt")
	args := []string{"simulate", "--synthetic", "20", "--seed", "5", "--days", "10", "--policy", "uniform,min-missing,at-risk", "--budget", "40,80", "--json"}
	code, out, errOut := schedRun(t, "", append(args, "--write-trace", saved)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct{ Results []simulate.Result }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 6 || got.Results[0].Policy != "uniform" || got.Results[0].Budget != 40 || got.Results[5].Policy != "at-risk" || got.Results[5].Budget != 80 {
		t.Fatalf("results %+v", got.Results)
	}
	for _, r := range got.Results {
		if r.Postings == 0 || r.Polls == 0 || r.MeanDelay <= 0 {
			t.Errorf("empty result %+v", r)
		}
	}
	code, replay, errOut := schedRun(t, "", "simulate", "--trace", saved, "--policy", "uniform,min-missing,at-risk", "--budget", "40,80", "--json")
	if code != 0 || replay != out {
		t.Errorf("replaying the saved trace: exit %d %s\ngot  %s\nwant %s", code, errOut, replay, out)
	}
}

func TestSimulateErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.txt")
	tests := []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", nil, 2, "give --trace FILE or --synthetic N"},
		{"", []string{"--trace", "x", "--synthetic", "3"}, 2, "not both"},
		{"", []string{"--synthetic", "3", "--policy", "psychic"}, 2, `unknown scheduling policy "psychic"`},
		{"", []string{"--synthetic", "3", "--policy", ","}, 2, "names no policy"},
		{"", []string{"--synthetic", "3", "--budget", "0"}, 2, `--budget "0"`},
		{"", []string{"--synthetic", "3", "--warmup", "-1h"}, 2, "--warmup -1h0m0s is negative"},
		{"", []string{"--synthetic", "-3"}, 1, "-3 feeds is outside"},
		{"", []string{"--trace", missing}, 1, "no such file"},
		{"a 2026-03-02T01:00:00Z\nb soon\n", []string{"--trace", "-"}, 1, "stdin: trace line 2"},
		{"a 2026-03-02T01:00:00Z\n", []string{"--trace", "-", "--days", "x"}, 2, "invalid value"},
		{"a 2026-03-02T01:00:00Z\n", []string{"--trace", "-", "--seed", "4"}, 2, "--seed shapes a synthetic trace"},
		{"", []string{"--synthetic", "3", "--shape", "lumpy"}, 1, `unknown shape "lumpy"`},
		{"", []string{"--synthetic", "3", "--budget", "3", "--budget-per-feed", "1"}, 2, "not both"},
		{"", []string{"--synthetic", "3", "--budget-per-feed", "0"}, 2, `--budget-per-feed "0"`},
		{"", []string{"--synthetic", "3", "--push", "2"}, 2, "--push 2: want a share"},
		{"", []string{"--synthetic", "3", "--push-loss", "1"}, 2, "--push-loss 1"},
		{"", []string{"--synthetic", "3", "--config", `{"miss_hours":-1}`}, 2, "miss_hours -1"},
		{"", []string{"--synthetic", "3", "--config", `{"guard":"soon"}`}, 2, "guard"},
		{"", []string{"--synthetic", "3", "--config", `{"psychic":1}`}, 2, `unknown field "psychic"`},
	}
	for _, tt := range tests {
		code, out, errOut := schedRun(t, tt.stdin, append([]string{"simulate"}, tt.args...)...)
		if code != tt.code || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tt.args, code, out, errOut, tt.code, tt.want)
		}
	}
	// A feed without a capacity line is simulated with the default and a
	// warning naming the file.
	code, _, errOut := schedRun(t, "a 2026-03-02T01:00:00Z\n", "simulate", "--trace", "-", "--warmup", "0", "--policy", "flat")
	if code != 0 || !strings.Contains(errOut, "stdin: feed a has no capacity or window line") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// Shapes, budgets per feed, push-capable feeds and a tuned configuration
// (durations written as Go durations) reach the simulator; the text names
// the push-capable feeds and adds their columns.
func TestSimulateShapesAndPush(t *testing.T) {
	args := []string{"simulate", "--synthetic", "30", "--shape", "blog", "--seed", "3", "--days", "10", "--policy", "at-risk,min-delay",
		"--budget-per-feed", "2,4", "--push", "0.5", "--config", `{"miss_hours":2,"lookahead":"30m","push_safety":"12h"}`}
	code, out, errOut := schedRun(t, "", append(args, "--json")...)
	var got struct{ Results []simulate.Result }
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errOut)
	}
	if len(got.Results) != 4 || got.Results[0].Budget != 60 || got.Results[2].Budget != 120 {
		t.Fatalf("results %+v", got.Results)
	}
	for _, r := range got.Results {
		// With a 12-hour safety poll, the push feeds get two a day over
		// the 3 days measured.
		if r.PushPolls == 0 || r.Pushes == 0 || r.PushPolls > 2*3*30 {
			t.Errorf("%s/%d: %d safety polls, %d pushes", r.Policy, r.Budget, r.PushPolls, r.Pushes)
		}
	}
	code, out, _ = schedRun(t, "", args...)
	if code != 0 || !strings.Contains(out, "push-capable") || !strings.Contains(out, "push polls") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	bar := progressBar(&buf)
	for done := 0; done <= 200; done++ {
		bar(done, 200)
	}
	out := buf.String()
	if strings.Count(out, "\r") != 101 || !strings.HasSuffix(out, "] 100%\n") || !strings.Contains(out, "]  50%") {
		t.Errorf("progress bar drew %q", out)
	}
	if isTerminal(&buf) {
		t.Error("a buffer is taken for a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a file is taken for a terminal")
	}
}
