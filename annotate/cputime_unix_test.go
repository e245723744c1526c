//go:build unix

package annotate_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system time so far. On a machine
// shared with other work, a run's wall time says as much about the others
// as about the run; its CPU time says what the run cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
