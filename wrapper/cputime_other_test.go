//go:build !unix

package wrapper

import "time"

// cpuTime is not measured where getrusage does not exist; benchmarks then
// report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
