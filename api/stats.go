package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// statsAnswer is the store's counts, what the scheduling policies learnt
// of each source, and the cache's state.
type statsAnswer struct {
	dynamo.Stats
	// PerSource replaces Stats.PerSource in the JSON, each source's counts
	// with its schedule.
	PerSource []sourceStatsAnswer `json:"per_source"`
	Cache     cacheStats          `json:"cache"`
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
	st, err := s.cfg.Store.Stats(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: %w", err))
		return
	}
	sources, err := s.cfg.Store.Sources(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: list sources: %w", err))
		return
	}
	active := make(map[string]*dynamo.Source, len(sources))
	for i := range sources {
		active[sources[i].ID] = &sources[i]
	}
	ans := statsAnswer{Stats: st, PerSource: make([]sourceStatsAnswer, len(st.PerSource)), Cache: s.cache.stats()}
	now := s.cfg.Now()
	for i, ss := range st.PerSource {
		ans.PerSource[i].SourceStats = ss
		if src, ok := active[ss.ID]; ok {
			sum := scheduleSummary(src, now)
			ans.PerSource[i].Schedule = &sum
		}
	}
	writeJSON(w, http.StatusOK, ans)
}

// scheduleSummary is what the policies learnt of src, as of now. The
// summary reads only smart's α, the default interval and weekday's horizon,
// which serve leaves at their defaults, so it uses the default configuration. An unreadable state is summarized as
// the fresh one the poller starts again from.
func scheduleSummary(src *dynamo.Source, now time.Time) policy.Summary {
	state, _ := policy.LoadState(src.State.Schedule)
	return state.Summarize(policy.Config{}, time.Duration(src.Interval), now)
}
