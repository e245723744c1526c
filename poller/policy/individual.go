package policy

import "time"

// flat polls every source at its own fixed interval.
type flat struct{ cfg Config }

func (flat) Name() string   { return Flat }
func (flat) Budgeted() bool { return false }

// Next is one interval after the last successful poll; a source never
// polled is due now.
func (p flat) Next(src Source, now time.Time) time.Time {
	last := src.state().LastRetrieval
	if last.IsZero() {
		return settle(now, now, &src)
	}
	if src.Push {
		return pushNext(p.cfg, src, now)
	}
	return settle(last.Add(src.interval(p.cfg)), now, &src)
}

func (p flat) Plan(sources []Source, now time.Time) Plan { return planEach(p, sources, now) }

// smart follows the observed interval between content changes:
// τ(n+1) = α·τ(n) + (1−α)·t(n), starting from the source's interval. While
// nothing changes it backs off: the interval is the larger of τ and
// Backoff × the silence since the last change, so silent polls thin out
// geometrically. The interval is clamped to [Min, Max].
type smart struct{ cfg Config }

func (smart) Name() string   { return Smart }
func (smart) Budgeted() bool { return false }

func (p smart) Next(src Source, now time.Time) time.Time {
	s := src.state()
	if s.LastRetrieval.IsZero() {
		return settle(now, now, &src)
	}
	if src.Push {
		return pushNext(p.cfg, src, now)
	}
	return settle(s.LastRetrieval.Add(p.wait(src)), now, &src)
}

// wait is the interval smart puts after the source's last poll.
func (p smart) wait(src Source) time.Duration {
	s := src.state()
	interval := s.Tau(p.cfg.Alpha, src.interval(p.cfg))
	quietSince := s.LastChange
	if quietSince.IsZero() {
		quietSince = s.Since
	}
	silence := s.LastRetrieval.Sub(quietSince)
	interval = max(interval, time.Duration(p.cfg.Backoff*float64(silence)))
	return min(max(interval, p.cfg.Min), p.cfg.Max)
}

func (p smart) Plan(sources []Source, now time.Time) Plan { return planEach(p, sources, now) }
