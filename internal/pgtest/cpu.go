package pgtest

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ServerCPU returns the CPU time (user and system) that the server's
// processes serving dsn's database have used so far: the backends whose
// process titles name the database ("postgres: user db host(port) …"),
// read from /proc on the same machine. A benchmark adds it to its own
// process's CPU time to know what an operation costs the machine, not
// only the client. The server's shared processes (WAL writer,
// checkpointer) serve every database and are not counted. False where
// /proc cannot tell it (another OS, a remote server) or dsn names no
// database.
func ServerCPU(dsn string) (time.Duration, bool) {
	u, err := url.Parse(dsn)
	db := strings.TrimPrefix(u.Path, "/")
	if err != nil || db == "" {
		return 0, false
	}
	stats, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(stats) == 0 {
		return 0, false
	}
	mark := []byte(" " + db + " ")
	var ticks int64
	for _, cmdline := range stats {
		title, err := os.ReadFile(cmdline)
		if err != nil || !bytes.HasPrefix(title, []byte("postgres: ")) || !bytes.Contains(title, mark) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(cmdline), "stat"))
		if err != nil {
			continue // the backend ended
		}
		// The fields after the command's closing parenthesis: state is
		// the first, utime the 12th, stime the 13th (proc(5)).
		end := bytes.LastIndexByte(stat, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(string(stat[end+1:]))
		if len(fields) < 13 {
			continue
		}
		user, err1 := strconv.ParseInt(fields[11], 10, 64)
		system, err2 := strconv.ParseInt(fields[12], 10, 64)
		if err1 == nil && err2 == nil {
			ticks += user + system
		}
	}
	// /proc counts in USER_HZ, 100 a second on Linux whatever the kernel's
	// own tick.
	return time.Duration(ticks) * (time.Second / 100), true
}
