package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/transform"
)

// TestCacheDropsAcrossProcesses runs two API servers, each with a store
// connection of its own to one PostgreSQL database, as two Dynamo processes
// would. A version stored through one must drop the other's cached answer.
func TestCacheDropsAcrossProcesses(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	open := func(testing.TB) dynamo.Store {
		s, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	first := newsEnv(t, open)
	second := newEnv(t, open(t))
	const path = "/resources/news?max=5&type=atom"
	_, before := parseFeed(t, second.get(path).must(t, 200, "second process reads").body, transform.Atom)
	second.get(path).must(t, 200, "second process reads again (cached)")
	if len(before) != 4 {
		t.Fatalf("second process sees %d items, want 4", len(before))
	}
	news := story{"News from the first process", "/n", "Polled elsewhere."}
	first.origin.set("/news.html", annotatedPage("Test News", news, delta))
	if out := first.poll("news"); out.Status != dynamo.StatusChanged {
		t.Fatalf("poll in the first process: %+v", out)
	}
	waitFor(t, "the second process drops its cached answer", func() error {
		_, entries := parseFeed(t, second.get(path).must(t, 200, "second process").body, transform.Atom)
		if len(entries) == 0 || entries[0].title != news.title {
			return fmt.Errorf("second process serves %q: %w", titlesOf(entries), errNotYet)
		}
		return nil
	})
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	store := stores[0].open(t)
	if _, err := api.New(api.Config{}); err == nil {
		t.Error("New without a store succeeded")
	}
	if _, err := api.New(api.Config{Store: store, BaseURL: "feeds.example.org"}); err == nil {
		t.Error("New with a relative base URL succeeded")
	}
	e := newEnv(t, store, func(c *api.Config) { c.BaseURL = "https://feeds.example.org/" })
	// Under a public URL every change needs the token (access_test.go).
	if err := store.CreateSource(t.Context(), &dynamo.Source{ID: "news", URL: e.origin.URL + "/news.html", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}); err != nil {
		t.Fatal(err)
	}
	body := string(e.get("/resources?type=atom").must(t, http.StatusOK, "collections").body)
	for _, want := range []string{`href="https://feeds.example.org/resources/news?type=atom"`, `rel="self" type="application/atom+xml" href="https://feeds.example.org/resources?type=atom"`} {
		if !strings.Contains(body, want) {
			t.Errorf("collections feed lacks %s:\n%s", want, body)
		}
	}
}
