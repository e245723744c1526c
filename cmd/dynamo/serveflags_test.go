package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dedup"
)

// TestServeTuningFlags checks that the scheduling and duplicate-detection
// flags reach the configuration, and that values that cannot work are
// refused before anything starts.
func TestServeTuningFlags(t *testing.T) {
	cfg, ok := parseServeArgs([]string{"--budget", "500", "--subscriber-weight", "0.5", "--dedup-min-similarity", "0.7",
		"--dedup-story-window", "2d", "--cache-mib", "16"}, io.Discard)
	if !ok {
		t.Fatal("valid flags refused")
	}
	if cfg.tuning.Budget != 500 || cfg.tuning.C != 0.5 {
		t.Errorf("tuning = %+v, want budget 500 and c 0.5", cfg.tuning)
	}
	if cfg.duplicates.MinSimilarity != 0.7 || cfg.duplicates.Window != 48*time.Hour {
		t.Errorf("duplicates = %+v, want a similarity of 0.7 and a 48h window", cfg.duplicates)
	}
	if cfg.cacheBytes != 16<<20 {
		t.Errorf("cache of %d bytes, want 16 MiB", cfg.cacheBytes)
	}
	if off, ok := parseServeArgs([]string{"--cache-mib", "0"}, io.Discard); !ok || off.cacheBytes >= 0 {
		t.Errorf("--cache-mib 0 gives a cache of %d bytes, want none (negative)", off.cacheBytes)
	}

	defaults, ok := parseServeArgs(nil, io.Discard)
	if !ok || defaults.duplicates.MinSimilarity != 0 || defaults.duplicates.Window != 72*time.Hour || defaults.tuning.Budget != 0 || defaults.cacheBytes != 64<<20 {
		t.Errorf("defaults = %+v %+v, want the tuned similarity, a 72h window, the policies' own budget and a 64 MiB cache", defaults.duplicates, defaults.tuning)
	}

	for _, bad := range [][]string{
		{"--dedup-k", "65"},
		{"--dedup-k", "-1"},
		{"--dedup-story-window", "0s"},
		{"--dedup-story-window", "soon"},
		{"--dedup-window", "0s"},
		{"--dedup-min-similarity", "1.5"},
		{"--dedup-min-similarity", "-0.1"},
		{"--budget", "-1"},
		{"--cache-mib", "-1"},
	} {
		if _, ok := parseServeArgs(bad, io.Discard); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The flags of issue 7's detector still work, with a warning: --dedup-window
// is the story window, and --dedup-k sets the similarity its distance
// estimates unless --dedup-min-similarity is given.
func TestServeDeprecatedDedupFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		similarity float64
		window     time.Duration
		warnings   []string
	}{
		{[]string{"--dedup-window", "2d"}, 0, 48 * time.Hour, []string{"--dedup-window is deprecated: use --dedup-story-window"}},
		{[]string{"--dedup-k", "9"}, dedup.SimilarityOfDistance(9), 72 * time.Hour, []string{"--dedup-k is deprecated", "--dedup-min-similarity to 0.82"}},
		{[]string{"--dedup-k", "9", "--dedup-min-similarity", "0.6"}, 0.6, 72 * time.Hour, []string{"--dedup-k is deprecated and ignored beside --dedup-min-similarity"}},
	} {
		var errOut strings.Builder
		cfg, ok := parseServeArgs(tc.args, &errOut)
		if !ok || cfg.duplicates.MinSimilarity != tc.similarity || cfg.duplicates.Window != tc.window {
			t.Errorf("%q: %v, %+v; want similarity %v, window %v", tc.args, ok, cfg.duplicates, tc.similarity, tc.window)
		}
		for _, w := range tc.warnings {
			if !strings.Contains(errOut.String(), w) {
				t.Errorf("%q: warnings %q lack %q", tc.args, errOut.String(), w)
			}
		}
	}
}

// --public-url and --trusted-proxy are read and checked before anything
// starts.
func TestServeAuthorityFlags(t *testing.T) {
	cfg, ok := parseServeArgs([]string{"--public-url", "https://feeds.example.org/", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "192.0.2.7"}, io.Discard)
	if !ok || cfg.publicURL != "https://feeds.example.org" || len(cfg.trustedProxies) != 2 || cfg.trustedProxies[1].String() != "192.0.2.7/32" {
		t.Errorf("valid flags: ok %v, public URL %q, proxies %v", ok, cfg.publicURL, cfg.trustedProxies)
	}
	for _, bad := range [][]string{
		{"--public-url", "feeds.example.org"},
		{"--public-url", "ftp://feeds.example.org"},
		{"--public-url", "https://feeds.example.org/?x=1"},
		{"--public-url", "https://user@feeds.example.org"},
		{"--trusted-proxy", "proxy.example"},
		{"--trusted-proxy", "10.0.0.0/33"},
	} {
		var out strings.Builder
		if _, ok := parseServeArgs(bad, &out); ok || !strings.Contains(out.String(), bad[0]) {
			t.Errorf("%q: accepted or not named in %q", bad, out.String())
		}
	}
}

// The budgets' flags reach the configuration, with their defaults, and
// values that cannot work are refused.
func TestServeBudgetFlags(t *testing.T) {
	cfg, ok := parseServeArgs([]string{"--max-items", "100", "--max-answer-mib", "8", "--heavy-reads", "3", "--read-timeout", "5s", "--write-timeout", "30s"}, io.Discard)
	want := budgets{maxItems: 100, maxAnswerBytes: 8 << 20, heavyReads: 3, readTimeout: 5 * time.Second, writeTimeout: 30 * time.Second}
	if !ok || cfg.budgets != want {
		t.Errorf("budgets %+v, want %+v", cfg.budgets, want)
	}
	defaults, ok := parseServeArgs(nil, io.Discard)
	if !ok || defaults.budgets.maxItems != 5000 || defaults.budgets.maxAnswerBytes != 32<<20 || defaults.budgets.readTimeout != defaultReadTimeout || defaults.budgets.writeTimeout != defaultWriteTimeout || defaults.budgets.heavyReads < 2 {
		t.Errorf("default budgets %+v", defaults.budgets)
	}
	for _, bad := range [][]string{{"--max-items", "0"}, {"--max-answer-mib", "0"}, {"--heavy-reads", "0"}, {"--read-timeout", "0s"}, {"--write-timeout", "100ms"}} {
		var out strings.Builder
		if _, ok := parseServeArgs(bad, &out); ok || !strings.Contains(out.String(), bad[0]) {
			t.Errorf("%q: accepted, or not named in %q", bad, out.String())
		}
	}
}

// --db-replica is repeatable, each URL kept in order; a poller-only
// process refuses it (the poller reads from the primary).
func TestServeReplicaFlags(t *testing.T) {
	one, two := "postgres://standby1/dynamo", "postgres://standby2/dynamo"
	cfg, ok := parseServeArgs([]string{"--role", "api", "--db", "postgres://primary/dynamo", "--db-replica", one, "--db-replica", two}, io.Discard)
	if !ok || len(cfg.replicas) != 2 || cfg.replicas[0] != one || cfg.replicas[1] != two {
		t.Errorf("two --db-replica: ok %v, replicas %q, want both in order", ok, cfg.replicas)
	}
	var errOut strings.Builder
	if _, ok := parseServeArgs([]string{"--role", "poller", "--db", "postgres://primary/dynamo", "--db-replica", one}, &errOut); ok || !strings.Contains(errOut.String(), "--db-replica") {
		t.Errorf("--db-replica with --role poller: accepted %v, %q", ok, errOut.String())
	}
}
