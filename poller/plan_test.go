package poller

import (
	"context"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// A source switched at run time to a per-source policy, or to another
// interval, is polled when its new policy says, not when the policy it
// followed before had put its next poll: the next plan brings the poll
// forward. It never pushes a poll back, and it leaves alone a source whose
// last poll failed (its next poll honours a Retry-After). The same pass
// stores the plans of the budget policies.
func TestPlanTakesUpSwitchesToPerSourcePolicies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // a Monday
	p, err := New(Config{Store: st, Fetcher: fetch.New(fetch.Options{}), Policy: policy.Weekday, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	// Each source was polled at t0, and the policy it followed then set its
	// next poll: weekday's is the next day, at the end of the usual hour
	// (00:00 for a source not learnt yet), so Tuesday 01:00.
	tuesday := time.Date(2026, 3, 3, 1, 0, 0, 0, time.UTC)
	sources := []struct {
		id       string
		policy   string
		interval time.Duration
		next     time.Time
		failed   bool
	}{
		{"own", policy.Weekday, time.Hour, tuesday, false},                 // switches to flat
		{"global", "", time.Hour, tuesday, false},                          // the global policy switches to smart
		{"later", policy.Flat, time.Hour, t0.Add(time.Hour), false},        // switches to weekday
		{"slow", policy.Flat, 6 * time.Hour, t0.Add(6 * time.Hour), false}, // its interval drops to 1h
		{"failing", policy.Weekday, time.Hour, tuesday, true},              // switches to flat after a failure
		{"steady", policy.Flat, time.Hour, t0.Add(time.Hour), false},       // no change
		{"budget", policy.MinMissing, time.Hour, tuesday, false},           // planned every cycle
	}
	for _, s := range sources {
		src := &dynamo.Source{ID: s.id, URL: "http://127.0.0.1:9/" + s.id, Kind: dynamo.KindHTML, Interval: dynamo.Duration(s.interval), Policy: s.policy}
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		var learnt policy.State
		learnt.Learn(policy.Observation{At: t0, ItemsSeen: 10, NewItems: 10, Changed: true})
		state := dynamo.PollState{LastPoll: t0, NextPoll: s.next, LastStatus: dynamo.StatusChanged}
		if s.failed {
			learnt.Fail(t0, policy.Config{}, nil)
			state.Errors, state.LastStatus = 1, dynamo.StatusError
		}
		if state.Schedule, err = policy.MarshalState(learnt); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LeaseSource(ctx, s.id, "test", t0, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: s.id, Owner: "test", At: t0}, func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: state, Log: dynamo.PollLogEntry{At: t0, Status: state.LastStatus}}
		}); err != nil {
			t.Fatal(err)
		}
	}
	nextPolls := func() map[string]time.Time {
		t.Helper()
		all, err := st.Sources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]time.Time{}
		for _, src := range all {
			out[src.ID] = src.State.NextPoll.UTC()
		}
		return out
	}
	check := func(when string, want map[string]time.Time) {
		t.Helper()
		got := nextPolls()
		for id, w := range want {
			if !got[id].Equal(w) {
				t.Errorf("%s: %s's next poll is %s, want %s", when, id, got[id].Format(time.RFC3339), w.Format(time.RFC3339))
			}
		}
	}
	before := map[string]time.Time{}
	for _, s := range sources {
		before[s.id] = s.next
	}

	// The first plan only notes what each source follows, and plans the
	// budget policy's sources: min-missing's default budget of 24 polls a
	// day for its one source, spread evenly, is a poll an hour after the
	// last.
	if err := p.plan(ctx, t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	before["budget"] = t0.Add(time.Hour)
	check("first plan", before)

	change := func(id string, fn func(*dynamo.Source)) {
		t.Helper()
		src, err := st.Source(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		fn(src)
		if err := st.UpdateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	change("own", func(s *dynamo.Source) { s.Policy = policy.Flat })
	change("later", func(s *dynamo.Source) { s.Policy = policy.Weekday })
	change("slow", func(s *dynamo.Source) { s.Interval = dynamo.Duration(time.Hour) })
	change("failing", func(s *dynamo.Source) { s.Policy = policy.Flat })
	if err := p.SetPolicy(ctx, policy.Smart); err != nil {
		t.Fatal(err)
	}
	if err := p.plan(ctx, t0.Add(20*time.Minute)); err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{
		"own":     t0.Add(time.Hour), // flat: the last poll plus the interval
		"global":  t0.Add(time.Hour), // smart: τ starts at the interval, no silence yet
		"later":   t0.Add(time.Hour), // weekday would wait longer: not pushed back
		"slow":    t0.Add(time.Hour),
		"failing": tuesday,
		"steady":  t0.Add(time.Hour),
		"budget":  t0.Add(time.Hour),
	}
	check("after the switches", want)

	// A switch is taken up once: a poll the new policy sets later stays.
	if err := st.SetNextPolls(ctx, map[string]time.Time{"own": t0.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := p.plan(ctx, t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	want["own"] = t0.Add(3 * time.Hour)
	check("next plan", want)
}

// Without a policy named, the poller follows smart, or at-risk when a
// budget is set: the budget policy that loses least against its claim
// (docs/SCHEDULING.md).
func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(context.Background(), sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, tt := range []struct {
		budget int
		want   string
	}{{0, policy.Smart}, {500, policy.AtRisk}} {
		p, err := New(Config{Store: st, Fetcher: fetch.New(fetch.Options{}), PolicyConfig: policy.Config{Budget: tt.budget}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Policy(); got != tt.want {
			t.Errorf("budget %d: default policy %s, want %s", tt.budget, got, tt.want)
		}
	}
}

// A source whose hub pushes (an active subscription whose lease has not
// ended) is planned for its safety poll only, PushSafety after its last
// poll, under a budget policy; the others share the budget. A source whose
// subscription's lease has ended is polled for its postings again.
func TestPlanPollsPushingSourcesForSafety(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	cfg := policy.Config{Budget: 96}
	p, err := New(Config{Store: st, Fetcher: fetch.New(fetch.Options{}), Policy: policy.AtRisk, PolicyConfig: cfg, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"pushed", "lapsed", "polled"} {
		if err := st.CreateSource(ctx, &dynamo.Source{ID: id, URL: "http://127.0.0.1:9/" + id, Kind: dynamo.KindFeed, Interval: dynamo.Duration(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		// Three hours of a source posting 24 items a day, read at t0.
		var learnt policy.State
		for h := 3; h >= 0; h-- {
			learnt.Learn(policy.Observation{At: t0.Add(-time.Duration(h) * time.Hour), ItemsSeen: 10, NewItems: 1, Changed: true})
		}
		state := dynamo.PollState{LastPoll: t0, NextPoll: t0.Add(time.Hour), LastStatus: dynamo.StatusChanged}
		if state.Schedule, err = policy.MarshalState(learnt); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LeaseSource(ctx, id, "test", t0, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "test", At: t0}, func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: state, Log: dynamo.PollLogEntry{At: t0, Status: state.LastStatus}}
		}); err != nil {
			t.Fatal(err)
		}
	}
	for id, ends := range map[string]time.Time{"pushed": t0.AddDate(0, 0, 5), "lapsed": t0.Add(-time.Minute)} {
		sub := &dynamo.Subscription{SourceID: id, SourceURL: "http://127.0.0.1:9/" + id, Hub: "http://127.0.0.1:9/hub", Topic: "http://127.0.0.1:9/" + id,
			State: dynamo.SubActive, Token: "token-" + id, Secret: "secret-" + id, LeaseSeconds: 3600, LeaseEnds: ends, VerifiedAt: t0.Add(-time.Hour)}
		if err := st.PutSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(5 * time.Minute)
	if err := p.plan(ctx, now); err != nil {
		t.Fatal(err)
	}
	all, err := st.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	safety := t0.Add(cfg.WithDefaults().PushSafety)
	for _, src := range all {
		next := src.State.NextPoll
		switch src.ID {
		case "pushed":
			if !next.Equal(safety) {
				t.Errorf("pushed: next poll %v, want the safety poll at %v", next, safety)
			}
		default:
			if next.After(now.Add(cfg.WithDefaults().Cycle)) {
				t.Errorf("%s: next poll %v, want within the cycle from %v", src.ID, next, now)
			}
		}
	}
}
