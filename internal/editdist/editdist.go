// Package editdist measures how far a mistyped name is from the names it
// may have meant: the wrapper's unknown annotations and a source's unknown
// fields both suggest the nearest ("did you mean ...?").
package editdist

// Distance is the optimal string alignment distance between a and b
// (Levenshtein's, with the swap of two neighbouring letters as one edit),
// or limit+1 when it exceeds limit (or when the lengths alone tell it
// would).
func Distance(a, b string, limit int) int {
	if len(a)-len(b) > limit || len(b)-len(a) > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// Nearest returns the name of names closest to name, and whether it is near
// enough to suggest: at most two edits away, and no more than a quarter of
// name's length (a short name is not "near" one of a different word).
func Nearest(name string, names []string) (guess string, near bool) {
	best := 3
	for _, n := range names {
		if d := Distance(name, n, 2); d < best {
			best, guess = d, n
		}
	}
	return guess, best <= 2 && 4*best <= len(name)
}
