package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo"
)

// Replicated is a dynamo.Store over a primary server and its streaming
// replicas (hot standbys): every write goes to the primary, reads go to a
// replica that has replayed everything they must show, else to the
// primary.
//
// What a read must show is the floor: the primary's WAL position after
// the newest change this store wrote, or was told of by a notification.
// The floor rises before WatchChanges reports a change, so an answer built
// after a cache drops its stale copy is never read from a replica that
// lacks the change. A read made with dynamo.WithLatestReads goes to the
// primary (an operator's requests: read-your-writes across processes).
// The settings and StoryItems, which the poller reads, and every method a
// replica does not override, are the primary's. docs/STORAGE.md, "Read
// replicas", tells the whole rule.
type Replicated struct {
	*Store // the primary

	replicas []*replica
	next     atomic.Uint64 // round robin over the replicas
	floor    atomic.Int64  // a WAL position (bytes) every read must reach
	// unknown is set when a write's position could not be read: reads go
	// to the primary until the floor is known again.
	unknown atomic.Bool
	// log tells when a replica becomes unusable or usable again (SetLogger;
	// nil logs nothing).
	log atomic.Pointer[slog.Logger]

	// Tests only. waitReplay makes a read wait for a replica to reach the
	// floor instead of going to the primary, and primaryReads counts the
	// reads pick sends to the primary all the same, so that the
	// conformance suite can show it read everything from the standby
	// (without waiting, most of its reads follow a write too closely for
	// a standby to have replayed it, and go to the primary).
	waitReplay   bool
	primaryReads atomic.Int64
}

var _ dynamo.Store = (*Replicated)(nil)

// replica is one standby and what this process knows of it.
type replica struct {
	store    *Store
	name     string       // host:port/database, for errors and the log
	replayed atomic.Int64 // the newest replay position seen
	// downUntil (Unix nanoseconds) keeps reads off a replica that failed
	// one, for replicaRest.
	downUntil atomic.Int64
	// down is set from a failure until the replica answers again, so that
	// each change of state is logged once, not each read.
	down atomic.Bool
}

// replicaRest is how long a replica that failed a read is left alone.
const replicaRest = 5 * time.Second

// OpenReplicated opens the store on the primary at dsn (applying its
// migrations, as Open does) and connects to each replica, which must be a
// hot standby of that primary: a server that is not in recovery, or a
// standby of another cluster, is refused.
func OpenReplicated(ctx context.Context, dsn string, replicaDSNs []string) (*Replicated, error) {
	primary, err := Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	r := &Replicated{Store: primary}
	var system int64
	if err := primary.pool.QueryRow(ctx, "SELECT system_identifier FROM pg_control_system()").Scan(&system); err != nil {
		r.Close()
		return nil, fmt.Errorf("postgres: primary's system identifier: %w", err)
	}
	for _, rdsn := range replicaDSNs {
		rep, err := openReplica(ctx, rdsn, system)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.replicas = append(r.replicas, rep)
	}
	// What existed before this process started must be shown too: a cache
	// filled from a replica lacking it would never be told.
	if err := r.raise(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func openReplica(ctx context.Context, dsn string, system int64) (*replica, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse replica dsn: %w", err)
	}
	name := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to replica %s: %w", name, err)
	}
	var (
		recovering bool
		its        int64
	)
	err = pool.QueryRow(ctx, "SELECT pg_is_in_recovery(), system_identifier FROM pg_control_system()").Scan(&recovering, &its)
	switch {
	case err != nil:
		err = fmt.Errorf("postgres: replica %s: %w", name, err)
	case !recovering:
		err = fmt.Errorf("postgres: replica %s is not a standby (it is not in recovery): %w", name, dynamo.ErrInvalid)
	case its != system:
		err = fmt.Errorf("postgres: replica %s is a standby of another cluster (system %d, the primary's is %d): %w", name, its, system, dynamo.ErrInvalid)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &replica{store: newStore(pool, nil), name: name}, nil
}

// SetLogger makes the store log each replica that becomes unusable (a
// warning, with the reason) and usable again (info): changes of state
// only, never a line per read (docs/OPERATIONS.md, "Log lines").
func (r *Replicated) SetLogger(log *slog.Logger) { r.log.Store(log) }

// Replicas names the replicas, host:port/database (no credentials), for
// the start-up log.
func (r *Replicated) Replicas() []string {
	names := make([]string, len(r.replicas))
	for i, rep := range r.replicas {
		names[i] = rep.name
	}
	return names
}

// rest keeps reads off rep for replicaRest after it failed with err, and
// logs when it was usable until now.
func (r *Replicated) rest(rep *replica, err error) {
	rep.downUntil.Store(time.Now().Add(replicaRest).UnixNano())
	if log := r.log.Load(); rep.down.CompareAndSwap(false, true) && log != nil {
		log.Warn("postgres: read replica unusable, its reads go to the primary", "replica", rep.name, "err", err)
	}
}

// answered notes that rep answered, and logs when it had been unusable.
func (r *Replicated) answered(rep *replica) {
	if log := r.log.Load(); rep.down.CompareAndSwap(true, false) && log != nil {
		log.Info("postgres: read replica usable again", "replica", rep.name)
	}
}

// Close releases the connections to the replicas and the primary.
func (r *Replicated) Close() error {
	for _, rep := range r.replicas {
		rep.store.Close()
	}
	return r.Store.Close()
}

// raise moves the floor up to the primary's WAL insert position, which is
// past every transaction committed before it is read.
func (r *Replicated) raise(ctx context.Context) error {
	var at int64
	if err := r.Store.pool.QueryRow(ctx, "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint").Scan(&at); err != nil {
		return fmt.Errorf("postgres: the primary's WAL position: %w", err)
	}
	raiseTo(&r.floor, at)
	r.unknown.Store(false)
	return nil
}

// raiseTo sets v to at when at is larger.
func raiseTo(v *atomic.Int64, at int64) {
	for old := v.Load(); at > old && !v.CompareAndSwap(old, at); old = v.Load() {
	}
}

// wrote raises the floor past a write that succeeded; when the primary's
// position cannot be read, reads go to the primary until it can. The write
// itself stands either way.
func (r *Replicated) wrote(ctx context.Context, err error) error {
	if err == nil && r.raise(context.WithoutCancel(ctx)) != nil {
		r.unknown.Store(true)
	}
	return err
}

// pick returns the replica a read goes to, nil for the primary.
func (r *Replicated) pick(ctx context.Context) *replica {
	rep := r.choose(ctx)
	if rep == nil {
		r.primaryReads.Add(1)
	}
	return rep
}

func (r *Replicated) choose(ctx context.Context) *replica {
	n := uint64(len(r.replicas))
	if n == 0 || dynamo.LatestReads(ctx) || r.unknown.Load() {
		return nil
	}
	floor, now := r.floor.Load(), time.Now().UnixNano()
	first := r.next.Add(1)
	var lagging *replica
	for i := range n {
		rep := r.replicas[(first+i)%n]
		if rep.downUntil.Load() > now {
			continue
		}
		if rep.replayed.Load() >= floor {
			return rep
		}
		if lagging == nil {
			lagging = rep
		}
	}
	// None is known to be far enough: ask one where it is now.
	if lagging != nil && r.refresh(ctx, lagging) >= floor {
		return lagging
	}
	for r.waitReplay && lagging != nil && lagging.downUntil.Load() <= time.Now().UnixNano() {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Millisecond):
		}
		if r.refresh(ctx, lagging) >= floor {
			return lagging
		}
	}
	return nil
}

// refresh reads how far the replica has replayed.
func (r *Replicated) refresh(ctx context.Context, rep *replica) int64 {
	var at int64
	if err := rep.store.pool.QueryRow(ctx, "SELECT coalesce((pg_last_wal_replay_lsn() - '0/0')::bigint, 0)").Scan(&at); err != nil {
		if replicaFault(ctx, err) {
			r.rest(rep, fmt.Errorf("replay position: %w", err))
		}
		return 0
	}
	r.answered(rep)
	raiseTo(&rep.replayed, at)
	return rep.replayed.Load()
}

// read runs fn on the store pick chooses; when a replica fails for a reason
// of its own (down, or a query cancelled by a conflict with recovery), it
// rests and fn runs again on the primary.
func read[T any](ctx context.Context, r *Replicated, fn func(*Store) (T, error)) (T, error) {
	rep := r.pick(ctx)
	if rep == nil {
		return fn(r.Store)
	}
	v, err := fn(rep.store)
	if !replicaFault(ctx, err) {
		if err == nil {
			r.answered(rep)
		}
		return v, err
	}
	r.rest(rep, err)
	return fn(r.Store)
}

// replicaFault reports whether err is a replica's own failure, which the
// primary may not share: not an answer (no such source, a bad query) nor
// the end of ctx.
func replicaFault(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && !errors.Is(err, dynamo.ErrNotFound) && !errors.Is(err, dynamo.ErrInvalid)
}

// WatchChanges reports the primary's changes, each after the floor has
// risen past it.
func (r *Replicated) WatchChanges(ctx context.Context) (<-chan dynamo.Change, error) {
	in, err := r.Store.WatchChanges(ctx)
	if err != nil {
		return nil, err
	}
	// Changes made before the primary listened were never announced.
	if err := r.raise(ctx); err != nil {
		return nil, fmt.Errorf("watch changes: %w", err)
	}
	out := make(chan dynamo.Change, cap(in))
	go func() {
		defer close(out)
		batch := make([]dynamo.Change, 0, cap(in))
		for c := range in {
			batch = append(batch[:0], c)
		drain:
			for len(batch) < cap(batch) {
				select {
				case c, ok := <-in:
					if !ok {
						break drain
					}
					batch = append(batch, c)
				default:
					break drain
				}
			}
			if !r.raiseRetrying(ctx) {
				return
			}
			for _, c := range batch {
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// raiseRetrying raises the floor, retrying with back-off while the
// primary does not answer; false when ctx ends first.
func (r *Replicated) raiseRetrying(ctx context.Context) bool {
	for wait := watchMinWait; ; wait = min(2*wait, watchMaxWait) {
		if r.raise(ctx) == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
	}
}

// Reads, on a replica when one is far enough.

func (r *Replicated) Source(ctx context.Context, id string) (*dynamo.Source, error) {
	return read(ctx, r, func(s *Store) (*dynamo.Source, error) { return s.Source(ctx, id) })
}

func (r *Replicated) Sources(ctx context.Context) ([]dynamo.Source, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.Source, error) { return s.Sources(ctx) })
}

func (r *Replicated) Collections(ctx context.Context) ([]dynamo.Source, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.Source, error) { return s.Collections(ctx) })
}

// EachSource walks on a replica (walk).
func (r *Replicated) EachSource(ctx context.Context, collections bool, fn func(*dynamo.Source) error) error {
	return walk(ctx, r, func(s *Store, fn func(*dynamo.Source) error) error { return s.EachSource(ctx, collections, fn) }, fn)
}

// EachItem walks on a replica (walk).
func (r *Replicated) EachItem(ctx context.Context, q dynamo.ItemQuery, fn func(*dynamo.ArchivedItem) error) error {
	return walk(ctx, r, func(s *Store, fn func(*dynamo.ArchivedItem) error) error { return s.EachItem(ctx, q, fn) }, fn)
}

// ArchiveAnswer is Store.ArchiveAnswer on a replica, as EachItem: a
// replica's fault before the first item is retried on the primary, which
// calls start again.
func (r *Replicated) ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	return walk(ctx, r, func(s *Store, fn func(*dynamo.ArchivedItem) error) error { return s.ArchiveAnswer(ctx, q, start, fn) }, fn)
}

// walk runs a walk over rows (each, handing fn every row) on a replica; a
// replica's fault is retried on the primary only before fn has seen a row,
// so that no row is handed twice.
func walk[T any](ctx context.Context, r *Replicated, each func(s *Store, fn func(T) error) error, fn func(T) error) error {
	rep := r.pick(ctx)
	if rep == nil {
		return each(r.Store, fn)
	}
	called := false
	err := each(rep.store, func(v T) error {
		called = true
		return fn(v)
	})
	if called || !replicaFault(ctx, err) {
		if err == nil {
			r.answered(rep)
		}
		return err
	}
	r.rest(rep, err)
	return each(r.Store, fn)
}

func (r *Replicated) Polls(ctx context.Context, sourceID string, limit int) ([]dynamo.PollLogEntry, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.PollLogEntry, error) { return s.Polls(ctx, sourceID, limit) })
}

func (r *Replicated) Versions(ctx context.Context, sourceID string) ([]dynamo.Version, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.Version, error) { return s.Versions(ctx, sourceID) })
}

func (r *Replicated) Document(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	type docVersion struct {
		doc *dynamo.Resource
		v   *dynamo.Version
	}
	dv, err := read(ctx, r, func(s *Store) (docVersion, error) {
		doc, v, err := s.Document(ctx, sourceID, index)
		return docVersion{doc, v}, err
	})
	return dv.doc, dv.v, err
}

func (r *Replicated) Head(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	type docVersion struct {
		doc *dynamo.Resource
		v   *dynamo.Version
	}
	dv, err := read(ctx, r, func(s *Store) (docVersion, error) {
		doc, v, err := s.Head(ctx, sourceID, index)
		return docVersion{doc, v}, err
	})
	return dv.doc, dv.v, err
}

func (r *Replicated) Items(ctx context.Context, q dynamo.ItemQuery) ([]dynamo.ArchivedItem, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.ArchivedItem, error) { return s.Items(ctx, q) })
}

func (r *Replicated) Page(ctx context.Context, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	return read(ctx, r, func(s *Store) (*dynamo.ArchivePage, error) { return s.Page(ctx, q) })
}

func (r *Replicated) Aggregate(ctx context.Context, q dynamo.AggregateQuery) ([]dynamo.AggregatedItem, error) {
	return read(ctx, r, func(s *Store) ([]dynamo.AggregatedItem, error) { return s.Aggregate(ctx, q) })
}

func (r *Replicated) AggregatePage(ctx context.Context, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	return read(ctx, r, func(s *Store) (*dynamo.AggregatePage, error) { return s.AggregatePage(ctx, q) })
}

func (r *Replicated) Stats(ctx context.Context) (dynamo.Stats, error) {
	return read(ctx, r, func(s *Store) (dynamo.Stats, error) { return s.Stats(ctx) })
}

// Writes, on the primary, each raising the floor past itself.

func (r *Replicated) CreateSource(ctx context.Context, src *dynamo.Source) error {
	return r.wrote(ctx, r.Store.CreateSource(ctx, src))
}

func (r *Replicated) UpdateSource(ctx context.Context, src *dynamo.Source) error {
	return r.wrote(ctx, r.Store.UpdateSource(ctx, src))
}

func (r *Replicated) DeleteSource(ctx context.Context, id string, purge bool) error {
	return r.wrote(ctx, r.Store.DeleteSource(ctx, id, purge))
}

func (r *Replicated) LeaseDue(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts dynamo.LeaseHosts) ([]dynamo.Source, error) {
	srcs, err := r.Store.LeaseDue(ctx, owner, now, limit, ttl, hosts)
	return srcs, r.wrote(ctx, err)
}

func (r *Replicated) LeaseSource(ctx context.Context, id, owner string, now time.Time, ttl time.Duration) (*dynamo.Source, error) {
	src, err := r.Store.LeaseSource(ctx, id, owner, now, ttl)
	return src, r.wrote(ctx, err)
}

func (r *Replicated) ReleaseLeases(ctx context.Context, owner string) error {
	return r.wrote(ctx, r.Store.ReleaseLeases(ctx, owner))
}

func (r *Replicated) RecordPoll(ctx context.Context, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	res, err := r.Store.RecordPoll(ctx, rec, decide)
	return res, r.wrote(ctx, err)
}

func (r *Replicated) SetNextPolls(ctx context.Context, next map[string]time.Time) error {
	return r.wrote(ctx, r.Store.SetNextPolls(ctx, next))
}

func (r *Replicated) PutSetting(ctx context.Context, key, value string) error {
	return r.wrote(ctx, r.Store.PutSetting(ctx, key, value))
}

func (r *Replicated) DeleteSetting(ctx context.Context, key string) error {
	return r.wrote(ctx, r.Store.DeleteSetting(ctx, key))
}

// A subscription's writes raise the floor too: a source's summary, read
// from a replica, tells whether its hub pushes (Summary.PushedUntil), which
// they change. The other WebSub reads and writes stay on the primary.

func (r *Replicated) PutSubscription(ctx context.Context, sub *dynamo.Subscription) error {
	return r.wrote(ctx, r.Store.PutSubscription(ctx, sub))
}

func (r *Replicated) DeleteSubscription(ctx context.Context, sourceID string) error {
	return r.wrote(ctx, r.Store.DeleteSubscription(ctx, sourceID))
}
