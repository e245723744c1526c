package poller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// read is what one retrieval produced, before it is stored.
type read struct {
	status dynamo.PollStatus
	resp   *fetch.Response // nil when the fetch failed
	// httpStatus is the origin's status, also for a status error; 0 when
	// no answer came.
	httpStatus int
	document   *dynamo.Resource // nil unless a body was parsed
	notBelow   time.Time        // the origin's freshness floor
	err        error            // why the poll failed
	// parsed says a body was read, and warnings what reading it found:
	// they replace the source's kept warnings.
	parsed   bool
	warnings []dynamo.Warning
	// pushed says the body came from the source's WebSub hub, not a fetch.
	pushed bool
}

// poll fetches a leased source, records what it found and returns the
// outcome. Whatever happens, the store is told, so the lease is released
// and the source's next poll is set.
func (p *Poller) poll(ctx context.Context, src *dynamo.Source) (dynamo.PollOutcome, error) {
	start := p.cfg.Now()
	fetchCtx, lost := context.WithCancel(ctx)
	stopRenewing := p.renew(fetchCtx, lost, src.ID)
	r := p.retrieve(fetchCtx, src, start)
	// Renewal stops before the record: a renewal after it would lease the
	// source again. The last one left at least two thirds of the lease.
	stopRenewing()
	lost()
	return p.record(ctx, src, r, start)
}

// Push reads a body that source id's WebSub hub pushed (docs/WEBSUB.md)
// exactly as a poll reads a fetched body: the same parse, a version only
// when the content changed, the same duplicate detection, in one
// transaction with the source's state. What the push teaches is learnt as
// a push (policy.State.Pushed), not a poll, so the safety polls go on.
// dynamo.ErrConflict when another poller is polling the source.
func (p *Poller) Push(ctx context.Context, id string, body []byte, contentType, url string) (dynamo.PollOutcome, error) {
	p.reclaim(ctx)
	release, err := p.claimWaiting(ctx, id)
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("push %s: %w", id, err)
	}
	defer release()
	start := p.cfg.Now()
	src, err := p.store.LeaseSource(ctx, id, p.cfg.Owner, start, p.cfg.LeaseTTL)
	if errors.Is(err, dynamo.ErrLeaseLost) {
		return dynamo.PollOutcome{}, &heldError{fmt.Sprintf("push %s: %s", id, p.holder(ctx, id))}
	}
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("push %s: %w", id, err)
	}
	sum := sha256.Sum256(body)
	resp := &fetch.Response{URL: url, StatusCode: 200, Body: body, ContentType: contentType, BodyHash: hex.EncodeToString(sum[:])}
	r := p.read(src, resp, start)
	r.pushed = true
	return p.record(ctx, src, r, start)
}

// record stores what a poll or a push read and returns the outcome.
func (p *Poller) record(ctx context.Context, src *dynamo.Source, r read, start time.Time) (dynamo.PollOutcome, error) {
	pushing := src.Summary.Pushed(start)
	rec := dynamo.PollRecord{
		SourceID: src.ID,
		Owner:    p.cfg.Owner,
		At:       start,
		Document: r.document,
	}
	stories := p.cfg.Duplicates
	if stories != nil {
		rec.Stories, rec.StoriesAfter, rec.StoriesSince = true, stories.Seq(), start.Add(-stories.Config().Window)
	}
	var batch *dedup.Batch
	result, err := p.store.RecordPoll(ctx, rec, func(res dynamo.PollResult) dynamo.PollUpdate {
		var dups []dynamo.Duplicate
		if stories != nil && len(res.NewItems) > 0 {
			// Serialized with every other poll storing new items: the
			// stories they stored first are known before deciding.
			stories.CatchUp(res.StoredSince)
			batch = stories.Detect(storyItems(src, res.NewItems))
			dups = batch.Duplicates()
		}
		return p.update(src, r, res, start, dups, pushing)
	})
	took := p.cfg.Now().Sub(start)
	status := r.status
	if err != nil {
		status = dynamo.StatusError
		p.cfg.Logger.Warn("record poll", "source", src.ID, "err", err)
	} else if batch != nil {
		stories.Commit(batch, result.StoriesSeq)
	}
	if p.cfg.OnPoll != nil {
		p.cfg.OnPoll(src.ID, status, took, err == nil && result.Version != nil)
	}
	if err != nil {
		return dynamo.PollOutcome{Status: dynamo.StatusError, Error: err.Error()}, fmt.Errorf("poll %s: %w", src.ID, err)
	}
	out := outcome(r, result)
	p.logPoll(src, r, out, took)
	return out, nil
}

// logPoll writes what an operator follows (docs/OPERATIONS.md "Logs"):
// every poll at debug; at info every stored version and the start and end
// of a failure streak, each once per streak, however many polls fail in
// between. The streak is the source's stored count of consecutive
// failures, so it is once per streak across every poller process too.
func (p *Poller) logPoll(src *dynamo.Source, r read, out dynamo.PollOutcome, took time.Duration) {
	log := p.cfg.Logger
	log.Debug("poll", "source", src.ID, "status", out.Status, "duration", took.Round(time.Millisecond), "http_status", r.httpStatus, "new_items", out.NewItems, "pushed", r.pushed)
	if out.Version > 0 {
		log.Info("stored version", "source", src.ID, "version", out.Version, "new_items", out.NewItems)
	}
	switch failing := out.Status == dynamo.StatusError; {
	case failing && src.State.Errors == 0:
		log.Warn("source failing", "source", src.ID, "url", src.URL, "reason", out.Error)
	case !failing && src.State.Errors > 0:
		log.Info("source recovered", "source", src.ID, "failed_polls", src.State.Errors, "last_reason", src.State.LastError)
	}
}

// renew keeps source id's lease alive while it is fetched, renewing it
// every third of the lease's length, so that leases can be short (a killed
// poller's sources return quickly) whatever the wait for the host's turn
// and the fetch take. When the lease turns out to be another poller's (it
// expired and was taken, say after a long pause of this process), lost
// ends the fetch: that poll will not be recorded. stop ends the renewals
// and waits for them.
func (p *Poller) renew(ctx context.Context, lost context.CancelFunc, id string) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(p.cfg.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := p.store.LeaseSource(ctx, id, p.cfg.Owner, p.cfg.Now(), p.cfg.LeaseTTL)
			switch {
			case errors.Is(err, dynamo.ErrLeaseLost), errors.Is(err, dynamo.ErrNotFound):
				p.cfg.Logger.Warn("lease lost during a poll; the poll is abandoned", "source", id, "err", err)
				lost()
				return
			case err != nil && ctx.Err() == nil:
				p.cfg.Logger.Warn("renew lease", "source", id, "err", err)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// storyItems returns what a detector of stories reads of a source's new
// items.
func storyItems(src *dynamo.Source, items []dynamo.ArchivedItem) []dynamo.StoryItem {
	out := make([]dynamo.StoryItem, len(items))
	for i, it := range items {
		out[i] = dynamo.StoryItem{
			Key:         dynamo.ItemKey{SourceID: src.ID, ItemID: it.Item.ID},
			FirstSeen:   it.FirstSeen,
			Title:       it.Item.Title,
			Description: it.Item.Description,
			TitlePrefix: src.TitlePrefix,
		}
	}
	return out
}

// outcome summarizes a recorded poll for PollNow's caller.
func outcome(r read, res dynamo.PollResult) dynamo.PollOutcome {
	out := dynamo.PollOutcome{Status: r.status, NewItems: len(res.NewItems)}
	if r.err != nil {
		out.Error = r.err.Error()
	}
	if res.Version != nil {
		out.Status = dynamo.StatusChanged
		out.Version = res.Version.Seq
	} else if r.status == dynamo.StatusChanged {
		// The body changed but its content did not (a timestamp, an ad).
		out.Status = dynamo.StatusUnchanged
	}
	return out
}

// retrieve fetches src conditionally and parses the body when it is new.
func (p *Poller) retrieve(ctx context.Context, src *dynamo.Source, at time.Time) read {
	if err := p.robotsAllow(ctx, src); err != nil {
		return read{status: dynamo.StatusError, err: err}
	}
	resp, err := p.cfg.Fetcher.Get(ctx, fetch.Request{
		URL:          src.URL,
		ETag:         src.State.ETag,
		LastModified: src.State.LastModified,
	})
	if err != nil {
		r := read{status: dynamo.StatusError, err: err}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			r.httpStatus = fe.StatusCode
			if fe.RetryAfter > 0 {
				r.notBelow = at.Add(fe.RetryAfter)
			}
		}
		return r
	}
	if p.cfg.OnBody != nil && !resp.NotModified {
		p.cfg.OnBody(ctx, src, resp)
	}
	return p.read(src, resp, at)
}

// read parses a retrieved body when it is new.
func (p *Poller) read(src *dynamo.Source, resp *fetch.Response, at time.Time) read {
	r := read{resp: resp, notBelow: resp.Expires, httpStatus: resp.StatusCode}
	switch {
	case resp.NotModified:
		r.status = dynamo.StatusNotModified
	case resp.BodyHash == src.State.BodyHash && src.State.BodyHash != "":
		r.status = dynamo.StatusUnchanged
	default:
		doc, ttl, warnings, err := p.parse(src, resp, at)
		r.parsed, r.warnings = true, warnings
		if err != nil {
			r.status, r.err = dynamo.StatusError, err
			return r
		}
		r.status, r.document = dynamo.StatusChanged, doc
		if ttl > 0 && at.Add(ttl).After(r.notBelow) {
			r.notBelow = at.Add(ttl)
		}
	}
	return r
}

// robotsAllow asks the host's robots.txt whether src's page may be
// fetched, for a page (not a native feed) that does not ignore it; the
// refusal is the poll's error.
func (p *Poller) robotsAllow(ctx context.Context, src *dynamo.Source) error {
	if p.cfg.Robots == nil || src.Kind == dynamo.KindFeed || src.IgnoreRobots {
		return nil
	}
	v, err := p.cfg.Robots.Check(ctx, src.URL)
	if err != nil {
		return err
	}
	if !v.Allowed {
		return errors.New(v.Reason + " (set ignore_robots on the source to poll it anyway)")
	}
	return nil
}

// update is the source's new state after a poll, decided inside the
// transaction that stores it.
func (p *Poller) update(src *dynamo.Source, r read, res dynamo.PollResult, at time.Time, dups []dynamo.Duplicate, pushing bool) dynamo.PollUpdate {
	state := src.State
	if !r.pushed {
		state.LastPoll = at
	}
	state.LastStatus = r.status
	if r.parsed {
		state.Warnings = dynamo.KeepWarnings(r.warnings)
	}
	ps, err := p.policySource(src)
	if err != nil {
		p.cfg.Logger.Warn("schedule state unreadable; starting afresh", "source", src.ID, "err", err)
	}
	ps.Push = pushing
	learnt := ps.State
	switch {
	case r.pushed:
		// A push is not a poll: the validators, the last poll, the error
		// count and the back-off stay; the content is learnt as a push.
		if r.err != nil {
			state.LastError = r.err.Error()
			break
		}
		if r.resp.BodyHash != "" {
			state.BodyHash = r.resp.BodyHash
		}
		if res.Version != nil {
			state.LastChange = at
		}
		learnt.Pushed(policy.Push{At: at, NewItems: len(res.NewItems), ItemDates: itemDates(res.NewItems), Location: ps.Location})
	case r.err != nil:
		state.Errors++
		state.LastError = r.err.Error()
		p.mu.Lock()
		learnt.Fail(at, p.cfg.PolicyConfig, p.rnd)
		p.mu.Unlock()
	default:
		state.Errors, state.LastError = 0, ""
		state.ETag, state.LastModified = r.resp.ETag, r.resp.LastModified
		if r.resp.BodyHash != "" && !r.resp.NotModified {
			state.BodyHash = r.resp.BodyHash
		}
		if res.Version != nil {
			state.LastChange = at
		}
		learnt.Learn(policy.Observation{
			At:        at,
			NewItems:  len(res.NewItems),
			ItemsSeen: seen(res, learnt),
			Changed:   res.Version != nil,
			ItemDates: itemDates(res.NewItems),
			NotBefore: r.notBelow,
			Location:  ps.Location,
		})
	}
	if raw, err := policy.MarshalState(*learnt); err == nil {
		state.Schedule = raw
	}
	ps.NotBefore = r.notBelow
	state.NextPoll = p.policyFor(src).Next(ps, at)
	if !state.NextPoll.After(at) {
		// Never hand the source straight back: a policy's "due now" is
		// the next tick, not this instant.
		state.NextPoll = at.Add(p.cfg.Tick)
	}
	entry := dynamo.PollLogEntry{
		SourceID: src.ID,
		At:       at,
		Status:   r.status,
		Duration: p.cfg.Now().Sub(at),
		NewItems: len(res.NewItems),
		Error:    state.LastError,
		// A page read but not parsed (refused for its size, say) still
		// came with a status and a body.
		HTTPStatus: r.httpStatus,
	}
	if r.resp != nil {
		entry.Bytes = int64(len(r.resp.Body))
	}
	if res.Version == nil && r.status == dynamo.StatusChanged {
		entry.Status = dynamo.StatusUnchanged
		state.LastStatus = dynamo.StatusUnchanged
	}
	return dynamo.PollUpdate{State: state, Log: entry, Duplicates: dups}
}

// seen is the document's capacity: what it holds now, or, when nothing was
// parsed, what it held last time.
func seen(res dynamo.PollResult, s *policy.State) int {
	if res.Seen > 0 {
		return res.Seen
	}
	return s.Capacity
}

// itemDates are the publication dates the new items carry.
func itemDates(items []dynamo.ArchivedItem) []time.Time {
	var dates []time.Time
	for i := range items {
		if d, ok := items[i].Item.Date(); ok {
			dates = append(dates, d)
		}
	}
	return dates
}
