package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
)

// TestVersion: `dynamo version` and `dynamo --version` print the build as
// internal/buildinfo reads it; a binary built from this checkout names the
// checkout's commit (or "unknown" in a copy without .git).
func TestVersion(t *testing.T) {
	want := "dynamo " + buildinfo.Read().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, stdout, stderr := run(t, "", args...); code != 0 || stdout != want {
			t.Errorf("dynamo %s: exit %d, stdout %q, want %q; stderr %q", args[0], code, stdout, want, stderr)
		}
	}
	if code, _, _ := run(t, "", "version", "extra"); code != 2 {
		t.Errorf("dynamo version extra: exit %d, want 2", code)
	}

	// A real binary, stamped as `go build` stamps it where it can see the
	// repository (-buildvcs=auto overrides a GOFLAGS=-buildvcs=false):
	// it must print what the toolchain's own reader (`go version -m`)
	// finds in it, and a revision found must be this checkout's commit.
	binary := filepath.Join(t.TempDir(), "dynamo")
	// go test puts its own toolchain first on the PATH of its tests.
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	meta, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	version, revision := "devel", "unknown"
	for line := range strings.Lines(string(meta)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[2] != "(devel)":
			version = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
			head, err := exec.Command("git", "rev-parse", "HEAD").Output()
			if err != nil || strings.TrimSpace(string(head)) != revision {
				t.Errorf("the binary is stamped with revision %s, but HEAD is %q (%v)", revision, head, err)
			}
		}
	}
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		t.Fatalf("dynamo --version: %v", err)
	}
	if want := "dynamo " + version + " (revision " + revision; !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), "go1.") {
		t.Errorf("the built binary says %q, want it to start %q and name the toolchain", out, want)
	}
	t.Logf("the built binary says %s", out)

	// The same build names itself in the User-Agent of its fetches:
	// Dynamo/ and the version, or for a build without one the revision.
	short := version
	if version == "devel" && revision != "unknown" {
		short = "devel-" + revision[:min(12, len(revision))]
	}
	wantUA := "Dynamo/" + short + " (+https://github.com/dynamo-feeds/dynamo)"
	var (
		mu     sync.Mutex
		agents []string
	)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.URL.Path+" "+r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Town</title><link>http://town.example/</link><description>d</description><item><title>One</title><link>http://town.example/1</link></item></channel></rss>`)
	}))
	defer site.Close()
	if out, err := exec.Command(binary, "discover", "--allow-private", "--timeout", "1m", site.URL+"/feed.xml").CombinedOutput(); err != nil {
		t.Fatalf("dynamo discover: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) == 0 {
		t.Fatal("dynamo discover sent no request")
	}
	for _, a := range agents {
		if _, ua, _ := strings.Cut(a, " "); ua != wantUA {
			t.Errorf("request %q, want the User-Agent %q", a, wantUA)
		}
	}
}

// TestServeThatCannotBindCreatesNoStore: an address in use stops serve
// with exit 1 before it opens, and so creates, the embedded store's file.
func TestServeThatCannotBindCreatesNoStore(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(t.TempDir(), "dynamo.db")
	code, _, stderr := run(t, "", "serve", "--addr", busy.Addr().String(), "--db", db)
	if code != 1 || !strings.Contains(stderr, "listen") {
		t.Errorf("serve on a busy address: exit %d, stderr %q; want 1 and the listen error", code, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("serve that could not bind left %s behind (stat: %v)", db, err)
	}
}
