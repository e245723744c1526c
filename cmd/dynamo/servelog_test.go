package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
)

// syncWriter is a log's output, written by serve's goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// serveLogged runs serve with the flags args until one request to /healthz
// is answered, and returns what it logged.
func serveLogged(t *testing.T, args ...string) string {
	t.Helper()
	cfg, ok := parseServeArgs(append([]string{"--addr", "127.0.0.1:0", "--db", sqlitetest.Path(t, t.TempDir(), "dynamo.db")}, args...), io.Discard)
	if !ok {
		t.Fatalf("flags %q refused", args)
	}
	var out syncWriter
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, newLogger(cfg, &out), ready) }()
	select {
	case addr := <-ready:
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	case err := <-done:
		t.Fatalf("serve did not start: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestServeLogs: --log-format json writes one object per line: the
// start-up line (version, store, address, role, policy), the access log's
// line per request, shutdown; --log-level warn keeps only warnings and
// the access log; bad values are usage mistakes.
func TestServeLogs(t *testing.T) {
	t.Parallel()
	logged := serveLogged(t, "--log-format", "json", "--access-log", "--policy", "flat")
	var msgs []string
	for line := range strings.Lines(logged) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		msg, _ := rec["msg"].(string)
		msgs = append(msgs, msg)
		switch msg {
		case "dynamo serving":
			if rec["version"] != buildinfo.Read().String() || !strings.HasPrefix(rec["store"].(string), "embedded ") ||
				!strings.HasPrefix(rec["addr"].(string), "127.0.0.1:") || rec["role"] != "all" || rec["policy"] != "flat" || rec["level"] != "INFO" {
				t.Errorf("start-up line %v, want version, store, addr, role and policy at INFO", rec)
			}
		case "request":
			if rec["method"] != "GET" || rec["route"] != "/healthz" || rec["status"] != float64(200) || rec["bytes"].(float64) <= 0 || rec["remote"] == "" {
				t.Errorf("access line %v", rec)
			}
		}
	}
	for _, want := range []string{"dynamo serving", "request", "dynamo stopped"} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no %q line among %q", want, msgs)
		}
	}

	quiet := serveLogged(t, "--log-level", "warn", "--access-log")
	if strings.Contains(quiet, "dynamo serving") || !strings.Contains(quiet, "msg=request") || !strings.Contains(quiet, "route=/healthz") {
		t.Errorf("--log-level warn --access-log logged:\n%s\nwant the access log's text line and no info", quiet)
	}

	for _, bad := range [][]string{{"--log-level", "loud"}, {"--log-format", "xml"}} {
		if code, _, stderr := run(t, "", append([]string{"serve"}, bad...)...); code != 2 || !strings.Contains(stderr, bad[0][2:]) {
			t.Errorf("serve %q: exit %d, stderr %q; want 2 naming the flag", bad, code, stderr)
		}
	}
}
