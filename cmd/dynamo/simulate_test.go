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
	want := `{"results":[{"policy":"flat","budget":4,"polls":4,"postings":4,"missed":1,"mean_delay_s":14400,"p95_delay_s":18000,"max_pending":3}]}` + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\ngot  %s\nwant %s", code, errOut, out, want)
	}
	code, out, _ = schedRun(t, handTrace, "simulate", "--trace", "-", "--policy", "flat", "--budget", "4", "--warmup", "0")
	wantText := `1 feeds, 2026-03-02 to 2026-03-03
policy         budget    polls  postings   missed  missed%   mean (h)    p95 (h)  max pending
flat                4        4         4        1    25.00       4.00       5.00            3
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
	if code != 0 || !strings.Contains(errOut, "stdin: feed a has no capacity line") {
		t.Errorf("exit %d, stderr %q", code, errOut)
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
