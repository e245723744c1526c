package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/storage"
)

func TestUserAgentContactFlag(t *testing.T) {
	for _, good := range []string{"mailto:feeds@example.org", "https://example.org/about-our-poller"} {
		if cfg, ok := parseServeArgs([]string{"--user-agent-contact", good}, io.Discard); !ok || cfg.uaContact != good {
			t.Errorf("--user-agent-contact %s refused", good)
		}
	}
	for _, bad := range []string{"feeds@example.org", "ftp://example.org/", "https://example.org/a b", "mailto:", "https://x.org/(x)", "javascript:alert(1)"} {
		var errOut strings.Builder
		if _, ok := parseServeArgs([]string{"--user-agent-contact", bad}, &errOut); ok || !strings.Contains(errOut.String(), "--user-agent-contact") {
			t.Errorf("--user-agent-contact %q accepted (%s)", bad, errOut.String())
		}
	}
}

// The contact reaches the origin in the User-Agent of every request, the
// robots.txt read before the page included, after Dynamo's token.
func TestServeSendsTheUserAgentContact(t *testing.T) {
	ctx := context.Background()
	var (
		mu     sync.Mutex
		agents = map[string]string{}
	)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.URL.Path] = r.UserAgent()
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<html><body><!-- <item:title> -->Bridge reopens<!-- </item:title> --></body></html>`)
	}))
	defer origin.Close()
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	err = st.CreateSource(ctx, &dynamo.Source{ID: "town", URL: origin.URL + "/news", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour), Paused: true})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	base := startServe(t, serveConfig{db: db, allowPrivate: true, hostGap: -1, uaContact: "mailto:feeds@example.org"})
	resp, err := http.Post(base+"/api/sources/town/poll", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("poll-now: %s", resp.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/robots.txt", "/news"} {
		ua := agents[path]
		if !strings.HasPrefix(ua, "Dynamo/") || !strings.Contains(ua, "+mailto:feeds@example.org") {
			t.Errorf("%s asked with User-Agent %q, want Dynamo's with the contact", path, ua)
		}
	}
}
