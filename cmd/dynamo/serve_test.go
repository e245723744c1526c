package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/storage"
)

// startServe runs serve in the background on a free loopback port and
// returns its base URL; the server stops when the test ends.
func startServe(t *testing.T, cfg serveConfig) string {
	t.Helper()
	if cfg.addr == "" {
		cfg.addr = "127.0.0.1:0"
	}
	if cfg.role == "" {
		cfg.role = "all"
	}
	if cfg.workers == 0 {
		cfg.workers = 4
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), ready) }()
	select {
	case addr := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		return "http://" + addr
	case err := <-done:
		cancel()
		t.Fatalf("serve did not start: %v", err)
	}
	return ""
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestServeDemoPollsEveryExampleAndFindsTheWireCopies(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dynamo.db")
	base := startServe(t, serveConfig{db: db, demo: true, allowPrivate: true})
	var stats dynamo.Stats
	deadline := time.Now().Add(30 * time.Second)
	for {
		getJSON(t, base+"/api/stats", &stats)
		if stats.Versions == 6 && stats.Duplicates > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo not polled within 30s: %+v", stats)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The wire feed is the news page as RSS: its stories are the news
	// page's, polled by another source.
	for _, s := range stats.PerSource {
		if s.ID == "wire" && s.Duplicates == 0 {
			t.Errorf("no wire story recognized as a duplicate: %+v", s)
		}
	}
	resp, err := http.Get(base + "/resources/news?max=5&type=atom")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "<entry>") {
		t.Fatalf("news archive has no entries:\n%s", body)
	}
	verify.Atom(t, body)
	verify.Feed(t, body, "atom10")
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", path, resp.Status)
		}
	}
}

func TestServeAppliesSourcesFileAndShutsDownCleanly(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "dynamo.db")
	file := filepath.Join(dir, "sources.yaml")
	os.WriteFile(file, []byte("sources:\n  - id: one\n    url: http://127.0.0.1:9/one\n    kind: html\n    interval: 2h\n    category: town\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, serveConfig{addr: "127.0.0.1:0", db: db, sourcesFile: file, role: "all", workers: 2}, slog.New(slog.DiscardHandler), ready)
	}()
	<-ready
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := st.Source(context.Background(), "one")
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != dynamo.KindHTML || time.Duration(src.Interval) != 2*time.Hour || src.Category != "town" {
		t.Fatalf("source from file: %+v", src)
	}
	if src.Summary.LeaseOwner != "" {
		t.Fatalf("lease kept after shutdown by %s", src.Summary.LeaseOwner)
	}
}

func TestParseSourcesFileRefusesMistakes(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"not a list", "id: x", "list of sources"},
		{"unknown field", `[{"id":"a","url":"http://a/","colour":"red"}]`, "colour"},
		{"bad kind", `[{"id":"a","url":"http://a/","kind":"rss"}]`, "kind must be"},
		{"bad interval", `[{"id":"a","url":"http://a/","interval":"soon"}]`, "entry 1"},
		{"no url", `[{"id":"a"}]`, "url is required"},
		{"state", `[{"id":"a","url":"http://a/","state":{}}]`, "kept by Dynamo"},
		{"twice", "- {id: a, url: 'http://a/'}\n- {id: a, url: 'http://b/'}\n", "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSourcesFile([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
