package poller

import (
	"context"
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
	status   dynamo.PollStatus
	resp     *fetch.Response  // nil when the fetch failed
	document *dynamo.Resource // nil unless a body was parsed
	notBelow time.Time        // the origin's freshness floor
	err      error            // why the poll failed
	// parsed says a body was read, and warnings what reading it found:
	// they replace the source's kept warnings.
	parsed   bool
	warnings []dynamo.Warning
}

// poll fetches a leased source, records what it found and returns the
// outcome. Whatever happens, the store is told, so the lease is released
// and the source's next poll is set.
func (p *Poller) poll(ctx context.Context, src *dynamo.Source) (dynamo.PollOutcome, error) {
	start := p.cfg.Now()
	r := p.retrieve(ctx, src, start)
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
		return p.update(src, r, res, start, dups)
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
	return outcome(r, result), nil
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
	resp, err := p.cfg.Fetcher.Get(ctx, fetch.Request{
		URL:          src.URL,
		ETag:         src.State.ETag,
		LastModified: src.State.LastModified,
	})
	if err != nil {
		r := read{status: dynamo.StatusError, err: err}
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.RetryAfter > 0 {
			r.notBelow = at.Add(fe.RetryAfter)
		}
		return r
	}
	r := read{resp: resp, notBelow: resp.Expires}
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

// update is the source's new state after a poll, decided inside the
// transaction that stores it.
func (p *Poller) update(src *dynamo.Source, r read, res dynamo.PollResult, at time.Time, dups []dynamo.Duplicate) dynamo.PollUpdate {
	state := src.State
	state.LastPoll = at
	state.LastStatus = r.status
	if r.parsed {
		state.Warnings = dynamo.KeepWarnings(r.warnings)
	}
	ps, err := p.policySource(src)
	if err != nil {
		p.cfg.Logger.Warn("schedule state unreadable; starting afresh", "source", src.ID, "err", err)
	}
	learnt := ps.State
	if r.err != nil {
		state.Errors++
		state.LastError = r.err.Error()
		p.mu.Lock()
		learnt.Fail(at, p.cfg.PolicyConfig, p.rnd)
		p.mu.Unlock()
	} else {
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
