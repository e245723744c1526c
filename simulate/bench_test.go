package simulate

import (
	"context"
	"testing"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// One simulated run per policy: 100 synthetic feeds over 14 days at 4
// polls a feed a day. flat, whose scheduling costs next to nothing, is the
// baseline: the difference is what each policy's learning and planning
// cost on top of the replay.
func BenchmarkRun(b *testing.B) {
	tr, err := Synthetic(Poisson, 100, 1, 14)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range policy.Names() {
		b.Run(name, func(b *testing.B) {
			opts := Options{Policies: []string{name}, Budgets: []int{400}, Workers: 1}
			for b.Loop() {
				if _, err := Run(context.Background(), tr, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
