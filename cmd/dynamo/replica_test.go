package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// API processes read from a real hot standby (pgtest.NewPair):
//
//   - an operator who changes a source through one sees the change through
//     the other at once, even while the standby lags (its replay paused),
//     while a public reader of that process is answered by the standby;
//   - a public reader's cached feed answer is dropped when another process
//     (a poller on the primary) stores a new version, and the next answer
//     shows it although the standby, paused, has not replayed it.
func TestServeAPIWithReplica(t *testing.T) {
	t.Setenv("DYNAMO_ADMIN_TOKEN", "s3cret-s3cret-s3cret")
	pair := pgtest.NewPair(t)
	primary, standby := pair.DSN(t)
	first := startServe(t, serveConfig{db: primary, replicas: []string{standby}, role: "api"})
	// The second process's cache is off, so it never watches changes: only
	// the operator's rule can send its reads to the primary.
	second := startServe(t, serveConfig{db: primary, replicas: []string{standby}, role: "api", cacheBytes: -1})

	do := func(method, url, token, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	category := func(base, token string) string {
		t.Helper()
		status, body := do(http.MethodGet, base+"/api/sources/one", token, "")
		var src struct {
			Category string `json:"category"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &src) != nil {
			t.Fatalf("GET /api/sources/one: %d %s", status, body)
		}
		return src.Category
	}

	if status, body := do(http.MethodPost, first+"/api/sources", "s3cret-s3cret-s3cret", `{"id":"one","url":"http://feeds.example.org/one","kind":"html","category":"before"}`); status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	pair.CatchUp(t)
	pair.PauseReplay(t)
	defer pair.ResumeReplay(t)
	if status, body := do(http.MethodPatch, first+"/api/sources/one", "s3cret-s3cret-s3cret", `{"category":"after"}`); status != http.StatusOK {
		t.Fatalf("change: %d %s", status, body)
	}
	if got := category(second, "s3cret-s3cret-s3cret"); got != "after" {
		t.Errorf("the operator reads category %q through the other process, want their own change \"after\"", got)
	}
	if got := category(second, ""); got != "before" {
		t.Errorf("a public reader of the other process reads category %q, want the lagging standby's \"before\"", got)
	}

	pair.ResumeReplay(t)

	// Feed freshness. The poller is another process, on the primary only:
	// the first process learns of its versions by notification alone.
	origin := newWireOrigin(t, "a")
	poller := startServe(t, serveConfig{db: primary, role: "all", allowPrivate: true, hostGap: -1})
	const token = "s3cret-s3cret-s3cret"
	admin(t, http.MethodPost, poller+"/api/sources", token, `{"id":"wire","url":"`+origin.srv.URL+`","kind":"feed","policy":"flat","interval":"24h"}`)
	admin(t, http.MethodPost, poller+"/api/sources/wire/poll", token, "")
	pair.CatchUp(t)
	feed := func() string {
		t.Helper()
		resp, body := get(t, first+"/resources/wire?max=10&type=json")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /resources/wire: %s %s", resp.Status, body)
		}
		return body
	}
	hits := cacheHits(t, first)
	if body := feed(); !strings.Contains(body, "Story a") {
		t.Fatalf("the public feed lacks the first version's story:\n%s", body)
	}
	feed()
	if cacheHits(t, first) == hits {
		t.Fatal("the second read of the public feed missed the cache: the freshness below would prove nothing")
	}
	pair.PauseReplay(t)
	defer pair.ResumeReplay(t)
	origin.set("b", "a")
	admin(t, http.MethodPost, poller+"/api/sources/wire/poll", token, "")
	for deadline := time.Now().Add(time.Minute); !strings.Contains(feed(), "Story b"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a minute after another process stored a new version, the public feed still lacks it:\n%s", feed())
		}
	}
}
