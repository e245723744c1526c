//go:build unix

package wrapper

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system, on
// all its threads (the garbage collector's included). On a machine shared
// with other work, CPU time per operation is steadier than wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
