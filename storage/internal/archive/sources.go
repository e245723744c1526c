package archive

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// SourceColumns is what ScanSource reads of the sources table s, in its
// order, but for the last column, which each store adds its own way: the
// source's polls by outcome, as a JSON object. The lease end of the
// source's active WebSub subscription (Summary.PushedUntil) is read with
// it, so that a poll learns whether its hub pushes with its lease.
const SourceColumns = `s.id, s.url, s.kind, s.interval_ns, s.policy, s.category, s.title_prefix,
	s.subscribers, s.timezone, s.paused, s.created_at,
	s.etag, s.last_modified, s.body_hash, s.last_poll, s.next_poll, s.last_change,
	s.last_status, s.errors, s.last_error, s.schedule,
	s.title, s.last_seq, s.item_count,
	(SELECT count(*) FROM duplicates d WHERE d.source_id = s.id),
	s.last_version_at, s.lease_owner, s.lease_expires,
	s.selectors, s.poll_warnings, s.ignore_robots, s.user_title,
	(SELECT w.lease_ends FROM websub_subscriptions w WHERE w.source_id = s.id AND w.state = '` + string(dynamo.SubActive) + `')`

// ScanSource reads a row of SourceColumns and the poll counts.
func ScanSource(row Scanner) (dynamo.Source, error) {
	var (
		s                                 dynamo.Source
		interval                          int64
		kind, status, selectors, warnings string
		schedule, polls                   []byte
	)
	st, sum := &s.State, &s.Summary
	err := row.Scan(&s.ID, &s.URL, &kind, &interval, &s.Policy, &s.Category, &s.TitlePrefix,
		&s.Subscribers, &s.Timezone, &s.Paused, Time(&s.CreatedAt),
		&st.ETag, &st.LastModified, &st.BodyHash, Time(&st.LastPoll), Time(&st.NextPoll), Time(&st.LastChange),
		&status, &st.Errors, &st.LastError, &schedule,
		&sum.Title, &sum.Versions, &sum.Items, &sum.Duplicates,
		Time(&sum.LastVersionAt), &sum.LeaseOwner, Time(&sum.LeaseExpires),
		&selectors, &warnings, &s.IgnoreRobots, &s.Title, Time(&sum.PushedUntil), &polls)
	if err != nil {
		return s, err
	}
	if err := s.SetSelectorsText(selectors); err != nil {
		return s, err
	}
	if st.Warnings, err = ParseWarnings(warnings); err != nil {
		return s, fmt.Errorf("source %s: %w", s.ID, err)
	}
	s.Kind, s.Interval, st.LastStatus = dynamo.SourceKind(kind), dynamo.Duration(interval), dynamo.PollStatus(status)
	if schedule != nil {
		st.Schedule = json.RawMessage(schedule)
	}
	if len(polls) > 0 && string(polls) != "{}" {
		if err := json.Unmarshal(polls, &sum.Polls); err != nil {
			return s, fmt.Errorf("poll counts of %s: %w", s.ID, err)
		}
	}
	return s, nil
}

// AnswerSourceColumns is what ScanAnswerSource reads of a source s: what an
// answer about a collection takes of it (its id, address, titles, when it
// was made and last changed, its counts of versions and items, its next
// poll and whether it is paused), without the duplicates, poll outcomes and
// subscription SourceColumns gathers from other tables. The store adds
// three columns of its newest version's head: its URL, stamp and channel
// (the JSON ScanHead reads), NULL when it has none (a version row joined
// to s by LEFT JOIN).
const AnswerSourceColumns = `s.id, s.url, s.paused, s.created_at, s.next_poll,
	s.title, s.last_seq, s.item_count, s.last_version_at, s.user_title`

// CheckAnswerQuery says whether q is a query an archive answer
// (Store.ArchiveAnswer) can serve: one over a collection's archive, not a
// version's items.
func CheckAnswerQuery(q dynamo.ItemQuery) error {
	if q.Version != 0 {
		return fmt.Errorf("items of %s: an archive answer reads no version (%d): %w", q.SourceID, q.Version, dynamo.ErrInvalid)
	}
	return nil
}

// ScanAnswerSource reads a row of AnswerSourceColumns and the newest
// version's three columns: the source with those fields only, and the
// version's head with its URL, Timestamp and Channel only, nil when the
// source has no version.
func ScanAnswerSource(row Scanner) (*dynamo.Source, *dynamo.Resource, error) {
	s := &dynamo.Source{}
	var url *string
	var stamp time.Time
	var channel []byte
	sum := &s.Summary
	err := row.Scan(&s.ID, &s.URL, &s.Paused, Time(&s.CreatedAt), Time(&s.State.NextPoll),
		&sum.Title, &sum.Versions, &sum.Items, Time(&sum.LastVersionAt), &s.Title, &url, Time(&stamp), &channel)
	if err != nil {
		return nil, nil, err
	}
	if url == nil {
		return s, nil, nil
	}
	head := &dynamo.Resource{URL: *url, Timestamp: stamp}
	if err := json.Unmarshal(channel, &head.Channel); err != nil {
		return nil, nil, fmt.Errorf("channel of version 1 of %s: %w", s.ID, err)
	}
	return s, head, nil
}

// NewSourceColumns are the columns CreateSource writes, and NewSourceArgs
// their values in this order.
const NewSourceColumns = `id, url, kind, interval_ns, policy, category, title_prefix, subscribers, timezone, paused,
	created_at, etag, last_modified, body_hash, last_poll, next_poll, last_change, last_status, errors, last_error,
	schedule, selectors, poll_warnings, ignore_robots, user_title`

// NewSourceArgs are a new source's values for NewSourceColumns, its times
// written as at writes them.
func NewSourceArgs(src *dynamo.Source, at func(time.Time) any) []any {
	st := src.State
	return []any{src.ID, src.URL, string(src.Kind), int64(src.Interval), src.Policy, src.Category, src.TitlePrefix,
		src.Subscribers, src.Timezone, src.Paused, at(src.CreatedAt),
		st.ETag, st.LastModified, st.BodyHash, at(st.LastPoll), at(st.NextPoll), at(st.LastChange),
		string(st.LastStatus), st.Errors, st.LastError, ScheduleArg(st.Schedule),
		src.SelectorsText(), WarningsText(st.Warnings), src.IgnoreRobots, src.Title}
}

// ConfigArgs are the values UpdateSource writes, in this order: the id,
// then the columns url, kind, interval_ns, policy, category, title_prefix,
// subscribers, timezone, paused, selectors, ignore_robots and user_title.
func ConfigArgs(src *dynamo.Source) []any {
	return []any{src.ID, src.URL, string(src.Kind), int64(src.Interval), src.Policy, src.Category,
		src.TitlePrefix, src.Subscribers, src.Timezone, src.Paused, src.SelectorsText(), src.IgnoreRobots, src.Title}
}

// PrepareNew checks a source about to be created and sets a zero
// CreatedAt to now, to the microsecond both stores keep.
func PrepareNew(src *dynamo.Source) error {
	if src.ID == "" {
		return fmt.Errorf("create source: empty id: %w", dynamo.ErrInvalid)
	}
	if src.CreatedAt.IsZero() {
		src.CreatedAt = time.Now()
	}
	src.CreatedAt = src.CreatedAt.UTC().Truncate(time.Microsecond)
	return nil
}

// ScheduleArg writes the scheduler's state byte for byte, or NULL when
// there is none: raw JSON to pgx, a BLOB to SQLite.
func ScheduleArg(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return []byte(raw)
}

// CheckOwner refuses a lease for nobody.
func CheckOwner(what, owner string) error {
	if owner == "" {
		return fmt.Errorf("%s: empty owner: %w", what, dynamo.ErrInvalid)
	}
	return nil
}

// PickDue reads the due sources' (id, url) rows, in the order of their
// next polls, and returns the ids hosts.Pick chooses among them.
func PickDue(rows Rows, hosts dynamo.LeaseHosts, limit int) ([]string, error) {
	var ids, urls []string
	for rows.Next() {
		var id, url string
		if err := rows.Scan(&id, &url); err != nil {
			return nil, err
		}
		ids, urls = append(ids, id), append(urls, url)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var chosen []string
	for _, i := range hosts.Pick(urls, limit) {
		chosen = append(chosen, ids[i])
	}
	return chosen, nil
}

// SortByNextPoll orders leased sources as LeaseDue returns them: next
// poll first, then id.
func SortByNextPoll(list []dynamo.Source) {
	slices.SortFunc(list, func(a, b dynamo.Source) int {
		if c := a.State.NextPoll.Compare(b.State.NextPoll); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// PollColumns is what ScanPoll reads of the poll_log table, in its order.
const PollColumns = `source_id, at, status, duration_ns, new_items, error, http_status, bytes`

// ScanPoll reads a row of PollColumns.
func ScanPoll(row Scanner) (dynamo.PollLogEntry, error) {
	var e dynamo.PollLogEntry
	var status string
	var d int64
	err := row.Scan(&e.SourceID, Time(&e.At), &status, &d, &e.NewItems, &e.Error, &e.HTTPStatus, &e.Bytes)
	e.Status, e.Duration = dynamo.PollStatus(status), time.Duration(d)
	return e, err
}

// Removal decides what DeleteSource does with the source row it read
// (found, removed, its versions): drop it, with its archive, when purge is
// set or it has no versions; else mark it removed, its archive kept.
// dynamo.ErrNotFound for an unknown source, and for a removed one unless
// purge.
func Removal(found, removed bool, versions int, purge bool) (drop bool, err error) {
	if !found || removed && !purge {
		return false, dynamo.ErrNotFound
	}
	return purge || versions == 0, nil
}
