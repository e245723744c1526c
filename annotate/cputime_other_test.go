//go:build !unix

package annotate_test

import "time"

// cpuTime is unknown here: the benchmark reports wall time alone.
func cpuTime() time.Duration { return 0 }
