package policy_test

import (
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// Five polls a period among a busy feed showing 5 items, a slower one
// showing 10 and a quiet one: min-missing gives the busy feed three polls,
// which collect all its twelve postings.
func ExampleAllocate() {
	feeds := []policy.Feed{{Rate: 12, Capacity: 5}, {Rate: 3, Capacity: 10}, {Rate: 1, Capacity: 5}}
	polls, err := policy.Allocate(policy.MinMissing, 5, feeds)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, f := range feeds {
		fmt.Printf("feed %d: %d polls, %g missed\n", i+1, polls[i], policy.Missed(f, polls[i]))
	}
	// Output:
	// feed 1: 3 polls, 0 missed
	// feed 2: 1 polls, 0 missed
	// feed 3: 1 polls, 0 missed
}

// A source that published on the four Wednesdays of February is expected
// again on Wednesday.
func ExampleForecast() {
	start := time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC)
	var history []bool
	for _, c := range "0100000010000001000000100000" {
		history = append(history, c == '1')
	}
	forecast := policy.Forecast(start, history, 3)
	for _, d := range forecast {
		fmt.Printf("%s %-9s %.2f\n", d.Date.Format(time.DateOnly), d.Date.Weekday(), d.P)
	}
	next, _ := policy.Predicted(forecast)
	fmt.Println("next:", next.Format(time.DateOnly))
	// Output:
	// 2026-03-03 Tuesday   0.01
	// 2026-03-04 Wednesday 0.91
	// 2026-03-05 Thursday  0.01
	// next: 2026-03-04
}

// The life of a source under smart: learn from each poll, then ask for
// the next one.
func ExamplePolicy() {
	smart, err := policy.ByName(policy.Smart, policy.Config{Alpha: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	var state policy.State
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, h := range []int{0, 2, 4} { // the content changes every 2 hours
		state.Learn(policy.Observation{At: t0.Add(time.Duration(h) * time.Hour), NewItems: 1, ItemsSeen: 10, Changed: true})
	}
	src := policy.Source{ID: "news", Interval: time.Hour, State: &state}
	fmt.Println(smart.Next(src, state.LastRetrieval).Format(time.TimeOnly))
	// τ: 1h, then ½·1h + ½·2h = 1.5h, then ½·1.5h + ½·2h = 1.75h after 13:00.
	// Output:
	// 14:45:00
}
