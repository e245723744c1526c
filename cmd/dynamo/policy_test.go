package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// schedRun runs dynamo in process with args and stdin, returning the exit
// code and what it wrote.
func schedRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := dispatch(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

func TestPolicyAllocate(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			// docs/SCHEDULING.md's example: min-missing, budget 5. Gains 5|3|1 → A
			// (7 left), 5|3|1 → A (2), 2|3|1 → B (0), 2|0|1 → A (0),
			// 0|0|1 → C.
			name: "spec example json",
			args: []string{"--policy", "min-missing", "--budget", "5", "--feed", "12:5", "--feed", "3:10", "--feed", "1:5", "--json"},
			want: `{"policy":"min-missing","budget":5,"kappa":null,"feeds":[{"rate":12,"capacity":5,"weight":1,"m":3,"polls":3,"missed":0},{"rate":3,"capacity":10,"weight":1,"m":1,"polls":1,"missed":0},{"rate":1,"capacity":5,"weight":1,"m":1,"polls":1,"missed":0}],"missed":0}` + "\n",
		},
		{
			name: "spec example text",
			args: []string{"--policy", "min-missing", "--budget", "5", "--feed", "12:5", "--feed", "3:10", "--feed", "1:5"},
			want: `min-missing: 5 polls per period over 3 feeds
 feed       rate  capacity   weight         m  polls   missed
    1         12         5        1    3.0000      3        0
    2          3        10        1    1.0000      1        0
    3          1         5        1    1.0000      1        0
total                                             5        0
`,
		},
		{
			// Uniform: κ = 2.5 each, rounded to 3 and 2 (the remainder to
			// the first); A misses 12 − 3·5 < 0 → 0, B 3 − 2·1 = 1.
			name: "uniform",
			args: []string{"--policy", "uniform", "--budget", "5", "--feed", "12:5", "--feed", "3:1", "--json"},
			want: `{"policy":"uniform","budget":5,"kappa":2.5,"feeds":[{"rate":12,"capacity":5,"weight":1,"m":2.5,"polls":3,"missed":0},{"rate":3,"capacity":1,"weight":1,"m":2.5,"polls":2,"missed":1}],"missed":1}` + "\n",
		},
		{
			// min-delay: √(1·12) : √(4·0.75) = 3.46 : 1.73 of 4 polls is
			// κ = 4/(√12 + √3) = 0.7698 and m = 2.67 and 1.33, rounded to
			// 3 and 1; the second collects its 0.75 postings with its one
			// poll. JSON carries κ and m at full precision.
			name: "min-delay weights",
			args: []string{"--policy=min-delay", "--budget=4", "--feed=12:5", "--feed=0.75:1:4", "--json"},
			want: `{"policy":"min-delay","budget":4,"kappa":0.769800358919501,"feeds":[{"rate":12,"capacity":5,"weight":1,"m":2.6666666666666665,"polls":3,"missed":0},{"rate":0.75,"capacity":1,"weight":4,"m":1.3333333333333333,"polls":1,"missed":0}],"missed":0}` + "\n",
		},
		{
			// Fractions are printed as they are, without float noise:
			// 0.7 − 0.4 is 0.3, not 0.29999999999999993.
			name: "fractional missed",
			args: []string{"--policy", "min-missing", "--budget", "0", "--feed", "0.7:2", "--feed", "0.4:1"},
			want: `min-missing: 0 polls per period over 2 feeds
 feed       rate  capacity   weight         m  polls   missed
    1        0.7         2        1    0.0000      0      0.7
    2        0.4         1        1    0.0000      0      0.4
total                                             0      1.1
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := schedRun(t, "", append([]string{"policy", "allocate"}, tt.args...)...)
			if code != 0 || out != tt.want {
				t.Errorf("exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, errOut, out, tt.want)
			}
		})
	}
}

func TestPolicyAllocateErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--budget", "5", "--feed", "1:1"}, "--policy is required"},
		{[]string{"--policy", "uniform", "--feed", "1:1"}, "--budget is required"},
		{[]string{"--policy", "uniform", "--budget", "5"}, "at least one --feed"},
		{[]string{"--policy", "hourly", "--budget", "5", "--feed", "1:1"}, `"hourly" is not an allocation policy`},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "1"}, "want RATE:CAPACITY[:WEIGHT]"},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "x:1"}, `rate "x" is not a number`},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "1:2.5"}, `capacity "2.5" is not a whole number`},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "1:1:w"}, `weight "w" is not a number`},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "-1:1"}, "feed 1: rate -1"},
		{[]string{"--policy", "min-delay", "--budget", "5", "--feed", "1:1", "--feed", "1:0:4"}, "feed 2: capacity 0"},
		{[]string{"--policy", "uniform", "--budget", "5", "--feed", "1:1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--policy", "uniform", "--budget", "-2", "--feed", "1:1"}, "--budget must be a whole number of polls, 0 or more, not -2"},
	}
	for _, tt := range tests {
		code, out, errOut := schedRun(t, "", append([]string{"policy", "allocate"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	// A required flag shows no default in the help (it showed the sentinel
	// "(default -1)").
	if code, _, errOut := schedRun(t, "", "policy", "allocate", "--help"); code != 0 || strings.Contains(errOut, "default -1") {
		t.Errorf("policy allocate --help: exit %d, %q", code, errOut)
	}
	if code, _, errOut := schedRun(t, "", "policy", "juggle"); code != 2 || !strings.Contains(errOut, `unknown subcommand "juggle"`) {
		t.Errorf("unknown subcommand: exit %d, %q", code, errOut)
	}
	// A subcommand is required: the bare command is a mistake (exit 2), as
	// in TestExitCodes; the usage it prints names the subcommands.
	if code, _, errOut := schedRun(t, "", "policy"); code != 2 || !strings.Contains(errOut, "dynamo policy allocate") {
		t.Errorf("bare policy: exit %d, %q", code, errOut)
	}
}

func TestPolicyWeekday(t *testing.T) {
	// Four weeks from Tuesday 3 February 2026 with an update every
	// Wednesday. Ū = 4/28 before Tuesday 3 March: P(Tue) = 0.1·4/28 =
	// 0.014; P(Wed) = 0.9·4/4 + 0.1·4/29 = 0.914; the other days have
	// β = 0: 0.1·4/30 = 0.013, 4/31, 4/32, 4/33 → 0.01; Monday 9 March
	// 0.1·4/34 = 0.012.
	history := "0100000010000001000000100000"
	code, out, errOut := schedRun(t, "", "policy", "weekday", "--start", "2026-02-03", "--history", history)
	want := `date        weekday         p
2026-03-03  Tuesday    0.0143
2026-03-04  Wednesday  0.9138
2026-03-05  Thursday   0.0133
2026-03-06  Friday     0.0129
2026-03-07  Saturday   0.0125
2026-03-08  Sunday     0.0121
2026-03-09  Monday     0.0118
next update: 2026-03-04
`
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	code, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-02-03", "--history", history, "--days", "2", "--json")
	wantJSON := `{"days":[{"date":"2026-03-03","weekday":"Tuesday","p":0.014285714285714285,"p_rounded":0.0143,"likely":false},{"date":"2026-03-04","weekday":"Wednesday","p":0.9137931034482759,"p_rounded":0.9138,"likely":true}],"next":"2026-03-04"}` + "\n"
	if code != 0 || out != wantJSON {
		t.Errorf("json: exit %d\ngot  %s\nwant %s", code, out, wantJSON)
	}
	// Daily for a week, then silent for a week: Ū = 7/14 and β = 1/2
	// give exactly 0.5 on the next Monday, which is the predicted day.
	code, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-03-02", "--history", "11111110000000", "--days", "1", "--json")
	if want := `{"days":[{"date":"2026-03-16","weekday":"Monday","p":0.5,"p_rounded":0.5,"likely":true}],"next":"2026-03-16"}` + "\n"; code != 0 || out != want {
		t.Errorf("one half: got %s want %s", out, want)
	}
	// Nothing likely: next is null, and the text says so.
	code, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-03-02", "--history", "0000000", "--days", "3", "--json")
	var got struct {
		Days []struct{ P float64 }
		Next *string
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Next != nil || len(got.Days) != 3 {
		t.Errorf("no update: exit %d, %s (%v)", code, out, err)
	}
	_, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-03-02", "--history", "0000000", "--days", "3")
	if !strings.HasSuffix(out, "next update: none predicted in the next 3 days\n") {
		t.Errorf("no update text: %q", out)
	}
}

// Lee et al.'s worked example gives P = 0.356 and 0.804 for two
// consecutive days. With docs/SCHEDULING.md's formula and its counting
// of the coming days before d as observed days without an update, only
// one set of counts gives both (searched over histories of 1 to 9 weeks):
// 25 days with updates, the first day predicted seen 6 times with 2
// updates after 45 days observed (P = 0.9·2/6 + 0.1·25/45), the next 6
// times with 5 updates after 46 (P = 0.9·5/6 + 0.1·25/46). A six-week
// history from a Sunday with those counts, forecast over the seventh
// week, gives them on its Wednesday and Thursday; JSON carries them at
// full precision and rounded to four decimals.
func TestPolicyWeekdayLeeExample(t *testing.T) {
	// Sunday to Saturday, six weeks: updates Sun 1, Mon 5, Tue 5, Wed 2,
	// Thu 5, Fri 5, Sat 2 times, 25 in all.
	history := "1010111" + "0100111" + "0110110" + "0111010" + "0111100" + "0110110"
	code, out, errOut := schedRun(t, "", "policy", "weekday", "--start", "2026-02-01", "--history", history, "--days", "5", "--json")
	var got struct {
		Days []struct {
			Date     string
			Weekday  string
			P        float64
			PRounded float64 `json:"p_rounded"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Days) != 5 {
		t.Fatalf("exit %d, %v, stderr %q: %s", code, err, errOut, out)
	}
	wed, thu := got.Days[3], got.Days[4]
	if wed.Weekday != "Wednesday" || wed.PRounded != 0.3556 || wed.P != 0.9*2/6+0.1*25/45.0 {
		t.Errorf("Wednesday: %+v, want P = 0.3556", wed)
	}
	if thu.Weekday != "Thursday" || thu.PRounded != 0.8043 || math.Abs(thu.P-(0.9*5/6+0.1*25/46.0)) > 1e-15 {
		t.Errorf("Thursday: %+v, want P = 0.8043", thu)
	}
	if !strings.Contains(out, `"p_rounded":0.3556`) || !strings.Contains(out, `"p_rounded":0.8043`) {
		t.Errorf("JSON lacks 0.3556 and 0.8043: %s", out)
	}
}

// policy rank ranks steady feeds as at-risk or hourly would at --at. At
// noon, with 4 polls a day over 4 feeds, θ = (24/4)²·(Σ√(r/2))² with r
// in items an hour; each feed's waiting after w hours of steady posting
// is r·w²/2 item-hours, so the feed silent longest at its rate leads.
func TestPolicyRank(t *testing.T) {
	args := []string{"policy", "rank", "--policy", "at-risk", "--budget", "4", "--at", "2026-03-02T12:00:00Z",
		"--feed", "12:5:3h", "--feed", "3:10:6h", "--feed", "1:5:20h", "--feed", "100:10:5m", "--json"}
	code, out, errOut := schedRun(t, "", args...)
	var got struct {
		Budget int
		Theta  float64 `json:"theta_item_hours"`
		Ranks  []struct {
			Rank     float64
			Waiting  float64 `json:"waiting_item_hours"`
			Pending  float64
			Eligible bool
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Ranks) != 4 {
		t.Fatalf("exit %d, %v, stderr %q: %s", code, err, errOut, out)
	}
	var sum float64
	for _, r := range []float64{12, 3, 1, 100} {
		sum += math.Sqrt(r / 24 / 2)
	}
	// (Steady's rates carry a prior of one item over a thousand years.)
	if theta := 36 * sum * sum; math.Abs(got.Theta-theta) > 1e-5*theta {
		t.Errorf("θ = %v, want %v", got.Theta, theta)
	}
	for i, want := range []struct{ rate, hours float64 }{{12, 3}, {3, 6}, {1, 20}} {
		r := got.Ranks[i]
		waiting := want.rate / 24 * want.hours * want.hours / 2
		if math.Abs(r.Waiting-waiting) > 1e-3 || math.Abs(r.Pending-want.rate/24*want.hours) > 1e-3 || !r.Eligible {
			t.Errorf("feed %d: %+v, want waiting %v", i+1, r, waiting)
		}
	}
	if !(got.Ranks[2].Rank > got.Ranks[0].Rank && got.Ranks[2].Rank > got.Ranks[1].Rank) || got.Ranks[3].Eligible {
		t.Errorf("ranks %+v: want feed 3 first and feed 4 in the politeness gap", got.Ranks)
	}
	code, out, _ = schedRun(t, "", args[:len(args)-1]...)
	if code != 0 || !strings.Contains(out, "at-risk at 2026-03-02T12:00:00Z: 4 polls a day over 4 feeds") || !strings.Contains(out, "no (gap)") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"--policy", "min-delay", "--feed", "1:1:1h"},
		{"--policy", "hourly"},
		{"--policy", "hourly", "--feed", "1:1"},
		{"--policy", "hourly", "--feed", "1:0:1h"},
		{"--policy", "hourly", "--feed", "1:1:soon"},
		{"--policy", "hourly", "--feed", "1:1:1h", "--at", "noon"},
	} {
		if code, _, errOut := schedRun(t, "", append([]string{"policy", "rank"}, bad...)...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

// policy rank --policy hourly ranks by the postings expected since the
// last poll (steady rates: rate/24 × hours waited), times 1 + c ×
// subscribers with c = 0 by default: at noon, 288 polls a day are 2 a
// cycle, which go to the feeds expecting 1.5 and 0.83 postings; the one
// expecting 0.75 waits, and the one polled 5 minutes ago is in the
// politeness gap. The text leaves out the waiting and the risk, which
// hourly does not have.
func TestPolicyRankHourly(t *testing.T) {
	args := []string{"policy", "rank", "--policy", "hourly", "--budget", "288", "--at", "2026-03-02T12:00:00Z",
		"--feed", "12:5:3h", "--feed", "3:10:6h", "--feed", "1:5:20h:40", "--feed", "100:10:5m", "--json"}
	code, out, errOut := schedRun(t, "", args...)
	var got struct {
		Policy string
		Polls  int
		Ranks  []struct {
			Rank, Pending float64
			Eligible      bool
			Poll          bool
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Ranks) != 4 {
		t.Fatalf("exit %d, %v, stderr %q: %s", code, err, errOut, out)
	}
	if got.Policy != "hourly" || got.Polls != 2 {
		t.Errorf("policy %q, %d polls this cycle: want hourly, 2", got.Policy, got.Polls)
	}
	for i, want := range []struct {
		pending          float64
		eligible, polled bool
	}{{1.5, true, true}, {0.75, true, false}, {20.0 / 24, true, true}, {100.0 / 24 / 12, false, false}} {
		r := got.Ranks[i]
		if math.Abs(r.Pending-want.pending) > 1e-6 || math.Abs(r.Rank-want.pending) > 1e-6 || r.Eligible != want.eligible || r.Poll != want.polled {
			t.Errorf("feed %d: %+v, want pending and rank %v, eligible %v, polled %v", i+1, r, want.pending, want.eligible, want.polled)
		}
	}
	code, out, _ = schedRun(t, "", args[:len(args)-1]...)
	header := "hourly at 2026-03-02T12:00:00Z: 288 polls a day over 4 feeds, 2 this cycle\n"
	if code != 0 || !strings.HasPrefix(out, header) || strings.Contains(out, "θ") || strings.Contains(out, "risk") ||
		!strings.Contains(out, "    1         12         5    3h0m0s     1.5000     1.5000  yes\n") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

func TestPolicyWeekdayErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--history", "0101"}, `--start "": want a date`},
		{[]string{"--start", "2026-02-30", "--history", "0101"}, `--start "2026-02-30"`},
		{[]string{"--start", "2026-03-02"}, "--history is required"},
		{[]string{"--start", "2026-03-02", "--history", "01x1"}, `character 3 is 'x'`},
		{[]string{"--start", "2026-03-02", "--history", "01", "--days", "0"}, "--days 0 is outside"},
		{[]string{"--start", "2026-03-02", "--history", strings.Repeat("1", maxHistory+1)}, "more than 100000"},
		{[]string{"--start", "2026-03-02", "--history", "01", "--days", "many"}, "invalid value"},
	}
	for _, tt := range tests {
		code, out, errOut := schedRun(t, "", append([]string{"policy", "weekday"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%.60v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
