package cputime

import (
	"testing"
	"time"
)

// Spinning for 50 ms of wall time uses CPU time, which Process sees grow:
// at least a millisecond of it however loaded the machine is (the spin
// runs whenever it is scheduled).
func TestProcessGrowsWithWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("this platform does not tell a process's CPU time")
	}
	spin := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		spin++
	}
	after, _ := Process()
	if used := after - before; used < time.Millisecond {
		t.Errorf("%v of CPU time for 50 ms of spinning (%d turns)", used, spin)
	}
}
