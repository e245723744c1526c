package storetest

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// testSettings stores, overwrites and misses named values.
func testSettings(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	_, err := s.Setting(ctx, "policy")
	wantErr(t, "Setting(policy) before any put", err, dynamo.ErrNotFound)
	values := []struct{ key, value string }{
		{"policy", `{"name":"smart","min":"5m"}`},
		{"policy", `{"name":"flat"}`},
		{"discovery/127.0.0.1", ""},
		{"ünïcode", "東京"},
	}
	for _, v := range values {
		if err := s.PutSetting(ctx, v.key, v.value); err != nil {
			t.Fatalf("PutSetting(%s): %v", v.key, err)
		}
		got, err := s.Setting(ctx, v.key)
		if err != nil || got != v.value {
			t.Errorf("Setting(%s) = %q, %v; want %q", v.key, got, err, v.value)
		}
	}
	if got, err := s.Setting(ctx, "policy"); err != nil || got != `{"name":"flat"}` {
		t.Errorf("Setting(policy) = %q, %v; want the last value put", got, err)
	}
	// A prefix is literal text: '%' and '_' are no patterns.
	for k, v := range map[string]string{"a_b%1": "x", "a_b%2": "y", "aXb%3": "no", "a_b": "no", "a_b%": ""} {
		if err := s.PutSetting(ctx, k, v); err != nil {
			t.Fatalf("PutSetting(%s): %v", k, err)
		}
	}
	got, err := s.SettingsWithPrefix(ctx, "a_b%")
	want := map[string]string{"a_b%1": "x", "a_b%2": "y", "a_b%": ""}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("SettingsWithPrefix(a_b%%) = %v, %v; want %v", got, err, want)
	}
	for _, k := range []string{"a_b%1", "never put"} {
		if err := s.DeleteSetting(ctx, k); err != nil {
			t.Errorf("DeleteSetting(%s): %v", k, err)
		}
	}
	_, err = s.Setting(ctx, "a_b%1")
	wantErr(t, "Setting(a_b%1) after DeleteSetting", err, dynamo.ErrNotFound)
	if got, err := s.SettingsWithPrefix(ctx, "a_b%"); err != nil || len(got) != 2 {
		t.Errorf("SettingsWithPrefix(a_b%%) after a delete = %v, %v; want 2 values", got, err)
	}
}

// changeWait bounds how long a change notification may take to arrive. It
// is a liveness bound, not a performance figure: notifications normally
// arrive within milliseconds.
const changeWait = 20 * time.Second

// awaitChange reads changes until one names id.
func awaitChange(t *testing.T, changes <-chan dynamo.Change, id, after string) {
	t.Helper()
	timeout := time.After(changeWait)
	for {
		select {
		case c, ok := <-changes:
			if !ok {
				t.Fatalf("change channel closed while waiting for %s after %s", id, after)
			}
			if c.SourceID == id {
				return
			}
		case <-timeout:
			t.Fatalf("no change reported for %s within %v after %s", id, changeWait, after)
		}
	}
}

// testWatchChanges reports a source after its configuration changes and
// after a new version, and closes the channel when the context ends.
func testWatchChanges(t *testing.T, s dynamo.Store) {
	bg := context.Background()
	for _, id := range []string{"updated", "polled", "deleted", "purged"} {
		addSource(t, s, id)
	}
	record(t, s, "purged", t0, doc("purged", t0, item(1, "One")))
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	changes, err := s.WatchChanges(ctx)
	if err != nil {
		t.Fatalf("WatchChanges: %v", err)
	}
	// A second watcher must not hold up the first or the writers.
	if _, err := s.WatchChanges(ctx); err != nil {
		t.Fatalf("second WatchChanges: %v", err)
	}

	steps := []struct {
		id, what string
		do       func() error
	}{
		{"created", "CreateSource", func() error { return s.CreateSource(bg, newSource("created")) }},
		{"updated", "UpdateSource", func() error {
			src := newSource("updated")
			src.Interval = dynamo.Duration(5 * time.Minute)
			return s.UpdateSource(bg, src)
		}},
		{"polled", "a new version", func() error {
			record(t, s, "polled", t0, doc("polled", t0, item(1, "One")))
			return nil
		}},
		{"deleted", "DeleteSource", func() error { return s.DeleteSource(bg, "deleted", false) }},
		{"purged", "DeleteSource with purge", func() error { return s.DeleteSource(bg, "purged", true) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		awaitChange(t, changes, st.id, st.what)
	}

	cancel()
	timeout := time.After(changeWait)
	for {
		select {
		case _, ok := <-changes:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("change channel still open %v after its context ended", changeWait)
		}
	}
}
