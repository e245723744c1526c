package poller

import (
	"fmt"
	"testing"

	"github.com/dynamo-feeds/dynamo/dedup"
)

// The cache answers what dedup.Fingerprint answers, for inputs seen before
// and new ones, and keeps at most two generations of entries.
func TestFingerprintCache(t *testing.T) {
	c := newFingerprintCache()
	inputs := [][3]string{
		{"Council approves budget", "<p>After four hours of debate…</p>", ""},
		{"Council approves budget", "<p>After four hours of debate…</p>", "Courier: "},
		{"Council approves", "budget <p>After four hours of debate…</p>", ""}, // same bytes, split elsewhere
		{"Bridge reopens on Monday", "", ""},
		{"", "", ""},
	}
	for round := range 2 { // the second round reads the cache
		for _, in := range inputs {
			if got, want := c.fingerprint(in[0], in[1], in[2]), dedup.Fingerprint(in[0], in[1], in[2]); got != want {
				t.Errorf("round %d, %q: %016x, want %016x", round, in, got, want)
			}
		}
	}
	if len(c.cur) != len(inputs) {
		t.Errorf("%d entries, want %d", len(c.cur), len(inputs))
	}

	// Past a generation's size the oldest entries go; an entry still in
	// use moves to the current generation and stays.
	kept := inputs[0]
	for i := range 3 * fingerprintGeneration {
		c.fingerprint(fmt.Sprintf("story %d", i), "", "")
		if i%1000 == 0 {
			c.fingerprint(kept[0], kept[1], kept[2])
		}
	}
	if n := len(c.cur) + len(c.old); n > 2*fingerprintGeneration {
		t.Errorf("%d entries, want at most %d", n, 2*fingerprintGeneration)
	}
	before := len(c.cur) + len(c.old)
	if got, want := c.fingerprint(kept[0], kept[1], kept[2]), dedup.Fingerprint(kept[0], kept[1], kept[2]); got != want {
		t.Errorf("kept entry: %016x, want %016x", got, want)
	}
	if after := len(c.cur) + len(c.old); after > before+1 {
		t.Errorf("looking up a kept entry added %d entries", after-before)
	}
}
