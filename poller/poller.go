// Package poller keeps every source fresh. It decides when each source is
// due (through the scheduling policies of package policy), leases it so that
// no other poller takes it, fetches it politely (package fetch), reads it as
// an annotated page (package wrapper) or a native feed (package nativefeed),
// and stores a version when the content changed, all in one transaction
// with the source's new state (dynamo.PollStore.RecordPoll).
//
// Several pollers, in one process or many sharing one PostgreSQL database,
// cooperate through the store alone: leases say who polls what, and the
// global policy is a setting every poller rereads each cycle.
package poller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// PolicySetting is the setting that holds the global policy's name, shared
// by every poller on the store; the domain names it, so that readers such
// as the web interface need not import the poller.
const PolicySetting = dynamo.PolicySetting

// Fetcher retrieves a URL; *fetch.Client is the real one.
type Fetcher interface {
	Get(ctx context.Context, req fetch.Request) (*fetch.Response, error)
}

// Config says how a Poller works. Zero fields take the defaults noted.
type Config struct {
	Store   dynamo.Store // required
	Fetcher Fetcher      // required
	// Owner names this poller in leases; default host name and process id.
	Owner string
	// Workers is how many sources are polled at once; default 8.
	Workers int
	// Policy is the global policy until an operator switches it (the
	// setting PolicySetting wins when present); default smart, or at-risk
	// when PolicyConfig sets a budget (docs/SCHEDULING.md).
	Policy string
	// PolicyConfig tunes every policy.
	PolicyConfig policy.Config
	// LeaseTTL bounds how long a crashed poller keeps its sources; it must
	// exceed the longest fetch. Default 2m.
	LeaseTTL time.Duration
	// Tick is how often the poller looks for due sources; default 1s.
	Tick time.Duration
	// Duplicates, when set, groups new items into stories across sources
	// and records the copies of another source's story (SPEC §8): its
	// polls that store new items are serialized with every other such poll
	// on the store (dynamo.PollRecord.Stories).
	Duplicates *dedup.Stories
	// OnPoll, when set, is told of every poll, for metrics.
	OnPoll func(sourceID string, status dynamo.PollStatus, took time.Duration, stored bool)
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Poller polls the due sources of a store until its context ends.
type Poller struct {
	cfg   Config
	store dynamo.Store

	mu       sync.Mutex
	global   string                   // the global policy's name
	policies map[string]policy.Policy // by name
	planned  time.Time                // when budget policies last planned
	rnd      *rand.Rand               // back-off jitter, under mu
	// followed is what each active source followed at the last plan, so
	// that the next plan sees who switched policy or interval.
	followed map[string]following
	// busy holds the sources this process is polling, each with a channel
	// closed when that poll ends. Leases are per owner, and the scheduled
	// loop and poll-now share this process's owner, so the store alone
	// cannot keep them from polling one source at once.
	busy map[string]chan struct{}
	// zones caches the sources' time zones by name: the plan reads one per
	// source each cycle, and time.LoadLocation reads the zone database.
	zones sync.Map // string → *time.Location
}

// following is the policy a source follows and its interval.
type following struct {
	policy   string
	interval dynamo.Duration
}

// New checks cfg and returns a Poller.
func New(cfg Config) (*Poller, error) {
	if cfg.Store == nil || cfg.Fetcher == nil {
		return nil, fmt.Errorf("poller: a store and a fetcher are required: %w", dynamo.ErrInvalid)
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		cfg.Owner = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Policy == "" {
		cfg.Policy = policy.Smart
		if cfg.PolicyConfig.Budget > 0 {
			cfg.Policy = policy.AtRisk
		}
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 2 * time.Minute
	}
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := cfg.PolicyConfig.Validate(); err != nil {
		return nil, fmt.Errorf("poller: %w", err)
	}
	cfg.PolicyConfig = cfg.PolicyConfig.WithDefaults()
	p := &Poller{
		cfg:      cfg,
		store:    cfg.Store,
		global:   cfg.Policy,
		policies: map[string]policy.Policy{},
		busy:     map[string]chan struct{}{},
		rnd:      rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
	}
	for _, name := range policy.Names() {
		pol, err := policy.ByName(name, cfg.PolicyConfig)
		if err != nil {
			return nil, fmt.Errorf("poller: policy %s: %w", name, err)
		}
		p.policies[name] = pol
	}
	if _, ok := p.policies[cfg.Policy]; !ok {
		return nil, fmt.Errorf("poller: unknown policy %q (known: %v): %w", cfg.Policy, policy.Names(), dynamo.ErrInvalid)
	}
	return p, nil
}

// Owner is the name this poller leases sources under.
func (p *Poller) Owner() string { return p.cfg.Owner }

// Policies lists the policies a source or the poller may follow.
func (p *Poller) Policies() []string { return policy.Names() }

// Policy is the global policy's name.
func (p *Poller) Policy() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.global
}

// SetPolicy switches the global policy of every poller sharing the store;
// each takes it up within a tick, without a restart.
func (p *Poller) SetPolicy(ctx context.Context, name string) error {
	if _, ok := p.policies[name]; !ok {
		return fmt.Errorf("unknown policy %q (known: %v): %w", name, policy.Names(), dynamo.ErrInvalid)
	}
	if err := p.store.PutSetting(ctx, PolicySetting, name); err != nil {
		return fmt.Errorf("set policy: %w", err)
	}
	p.mu.Lock()
	p.global = name
	p.planned = time.Time{} // a budget policy plans at once
	p.mu.Unlock()
	return nil
}

// refreshPolicy rereads the global policy, which another process may have
// switched.
func (p *Poller) refreshPolicy(ctx context.Context) {
	name, err := p.store.Setting(ctx, PolicySetting)
	if err != nil {
		if !errors.Is(err, dynamo.ErrNotFound) {
			p.cfg.Logger.Warn("read policy setting", "err", err)
		}
		return
	}
	if _, ok := p.policies[name]; !ok {
		p.cfg.Logger.Warn("ignoring unknown policy in settings", "policy", name)
		return
	}
	p.mu.Lock()
	if p.global != name {
		p.global = name
		p.planned = time.Time{}
	}
	p.mu.Unlock()
}

// policyFor is the policy src follows: its own, or the global one.
func (p *Poller) policyFor(src *dynamo.Source) policy.Policy {
	if pol, ok := p.policies[src.Policy]; ok {
		return pol
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.policies[p.global]
}

// Run polls due sources until ctx ends. Then it lets the polls in flight
// finish and releases its leases, so that another poller can take the
// sources at once.
func (p *Poller) Run(ctx context.Context) error {
	var (
		wg       sync.WaitGroup
		inflight = make(chan struct{}, p.cfg.Workers)
		finished = make(chan struct{}, p.cfg.Workers)
		ticker   = time.NewTicker(p.cfg.Tick)
	)
	defer ticker.Stop()
	// In-flight polls outlive ctx: they are bounded by the fetcher's
	// timeouts and their lease, and abandoning them would waste the fetch.
	pollCtx := context.WithoutCancel(ctx)
	for {
		p.refreshPolicy(ctx)
		p.planIfDue(ctx)
		if free := cap(inflight) - len(inflight); free > 0 && ctx.Err() == nil {
			due, err := p.store.LeaseDue(ctx, p.cfg.Owner, p.cfg.Now(), free, p.cfg.LeaseTTL)
			if err != nil && ctx.Err() == nil {
				p.cfg.Logger.Warn("lease due sources", "err", err)
			}
			for i := range due {
				inflight <- struct{}{}
				wg.Add(1)
				go func(src dynamo.Source) {
					defer wg.Done()
					// A poll-now of the source under way in this process
					// polls it and records the schedule; this turn is skipped.
					if release, ok := p.claim(src.ID); ok {
						p.poll(pollCtx, &src)
						release()
					}
					<-inflight
					finished <- struct{}{}
				}(due[i])
			}
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			release, cancel := context.WithTimeout(pollCtx, 10*time.Second)
			defer cancel()
			if err := p.store.ReleaseLeases(release, p.cfg.Owner); err != nil {
				return fmt.Errorf("poller: release leases: %w", err)
			}
			return nil
		case <-ticker.C:
		case <-finished:
		}
	}
}

// PollNow polls one source at once, whatever its schedule, and returns the
// outcome; dynamo.ErrConflict if another poller holds it right now.
func (p *Poller) PollNow(ctx context.Context, id string) (dynamo.PollOutcome, error) {
	release, err := p.claimWaiting(ctx, id)
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	defer release()
	src, err := p.store.LeaseSource(ctx, id, p.cfg.Owner, p.cfg.Now(), p.cfg.LeaseTTL)
	if errors.Is(err, dynamo.ErrLeaseLost) {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: another poller is polling it: %w", id, dynamo.ErrConflict)
	}
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	return p.poll(ctx, src)
}

// claim marks source id as being polled by this process, unless it already
// is; release ends the mark.
func (p *Poller) claim(id string) (release func(), ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, held := p.busy[id]; held {
		return nil, false
	}
	done := make(chan struct{})
	p.busy[id] = done
	return func() {
		p.mu.Lock()
		delete(p.busy, id)
		p.mu.Unlock()
		close(done)
	}, true
}

// claimWaiting claims source id, first waiting for a poll of it that this
// process has under way, so that poll-now answers with a poll of its own
// rather than colliding with the scheduled one.
func (p *Poller) claimWaiting(ctx context.Context, id string) (release func(), err error) {
	for {
		if release, ok := p.claim(id); ok {
			return release, nil
		}
		p.mu.Lock()
		done := p.busy[id]
		p.mu.Unlock()
		if done == nil {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// planIfDue lets the budget policies plan the next polls of their sources,
// once per cycle. Every poller plans from the same shared state, so when
// several do, their plans agree up to the clock.
func (p *Poller) planIfDue(ctx context.Context) {
	now := p.cfg.Now()
	p.mu.Lock()
	due := p.planned.IsZero() || now.Sub(p.planned) >= p.cfg.PolicyConfig.Cycle
	if due {
		p.planned = now
	}
	p.mu.Unlock()
	if !due {
		return
	}
	if err := p.plan(ctx, now); err != nil && ctx.Err() == nil {
		p.cfg.Logger.Warn("plan budget policies", "err", err)
	}
}

// plan groups the active sources by budget policy and stores each plan.
//
// It also takes up switches to per-source policies. Such a source keeps
// the next poll that the policy it followed before set, which may be days
// away (a weekday forecast, a budget allocation that gave it no poll), so
// when a source now follows another per-source policy or interval than at
// the last plan, its next poll is brought forward to what the new policy
// says, if that is sooner. Not after a failed poll: that next poll also
// honours the origin's Retry-After, which the learnt state does not keep.
func (p *Poller) plan(ctx context.Context, now time.Time) error {
	sources, err := p.store.Sources(ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	before := p.followed
	p.mu.Unlock()
	followed := make(map[string]following, len(sources))
	groups := map[string][]policy.Source{}
	next := map[string]time.Time{}
	for i := range sources {
		src := &sources[i]
		pol := p.policyFor(src)
		if src.Paused {
			continue
		}
		f := following{policy: pol.Name(), interval: src.Interval}
		followed[src.ID] = f
		was, known := before[src.ID]
		switched := known && was != f
		if !pol.Budgeted() && !(switched && src.State.Errors == 0) {
			continue
		}
		ps, err := p.policySource(src)
		if err != nil {
			p.cfg.Logger.Warn("schedule state unreadable; starting afresh", "source", src.ID, "err", err)
		}
		if !pol.Budgeted() {
			if t := pol.Next(ps, now); t.Before(src.State.NextPoll) {
				next[src.ID] = t
			}
			continue
		}
		groups[pol.Name()] = append(groups[pol.Name()], ps)
	}
	p.mu.Lock()
	p.followed = followed
	p.mu.Unlock()
	for name, group := range groups {
		plan := p.policies[name].Plan(group, now)
		for i, t := range plan.Next {
			next[group[i].ID] = t
		}
	}
	if len(next) == 0 {
		return nil
	}
	return p.store.SetNextPolls(ctx, next)
}

// policySource is what a policy knows of src. An unreadable learnt state
// is reported and replaced by a fresh one, so the source is still polled.
func (p *Poller) policySource(src *dynamo.Source) (policy.Source, error) {
	state, err := policy.LoadState(src.State.Schedule)
	return policy.Source{
		ID:          src.ID,
		Interval:    time.Duration(src.Interval),
		Subscribers: src.Subscribers,
		Location:    p.location(src),
		State:       &state,
	}, err
}

// location is src's time zone, UTC when it names none or none that loads.
func (p *Poller) location(src *dynamo.Source) *time.Location {
	if src.Timezone == "" {
		return time.UTC
	}
	if loc, ok := p.zones.Load(src.Timezone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(src.Timezone)
	if err != nil {
		loc = time.UTC
	}
	p.zones.Store(src.Timezone, loc)
	return loc
}
