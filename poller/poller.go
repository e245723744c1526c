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
	"github.com/dynamo-feeds/dynamo/poller/robots"
)

// PolicySetting is the setting that holds the global policy's name, shared
// by every poller on the store; the domain names it, so that readers such
// as the web interface need not import the poller.
const PolicySetting = dynamo.PolicySetting

// Fetcher retrieves a URL; *fetch.Client is the real one.
type Fetcher interface {
	Get(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	// BusyHosts lists the hosts (dynamo.HostKey) a request could not
	// start to at now: one is under way, or the host's gap is not over.
	BusyHosts(now time.Time) []string
}

// Config says how a Poller works. Zero fields take the defaults noted.
type Config struct {
	Store   dynamo.Store // required
	Fetcher Fetcher      // required
	// Owner names this poller in leases; default host name and process id.
	// A poller starting under an owner takes back every lease held under
	// that name at once (see Run), so an owner must name one live process
	// at a time, and should stay the same when that process restarts:
	// serve uses the host name and the address it listens on, which the
	// kernel gives to one process at a time (docs/POLLER.md).
	Owner string
	// Workers is how many sources are polled at once; default 8.
	Workers int
	// MaxItems caps the items of one version: a page or feed with more
	// keeps its first MaxItems, and the source gets a warning saying how
	// many were dropped. Default DefaultMaxItems (serve --max-items).
	MaxItems int
	// Policy is the global policy until an operator switches it (the
	// setting PolicySetting wins when present); default smart, or at-risk
	// when PolicyConfig sets a budget (docs/SCHEDULING.md).
	Policy string
	// PolicyConfig tunes every policy.
	PolicyConfig policy.Config
	// LeaseTTL bounds how long a killed poller keeps its sources: another
	// poller takes them within LeaseTTL and a Tick. A poll renews its lease
	// every third of it, however long the fetch, so it needs only to
	// exceed a few store round trips. Default DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Tick is how often the poller looks for due sources; default 1s.
	Tick time.Duration
	// Duplicates, when set, groups new items into stories across sources
	// and records the copies of another source's story (docs/DEDUP.md "Stories"): its
	// polls that store new items are serialized with every other such poll
	// on the store (dynamo.PollRecord.Stories).
	Duplicates *dedup.Stories
	// OnBody, when set, is told of every body a poll retrieves (not of
	// 304s), before it is read: WebSub discovery looks for the source's
	// hub there (docs/WEBSUB.md). It must be quick.
	OnBody func(ctx context.Context, src *dynamo.Source, resp *fetch.Response)
	// Robots, when set, is asked before every fetch of an html or selectors
	// source that does not ignore robots.txt (Source.IgnoreRobots); a
	// disallowed page is not fetched and the poll fails with the reason.
	// Native feeds are fetched as feed readers fetch them, without it.
	Robots *robots.Checker
	// OnPoll, when set, is told of every poll, for metrics.
	OnPoll func(sourceID string, status dynamo.PollStatus, took time.Duration, stored bool)
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// DefaultLeaseTTL is the default lease: a killed poller's sources are
// polled again by another within it and a tick, well inside 30 seconds.
const DefaultLeaseTTL = 15 * time.Second

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
	// ended counts the polls that poll-now and push ended in this process;
	// endedAt is, for each source, the count when its last one ended, kept
	// while the loop has turns leased and not yet begun (pending). Such a
	// poll released the lease and set the next poll, so a turn leased
	// before it ended is stale: it is skipped (see claimTurn).
	ended   uint64
	endedAt map[string]uint64
	pending int
	// hosts counts the scheduled polls under way by host (dynamo.HostKey),
	// so that the loop leases nothing that would wait behind them.
	hosts map[string]int
	// zones caches the sources' time zones by name: the plan reads one per
	// source each cycle, and time.LoadLocation reads the zone database.
	zones sync.Map // string → *time.Location
	// reclaimOnce gives up the leases a previous run of this owner left
	// behind, before this process polls anything (see reclaim).
	reclaimOnce sync.Once
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
	if cfg.MaxItems <= 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	if cfg.Policy == "" {
		cfg.Policy = policy.Smart
		if cfg.PolicyConfig.Budget > 0 {
			cfg.Policy = policy.AtRisk
		}
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
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
		endedAt:  map[string]uint64{},
		hosts:    map[string]int{},
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
	p.reclaim(ctx)
	for {
		p.refreshPolicy(ctx)
		p.planIfDue(ctx)
		if free := cap(inflight) - len(inflight); free > 0 && ctx.Err() == nil {
			// Only what can be fetched at once is leased: one source
			// per host, none of a host this process is fetching from
			// or whose gap is not over. The rest stays free for any
			// poller, and nothing leased waits behind the per-host gap.
			now := p.cfg.Now()
			hosts := dynamo.LeaseHosts{OnePerHost: true, Skip: p.busyHosts()}
			leased := p.leasing()
			due, err := p.store.LeaseDue(ctx, p.cfg.Owner, now, free, p.cfg.LeaseTTL, hosts)
			if err != nil && ctx.Err() == nil {
				p.cfg.Logger.Warn("lease due sources", "err", err)
			}
			p.mu.Lock()
			p.settleLocked(len(due) - 1)
			p.mu.Unlock()
			for i := range due {
				inflight <- struct{}{}
				wg.Add(1)
				host := p.hostStarts(due[i].URL)
				go func(src dynamo.Source) {
					defer wg.Done()
					// A poll-now or push of the source under way in this process,
					// or one that ended since the lease, polls it and
					// records the schedule; this turn is skipped.
					if release, ok := p.claimTurn(src.ID, leased); ok {
						p.poll(pollCtx, &src)
						release()
					}
					p.hostEnds(host)
					<-inflight
					// A wake-up for the loop: one pending is enough, and
					// a send that waited could outlive the loop, which
					// stops reading once ctx ends and waits for this
					// goroutine.
					select {
					case finished <- struct{}{}:
					default:
					}
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

// busyHosts are the hosts the loop leases nothing of: those its polls
// are under way on, and those the fetcher cannot send to now.
func (p *Poller) busyHosts() []string {
	busy := p.cfg.Fetcher.BusyHosts(time.Now()) // the fetcher keeps real time
	p.mu.Lock()
	defer p.mu.Unlock()
	for h := range p.hosts {
		busy = append(busy, h)
	}
	return busy
}

// hostStarts counts a scheduled poll of rawURL's host and returns the host.
func (p *Poller) hostStarts(rawURL string) string {
	host := dynamo.HostKey(rawURL)
	p.mu.Lock()
	p.hosts[host]++
	p.mu.Unlock()
	return host
}

// hostEnds counts a scheduled poll of host out.
func (p *Poller) hostEnds(host string) {
	p.mu.Lock()
	if p.hosts[host]--; p.hosts[host] <= 0 {
		delete(p.hosts, host)
	}
	p.mu.Unlock()
}

// PollNow polls one source at once, whatever its schedule, and returns the
// outcome; dynamo.ErrConflict if another poller holds it right now.
func (p *Poller) PollNow(ctx context.Context, id string) (dynamo.PollOutcome, error) {
	p.reclaim(ctx)
	release, err := p.claimWaiting(ctx, id)
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	defer release()
	src, err := p.store.LeaseSource(ctx, id, p.cfg.Owner, p.cfg.Now(), p.cfg.LeaseTTL)
	if errors.Is(err, dynamo.ErrLeaseLost) {
		return dynamo.PollOutcome{}, &heldError{fmt.Sprintf("poll %s: %s", id, p.holder(ctx, id))}
	}
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	return p.poll(ctx, src)
}

// reclaim gives up, once and before this process polls anything, the
// leases its owner holds: they are a previous run's, killed before it
// could release them, since an owner names one live process at a time. A
// restarted process thus polls its sources again at once rather than
// waiting for its own leases to expire. On failure they expire as usual.
func (p *Poller) reclaim(ctx context.Context) {
	p.reclaimOnce.Do(func() {
		if err := p.store.ReleaseLeases(ctx, p.cfg.Owner); err != nil {
			p.cfg.Logger.Warn("take back the leases of this poller's last run; they expire instead", "owner", p.cfg.Owner, "err", err)
		}
	})
}

// heldError refuses a poll-now because another poller holds the source;
// it is a dynamo.ErrConflict whose text says who and until when.
type heldError struct{ msg string }

func (e *heldError) Error() string        { return e.msg }
func (e *heldError) Is(target error) bool { return target == dynamo.ErrConflict }

// holder says which poller holds source id's lease and until when, for a
// refused poll-now.
func (p *Poller) holder(ctx context.Context, id string) string {
	src, err := p.store.Source(ctx, id)
	if err != nil || src.Summary.LeaseOwner == "" {
		return "another poller is polling it"
	}
	return fmt.Sprintf("poller %q is polling it; its lease ends at %s (in %s)", src.Summary.LeaseOwner,
		src.Summary.LeaseExpires.UTC().Format(time.RFC3339), src.Summary.LeaseExpires.Sub(p.cfg.Now()).Round(time.Second))
}

// leasing counts a lease of due sources about to be taken as a pending
// turn until settled, and returns the count of ended polls it follows.
func (p *Poller) leasing() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending++
	return p.ended
}

// settleLocked adds n to the pending turns; with none left, no turn can be
// stale, and endedAt is emptied. p.mu is held.
func (p *Poller) settleLocked(n int) {
	if p.pending += n; p.pending == 0 {
		clear(p.endedAt)
	}
}

// claimTurn claims source id for a scheduled turn, leased after leased
// polls had ended, and settles the turn. It fails, and the turn is skipped,
// when the source is being polled, or when a poll-now or push of it ended
// since the lease: that poll released the lease and set the next poll, and
// the turn would fetch the origin again at once with the source's state
// from before it.
func (p *Poller) claimTurn(id string, leased uint64) (release func(), ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stale := p.endedAt[id] > leased
	p.settleLocked(-1)
	if stale {
		return nil, false
	}
	return p.claimLocked(id)
}

// claim marks source id as being polled by this process, unless it already
// is; release ends the mark.
func (p *Poller) claim(id string) (release func(), ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.claimLocked(id)
}

// claimLocked is claim with p.mu held.
func (p *Poller) claimLocked(id string) (release func(), ok bool) {
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
// rather than colliding with the scheduled one. Its release also notes the
// poll's end, which makes the turns leased before it stale (claimTurn).
func (p *Poller) claimWaiting(ctx context.Context, id string) (release func(), err error) {
	for {
		if release, ok := p.claim(id); ok {
			return func() {
				p.mu.Lock()
				p.ended++
				if p.pending > 0 {
					p.endedAt[id] = p.ended
				}
				p.mu.Unlock()
				release()
			}, nil
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
	p.mu.Lock()
	before := p.followed
	p.mu.Unlock()
	followed := make(map[string]following, len(before))
	groups := map[string][]policy.Source{}
	next := map[string]time.Time{}
	// The sources are walked, not listed: only what the plan needs of each
	// stays in memory.
	err := p.store.EachSource(ctx, false, func(src *dynamo.Source) error {
		pol := p.policyFor(src)
		if src.Paused {
			return nil
		}
		f := following{policy: pol.Name(), interval: src.Interval}
		followed[src.ID] = f
		was, known := before[src.ID]
		switched := known && was != f
		if !pol.Budgeted() && !(switched && src.State.Errors == 0) {
			return nil
		}
		ps, err := p.policySource(src)
		if err != nil {
			p.cfg.Logger.Warn("schedule state unreadable; starting afresh", "source", src.ID, "err", err)
		}
		// Sources whose hub pushes are polled for safety only.
		ps.Push = src.Summary.Pushed(now)
		if !pol.Budgeted() {
			if t := pol.Next(ps, now); t.Before(src.State.NextPoll) {
				next[src.ID] = t
			}
			return nil
		}
		groups[pol.Name()] = append(groups[pol.Name()], ps)
		return nil
	})
	if err != nil {
		return err
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
