package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/storage"
)

// asDynamo, when set, makes the test binary the dynamo command (its
// arguments those after the binary's name), for tests that kill a real
// process.
const asDynamo = "DYNAMO_TEST_AS_DYNAMO"

func TestMain(m *testing.M) {
	if os.Getenv(asDynamo) != "" {
		main()
	}
	os.Exit(m.Run())
}

// startDynamo runs the dynamo command in a process of its own, ended with
// SIGKILL when the test ends if it is still running.
func startDynamo(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asDynamo+"=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// waitHealthy waits until base answers /healthz.
func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/healthz not answering after 30s: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A process killed (SIGKILL) in the middle of a poll leaves its lease
// behind. Restarted with the same address, it is the same poller: it takes
// its leases back at start, so poll-now answers at once instead of 409
// until the lease expires (2 minutes by default).
func TestRestartedProcessTakesBackItsLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var (
		mu       sync.Mutex
		requests int
		first    = make(chan struct{})
		release  = make(chan struct{})
	)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		if n == 1 { // the poll in flight when its process is killed
			close(first)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprint(w, `<html><body><!-- <item:title> -->Bridge reopens<!-- </item:title> --></body></html>`)
	}))
	defer origin.Close()
	defer close(release)

	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	err = st.CreateSource(ctx, &dynamo.Source{ID: "town", URL: origin.URL + "/news", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "--db", db, "--addr", addr, "--allow-private"}
	base := "http://" + addr

	killed := startDynamo(t, args...)
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("the first process did not poll within 30s")
	}
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait()

	startDynamo(t, args...)
	waitHealthy(t, base)
	resp, err := http.Post(base+"/api/sources/town/poll", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("poll-now after the restart: %s %s", resp.Status, body)
	}
	var out dynamo.PollOutcome
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Status == dynamo.StatusError {
		t.Fatalf("poll-now after the restart: %+v", out)
	}
	var src dynamo.Source
	getJSON(t, base+"/api/sources/town", &src)
	if src.Summary.Versions != 1 {
		t.Errorf("after the restart: %d versions, want 1", src.Summary.Versions)
	}
}
