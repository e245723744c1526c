package archive

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// PollWriter is what a store provides for RecordPoll: its write
// transactions of one poll, and its batches.
type PollWriter interface {
	// Write runs fn in a write transaction that has read the poll's
	// source first (and, where the store can, locked its row), or fails
	// with dynamo.ErrLeaseLost before fn when rec.Owner does not hold the
	// source's lease or the source is removed or unknown. hash is the
	// content hash of a document fn may store as the source's next
	// version ("" for none): a store may read, with the source's row,
	// what writing that version asks first when the source's content is
	// another (VersionTx.Previous, LastNumber).
	Write(ctx context.Context, rec dynamo.PollRecord, hash string, fn func(tx PollTx, src LeasedSource) error) error
	// Batches are the transactions of version seq of the poll's source,
	// staged by attempt (StageVersion).
	Batches(rec dynamo.PollRecord, attempt int64, seq int, at time.Time) Batches
}

// LeasedSource is what a poll's transaction reads of its source.
type LeasedSource struct {
	LastSeq  int
	LastHash string
	Staging  int64 // the attempt whose batches the source's hidden rows are, 0 for none
}

// PollTx is the SQL a store runs in the transaction of a poll.
type PollTx interface {
	// Version is the store's VersionTx for version seq, seen at at, in
	// this transaction.
	Version(seq int, at time.Time) VersionTx
	// DropStaged deletes the rows an unfinished batched write of the
	// source left (staging is not 0): the items stored under a sequence
	// number the source has not reached, then the revisions beyond its
	// published one; and clears the staging mark.
	DropStaged(ctx context.Context, staging int64) error
	// Stage marks the source's rows beyond its last version as attempt's
	// (0: none).
	Stage(ctx context.Context, attempt int64) error
	// Finish numbers the poll's stories (rec.Stories), asks decide and
	// writes its answer: the source's state, the poll log, duplicates; it
	// releases the lease.
	Finish(ctx context.Context, at time.Time, result *dynamo.PollResult, decide func(dynamo.PollResult) dynamo.PollUpdate) error
}

// errWriteWhole sends RecordPoll's batched write to the one-transaction
// path: its content is the version stored already, or another writer took
// over the rows it staged.
var errWriteWhole = errors.New("write the poll in one transaction")

// RecordPoll applies one poll through w (dynamo.Store.RecordPoll): a new
// version of more than batch items is written in batches first
// (docs/STORAGE.md "Large versions"); every other poll is one transaction.
// The poll's time is kept to the microsecond, as both stores keep times.
func RecordPoll(ctx context.Context, w PollWriter, batch int, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	at := rec.At.UTC().Truncate(time.Microsecond)
	if rec.Document != nil && len(rec.Document.Items) > batch {
		result, err := recordBatched(ctx, w, batch, rec, at, decide)
		if err == nil {
			return result, nil
		}
		if !errors.Is(err, errWriteWhole) {
			return dynamo.PollResult{}, fmt.Errorf("record poll of %s: %w", rec.SourceID, err)
		}
	}
	var result dynamo.PollResult
	var hash string
	if rec.Document != nil {
		hash = dynamo.ContentHash(rec.Document)
	}
	err := w.Write(ctx, rec, hash, func(tx PollTx, src LeasedSource) error {
		result = dynamo.PollResult{}
		if doc := rec.Document; doc != nil {
			result.Seen = len(doc.Items)
			if src.LastSeq == 0 || hash != src.LastHash {
				if err := tx.DropStaged(ctx, src.Staging); err != nil {
					return err
				}
				seq := src.LastSeq + 1
				var err error
				if result.Version, result.NewItems, err = WriteVersion(ctx, tx.Version(seq, at), rec.SourceID, seq, at, hash, doc); err != nil {
					return err
				}
			}
		}
		return tx.Finish(ctx, at, &result, decide)
	})
	if err != nil {
		return dynamo.PollResult{}, fmt.Errorf("record poll of %s: %w", rec.SourceID, err)
	}
	return result, nil
}

// recordBatched writes a new version in batches (StageVersion), so that
// no transaction of it holds the source's row, or the store's writer, for
// long: a first transaction checks the lease and marks the source's
// staging as this attempt's, deleting any rows a stopped attempt left; the
// batches store the revisions and new items hidden; a last one publishes
// them with the version and writes the rest of the poll.
func recordBatched(ctx context.Context, w PollWriter, batch int, rec dynamo.PollRecord, at time.Time, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	doc := rec.Document
	hash := dynamo.ContentHash(doc)
	attempt := rand.Int64N(math.MaxInt64) + 1
	var seq int
	err := w.Write(ctx, rec, "", func(tx PollTx, src LeasedSource) error {
		if src.LastSeq > 0 && hash == src.LastHash {
			return errWriteWhole
		}
		if err := tx.DropStaged(ctx, src.Staging); err != nil {
			return err
		}
		seq = src.LastSeq + 1
		if err := tx.Stage(ctx, attempt); err != nil {
			return fmt.Errorf("mark staging: %w", err)
		}
		return nil
	})
	if err != nil {
		return dynamo.PollResult{}, err
	}
	st, err := StageVersion(ctx, w.Batches(rec, attempt, seq, at), batch, rec.SourceID, seq, at, hash, doc)
	if errors.Is(err, ErrStagingLost) {
		return dynamo.PollResult{}, errWriteWhole
	}
	if err != nil {
		return dynamo.PollResult{}, err
	}
	var result dynamo.PollResult
	err = w.Write(ctx, rec, "", func(tx PollTx, src LeasedSource) error {
		if src.Staging != attempt || src.LastSeq != seq-1 {
			return errWriteWhole
		}
		result = dynamo.PollResult{Seen: len(doc.Items)}
		var err error
		if result.Version, result.NewItems, err = st.Publish(ctx, tx.Version(seq, at)); err != nil {
			return err
		}
		if err := tx.Stage(ctx, 0); err != nil {
			return fmt.Errorf("publish version %d: %w", seq, err)
		}
		return tx.Finish(ctx, at, &result, decide)
	})
	return result, err
}

// CheckLease is what a poll's transaction decides of the source row it
// read (found, its lease's owner, removed): dynamo.ErrLeaseLost unless
// rec.Owner holds the lease of an active source.
func CheckLease(rec dynamo.PollRecord, found bool, owner string, removed bool) error {
	if !found || removed || rec.Owner == "" || owner != rec.Owner {
		return dynamo.ErrLeaseLost
	}
	return nil
}

// StagedBatch is what a batch's transaction decides of the staging mark it
// read (found, staging): ErrStagingLost unless the source is still staged
// by attempt.
func StagedBatch(found bool, staging, attempt int64) error {
	if !found || staging != attempt {
		return ErrStagingLost
	}
	return nil
}
