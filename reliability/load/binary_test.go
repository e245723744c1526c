package load_test

import (
	"bufio"
	"fmt"
	"github.com/dynamo-feeds/dynamo/internal/logtest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDir holds the dynamo binary the tests build once; TestMain removes it.
var (
	binDir   string
	build    sync.Once
	binary   string
	buildErr error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// dynamoBinary builds cmd/dynamo once for the package's tests and returns
// its path: memory and wrk figures are those of the real binary.
func dynamoBinary(t testing.TB) string {
	t.Helper()
	build.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "dynamo-load-bin-")
		if buildErr != nil {
			return
		}
		binary = filepath.Join(binDir, "dynamo")
		// go test puts its own toolchain's bin first on the PATH of the
		// tests it runs, so "go" is the toolchain testing this package.
		cmd := exec.Command("go", "build", "-o", binary, "github.com/dynamo-feeds/dynamo/cmd/dynamo")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/dynamo: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// serveProcess is a running `dynamo serve`.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string // host:port it listens on
	base string // http://addr
	logs *logtest.Buffer
}

// startServe runs `dynamo serve --addr 127.0.0.1:0` with args in a
// temporary directory and waits until it serves. The process is stopped
// with SIGTERM (killed if it does not stop within 30 s) when the test ends;
// its log is shown if the test failed.
func startServe(t testing.TB, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(dynamoBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "DYNAMO_ADMIN_TOKEN=", "DATABASE_URL=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dynamo serve: %v", err)
	}
	p := &serveProcess{cmd: cmd, logs: &logtest.Buffer{}}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(p.logs, line)
			if strings.Contains(line, "msg=\"dynamo serving\"") {
				for _, f := range strings.Fields(line) {
					if a, ok := strings.CutPrefix(f, "addr="); ok {
						ready <- a
					}
				}
			}
		}
		io.Copy(p.logs, stderr)
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			// SIGQUIT makes the Go runtime print every goroutine's
			// stack before exiting: the log then shows where it hung.
			cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			t.Errorf("dynamo serve did not stop within 30 s of SIGTERM; its goroutines:\n%s", tail(p.logs.String(), 256<<10))
		}
		if t.Failed() {
			t.Logf("dynamo serve log (last 4 kB):\n%s", tail(p.logs.String(), 4096))
		}
	})
	select {
	case p.addr = <-ready:
	case <-exited:
		t.Fatalf("dynamo serve exited before serving:\n%s", tail(p.logs.String(), 4096))
	case <-time.After(5 * time.Minute):
		t.Fatalf("dynamo serve not serving after 5 minutes:\n%s", tail(p.logs.String(), 4096))
	}
	p.base = "http://" + p.addr
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// memory reads the process's resident set now (VmRSS) and at its peak
// (VmHWM), in bytes, from /proc.
func (p *serveProcess) memory(t testing.TB) (rss, hwm int64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("read /proc status of dynamo serve: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("/proc status: %s: %v", line, err)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	if rss == 0 || hwm == 0 {
		t.Fatalf("no VmRSS/VmHWM in /proc status:\n%s", data)
	}
	return rss, hwm
}

// mb writes bytes as megabytes (MiB) for the log.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
