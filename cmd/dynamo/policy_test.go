package main

import (
	"bytes"
	"context"
	"encoding/json"
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
			// SPEC §11's example: min-missing, budget 5. Gains 5|3|1 → A
			// (7 left), 5|3|1 → A (2), 2|3|1 → B (0), 2|0|1 → A (0),
			// 0|0|1 → C.
			name: "spec example json",
			args: []string{"--policy", "min-missing", "--budget", "5", "--feed", "12:5", "--feed", "3:10", "--feed", "1:5", "--json"},
			want: `{"policy":"min-missing","budget":5,"feeds":[{"rate":12,"capacity":5,"weight":1,"polls":3,"missed":0},{"rate":3,"capacity":10,"weight":1,"polls":1,"missed":0},{"rate":1,"capacity":5,"weight":1,"polls":1,"missed":0}],"missed":0}` + "\n",
		},
		{
			name: "spec example text",
			args: []string{"--policy", "min-missing", "--budget", "5", "--feed", "12:5", "--feed", "3:10", "--feed", "1:5"},
			want: `min-missing: 5 polls per period over 3 feeds
 feed       rate  capacity   weight  polls   missed
    1         12         5        1      3        0
    2          3        10        1      1        0
    3          1         5        1      1        0
total                                   5        0
`,
		},
		{
			// Uniform: 2 each would be 4, the fifth to the first; A misses
			// 12 − 3·5 < 0 → 0, B 3 − 1·1 = 2.
			name: "uniform",
			args: []string{"--policy", "uniform", "--budget", "5", "--feed", "12:5", "--feed", "3:1", "--json"},
			want: `{"policy":"uniform","budget":5,"feeds":[{"rate":12,"capacity":5,"weight":1,"polls":3,"missed":0},{"rate":3,"capacity":1,"weight":1,"polls":2,"missed":1}],"missed":1}` + "\n",
		},
		{
			// min-delay: √(1·12) : √(4·0.75) = 3.46 : 1.73 of 4 polls is
			// 2.67 and 1.33, rounded to 3 and 1; the second collects its
			// 0.75 postings with its one poll.
			name: "min-delay weights",
			args: []string{"--policy=min-delay", "--budget=4", "--feed=12:5", "--feed=0.75:1:4", "--json"},
			want: `{"policy":"min-delay","budget":4,"feeds":[{"rate":12,"capacity":5,"weight":1,"polls":3,"missed":0},{"rate":0.75,"capacity":1,"weight":4,"polls":1,"missed":0}],"missed":0}` + "\n",
		},
		{
			// Fractions are printed as they are, without float noise:
			// 0.7 − 0.4 is 0.3, not 0.29999999999999993.
			name: "fractional missed",
			args: []string{"--policy", "min-missing", "--budget", "0", "--feed", "0.7:2", "--feed", "0.4:1"},
			want: `min-missing: 0 polls per period over 2 feeds
 feed       rate  capacity   weight  polls   missed
    1        0.7         2        1      0      0.7
    2        0.4         1        1      0      0.4
total                                   0      1.1
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
		{[]string{"--policy", "uniform", "--budget", "-2", "--feed", "1:1"}, "--budget is required"},
	}
	for _, tt := range tests {
		code, out, errOut := schedRun(t, "", append([]string{"policy", "allocate"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	if code, _, errOut := schedRun(t, "", "policy", "juggle"); code != 2 || !strings.Contains(errOut, `unknown subcommand "juggle"`) {
		t.Errorf("unknown subcommand: exit %d, %q", code, errOut)
	}
	if code, out, _ := schedRun(t, "", "policy"); code != 0 || !strings.Contains(out, "dynamo policy allocate") {
		t.Errorf("bare policy: exit %d, %q", code, out)
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
	want := `date        weekday       p
2026-03-03  Tuesday    0.01
2026-03-04  Wednesday  0.91
2026-03-05  Thursday   0.01
2026-03-06  Friday     0.01
2026-03-07  Saturday   0.01
2026-03-08  Sunday     0.01
2026-03-09  Monday     0.01
next update: 2026-03-04
`
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	code, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-02-03", "--history", history, "--days", "2", "--json")
	wantJSON := `{"days":[{"date":"2026-03-03","weekday":"Tuesday","p":0.01},{"date":"2026-03-04","weekday":"Wednesday","p":0.91}],"next":"2026-03-04"}` + "\n"
	if code != 0 || out != wantJSON {
		t.Errorf("json: exit %d\ngot  %s\nwant %s", code, out, wantJSON)
	}
	// Daily for a week, then silent for a week: Ū = 7/14 and β = 1/2
	// give exactly 0.5 on the next Monday, which is the predicted day.
	code, out, _ = schedRun(t, "", "policy", "weekday", "--start", "2026-03-02", "--history", "11111110000000", "--days", "1", "--json")
	if want := `{"days":[{"date":"2026-03-16","weekday":"Monday","p":0.5}],"next":"2026-03-16"}` + "\n"; code != 0 || out != want {
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
