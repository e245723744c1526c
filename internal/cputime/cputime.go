// Package cputime reads the CPU time the process has used, which
// benchmarks report beside their wall time: on a machine shared with other
// work, a run's wall time says as much about the others' load as about the
// run, while its CPU time says what the run cost.
package cputime

import "time"

// Process returns the user and system CPU time the process has used so
// far, and false where the platform does not tell it.
func Process() (time.Duration, bool) { return process() }
