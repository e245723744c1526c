package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// statsHead is the answer's store counts and cache state; writeJSONList
// writes the per-source answers (sourceStatsAnswer) after it, as
// "per_source".
type statsHead struct {
	dynamo.Stats
	PerSource *struct{}  `json:"per_source,omitempty"` // hides Stats.PerSource
	Cache     cacheStats `json:"cache"`
}

// sourceStatsAnswer is one source's counts and, for an active source, its
// learnt schedule (λ, S, hourly rates, τ, weekday history and forecast),
// so that an operator can see why it is polled when it is. Schedule is
// null for a removed source whose archive is kept.
type sourceStatsAnswer struct {
	dynamo.SourceStats
	Schedule *policy.Summary `json:"schedule"`
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st, err := s.cfg.Store.Stats(ctx)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: %w", err))
		return
	}
	per := st.PerSource
	at := make(map[string]int, len(per))
	for i := range per {
		at[per[i].ID] = i
	}
	head := statsHead{Stats: st, Cache: s.cache.stats()}
	now := s.cfg.Now()
	// The per-source answers are written as the active sources are walked,
	// in the order Stats listed the collections (the same ORDER BY), each
	// removed one without a schedule, so that no list of sources nor of
	// schedules is held.
	err = writeJSONList(w, head, "per_source", func(item func(any) error) error {
		next := 0
		upTo := func(end int) error {
			for ; next < end; next++ {
				if err := item(sourceStatsAnswer{SourceStats: per[next]}); err != nil {
					return err
				}
			}
			return nil
		}
		err := s.cfg.Store.EachSource(ctx, false, func(src *dynamo.Source) error {
			i, ok := at[src.ID]
			if !ok || i < next { // created since Stats read the collections
				return nil
			}
			if err := upTo(i); err != nil {
				return err
			}
			sum := scheduleSummary(src, now)
			next++
			return item(sourceStatsAnswer{SourceStats: per[i], Schedule: &sum})
		})
		if err != nil {
			return err
		}
		return upTo(len(per))
	})
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: %w", err))
	}
}

// scheduleSummary is what the policies learnt of src, as of now. The
// summary reads only smart's α, the default interval and weekday's horizon,
// which serve leaves at their defaults, so it uses the default configuration. An unreadable state is summarized as
// the fresh one the poller starts again from.
func scheduleSummary(src *dynamo.Source, now time.Time) policy.Summary {
	state, _ := policy.LoadState(src.State.Schedule)
	return state.Summarize(policy.Config{}, time.Duration(src.Interval), now)
}
