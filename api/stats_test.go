package api_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// statsJSON is GET /api/stats as a client reads it.
type statsJSON struct {
	Items          int     `json:"items"`
	Duplicates     int     `json:"duplicates"`
	DuplicateShare float64 `json:"duplicate_share"`
	PerSource      []struct {
		ID             string          `json:"id"`
		Items          int             `json:"items"`
		Duplicates     int             `json:"duplicates"`
		DuplicateShare float64         `json:"duplicate_share"`
		Schedule       *policy.Summary `json:"schedule"`
	} `json:"per_source"`
}

// TestStatsCountDuplicatesAndShowSchedules checks the statistics of issue 7
// (items, duplicates and their share, overall and per source) and of issue
// 6 (what the scheduling policies learnt of each source: λ, S, the hourly
// rates, τ and the weekday history with its forecast).
func TestStatsCountDuplicatesAndShowSchedules(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		e.origin.set("/echo.html", annotatedPage("Echo", story{bravo.title, "/echo/b", "Copied."}, story{"Echo only", "/echo/1", "Unique."}))
		e.addSource("echo", "/echo.html")
		e.poll("echo")

		// Two polls a day apart, as the poller would record them: the
		// second found 12 new items of the 15 the page shows, and both
		// found changed content.
		day := time.Now().UTC().Truncate(24 * time.Hour)
		t0, t1 := day.Add(-48*time.Hour+9*time.Hour), day.Add(-24*time.Hour+9*time.Hour)
		var learnt policy.State
		learnt.Learn(policy.Observation{At: t0, ItemsSeen: 15, Changed: true})
		learnt.Learn(policy.Observation{At: t1, NewItems: 12, ItemsSeen: 15, Changed: true})
		recordSchedule(t, e.store, "echo", t1, learnt)

		var st statsJSON
		e.getJSON("/api/stats", &st)
		if st.Items != 6 || st.Duplicates != 1 || math.Abs(st.DuplicateShare-1.0/6) > 1e-9 {
			t.Errorf("overall: %d items, %d duplicates, share %v; want 6, 1, 1/6", st.Items, st.Duplicates, st.DuplicateShare)
		}
		if len(st.PerSource) != 2 {
			t.Fatalf("per source: %+v, want echo and news", st.PerSource)
		}
		echo, news := st.PerSource[0], st.PerSource[1]
		if echo.ID != "echo" || echo.Items != 2 || echo.Duplicates != 1 || echo.DuplicateShare != 0.5 {
			t.Errorf("echo: %+v, want 2 items, 1 duplicate, share 0.5", echo)
		}
		if news.ID != "news" || news.Items != 4 || news.Duplicates != 0 || news.DuplicateShare != 0 {
			t.Errorf("news: %+v, want 4 items, no duplicate", news)
		}

		// news never had a schedule stored (the test poller writes none):
		// it shows a fresh state, the prior of one item a day.
		if s := news.Schedule; s == nil || s.Rate != 1 || s.Capacity != 0 || s.Polls != 0 {
			t.Errorf("news schedule %+v, want the fresh state's", s)
		}
		// echo, by hand: λ = 24·(12 + 1)/(24 + 24) = 6.5 a day (the prior
		// weighs one item over 24 hours); the 12 items spread evenly over
		// the 24 hours observed, so each hourly rate is half an item in an
		// hour with the prior of two items at the mean rate m = 6.5/24:
		// (0.5 + 2)/(1 + 2/m);
		// τ = 0.5·1h + 0.5·24h; both days had updates, and with two days
		// observed and none on today's weekday P(today) = Ū = 1.
		s := echo.Schedule
		if s == nil {
			t.Fatal("echo has no schedule in the stats")
		}
		if math.Abs(s.Rate-6.5) > 1e-12 || s.Capacity != 15 || s.Polls != 2 || s.Tau != 45000 {
			t.Errorf("echo schedule %+v, want λ 6.5, S 15, 2 polls, τ 45000 s", s)
		}
		for h, r := range s.HourlyRates {
			if want := (0.5 + 2) / (1 + 2/(6.5/24)); math.Abs(r-want) > 1e-12 {
				t.Errorf("hourly rate at %02d h = %v, want %v", h, r, want)
			}
		}
		if s.DaysStart != t0.Format(time.DateOnly) || s.Days != "11" || s.Next != day.Format(time.DateOnly) {
			t.Errorf("weekday history %q from %s, next %q; want \"11\" from %s, next %s",
				s.Days, s.DaysStart, s.Next, t0.Format(time.DateOnly), day.Format(time.DateOnly))
		}
	})
}

// recordSchedule stores a learnt schedule state on a source the way the
// poller does: in the state that RecordPoll writes.
func recordSchedule(t *testing.T, store dynamo.Store, id string, at time.Time, learnt policy.State) {
	t.Helper()
	ctx := context.Background()
	raw, err := policy.MarshalState(learnt)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := store.LeaseSource(ctx, id, "stats-test", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err = store.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "stats-test", At: now},
		func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{
				State: dynamo.PollState{LastPoll: at, NextPoll: now.Add(time.Hour), LastStatus: dynamo.StatusNotModified, Schedule: raw},
				Log:   dynamo.PollLogEntry{At: now, Status: dynamo.StatusNotModified},
			}
		})
	if err != nil {
		t.Fatal(err)
	}
}
