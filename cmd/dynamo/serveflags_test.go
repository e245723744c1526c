package main

import (
	"io"
	"testing"
	"time"
)

// TestServeTuningFlags checks that the scheduling and duplicate-detection
// flags reach the configuration, and that values that cannot work are
// refused before anything starts.
func TestServeTuningFlags(t *testing.T) {
	cfg, ok := parseServeArgs([]string{"--budget", "500", "--subscriber-weight", "0.5", "--dedup-k", "6", "--dedup-window", "2d", "--cache-mib", "16"}, io.Discard)
	if !ok {
		t.Fatal("valid flags refused")
	}
	if cfg.tuning.Budget != 500 || cfg.tuning.C != 0.5 {
		t.Errorf("tuning = %+v, want budget 500 and c 0.5", cfg.tuning)
	}
	if cfg.duplicates.K != 6 || cfg.duplicates.Window != 48*time.Hour {
		t.Errorf("duplicates = %+v, want k 6 and a 48h window", cfg.duplicates)
	}
	if cfg.cacheBytes != 16<<20 {
		t.Errorf("cache of %d bytes, want 16 MiB", cfg.cacheBytes)
	}
	if off, ok := parseServeArgs([]string{"--cache-mib", "0"}, io.Discard); !ok || off.cacheBytes >= 0 {
		t.Errorf("--cache-mib 0 gives a cache of %d bytes, want none (negative)", off.cacheBytes)
	}

	defaults, ok := parseServeArgs(nil, io.Discard)
	if !ok || defaults.duplicates.K != 9 || defaults.duplicates.Window != 72*time.Hour || defaults.tuning.Budget != 0 || defaults.cacheBytes != 64<<20 {
		t.Errorf("defaults = %+v %+v, want k 9, a 72h window, the policies' own budget and a 64 MiB cache", defaults.duplicates, defaults.tuning)
	}

	for _, bad := range [][]string{
		{"--dedup-k", "65"},
		{"--dedup-k", "-1"},
		{"--dedup-window", "0s"},
		{"--dedup-window", "soon"},
		{"--budget", "-1"},
		{"--cache-mib", "-1"},
	} {
		if _, ok := parseServeArgs(bad, io.Discard); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
