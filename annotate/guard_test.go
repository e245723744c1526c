package annotate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGuardSearch checks guard.safe and guard.spanSafe, which search the
// unsafe stretches, against the walk over them all they replace, on
// random stretches: apart, nested, overlapping, alike, empty and at the
// ends of the text, and offsets in, around and between them.
func TestGuardSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 25))
	for _, c := range []struct {
		name      string
		stretches int
		maxLen    int
	}{
		{"none", 0, 1},
		{"one", 1, 10},
		{"few short", 5, 3},
		{"many short", 60, 4},
		{"many long", 40, 80},
	} {
		for round := 0; round < 50; round++ {
			text := strings.Repeat("x<", 100) // "<" before odd offsets
			g := &guard{text: text}
			for range c.stretches {
				lo := rng.IntN(len(text) + 1)
				g.unsafe = append(g.unsafe, [2]int{lo, min(lo+rng.IntN(c.maxLen), len(text))})
			}
			g.order()
			for at := -1; at <= len(text)+1; at++ {
				if got, want := g.safe(at), safeByWalk(g, at); got != want {
					t.Fatalf("%s: safe(%d) = %v, the walk says %v (stretches %v)", c.name, at, got, want, g.unsafe)
				}
			}
			for range 400 {
				start := rng.IntN(len(text) + 1)
				end := min(start+rng.IntN(40), len(text))
				if got, want := g.spanSafe(start, end), spanSafeByWalk(g, start, end); got != want {
					t.Fatalf("%s: spanSafe(%d, %d) = %v, the walk says %v (stretches %v)", c.name, start, end, got, want, g.unsafe)
				}
			}
		}
	}
}

// safeByWalk is guard.safe as a walk over every stretch.
func safeByWalk(g *guard, at int) bool {
	if at > 0 && at <= len(g.text) && g.text[at-1] == '<' {
		return false
	}
	for _, u := range g.unsafe {
		if u[0] > at {
			break
		}
		if at <= u[1] {
			return false
		}
	}
	return true
}

// spanSafeByWalk is guard.spanSafe as a walk over every stretch.
func spanSafeByWalk(g *guard, start, end int) bool {
	if !safeByWalk(g, start) || !safeByWalk(g, end) {
		return false
	}
	for _, u := range g.unsafe {
		if u[0] >= end {
			break
		}
		if u[0] > start && u[1] >= end {
			return false
		}
	}
	return true
}
