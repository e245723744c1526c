package archive

import (
	"errors"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// TestRemovalAndLease checks the decisions both stores take on a row they
// read: what deleting a source does, and whether a poll holds its lease.
func TestRemovalAndLease(t *testing.T) {
	for _, tc := range []struct {
		found, removed bool
		versions       int
		purge          bool
		drop           bool
		err            error
	}{
		{false, false, 0, false, false, dynamo.ErrNotFound},
		{false, false, 0, true, false, dynamo.ErrNotFound},
		{true, false, 3, false, false, nil},
		{true, false, 0, false, true, nil},
		{true, false, 3, true, true, nil},
		{true, true, 3, false, false, dynamo.ErrNotFound},
		{true, true, 3, true, true, nil},
	} {
		drop, err := Removal(tc.found, tc.removed, tc.versions, tc.purge)
		if drop != tc.drop || !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Errorf("Removal(found %v, removed %v, %d versions, purge %v) = %v, %v; want %v, %v",
				tc.found, tc.removed, tc.versions, tc.purge, drop, err, tc.drop, tc.err)
		}
	}
	rec := dynamo.PollRecord{SourceID: "a", Owner: "me"}
	for _, tc := range []struct {
		rec            dynamo.PollRecord
		found          bool
		owner          string
		removed, holds bool
	}{
		{rec, true, "me", false, true},
		{rec, true, "other", false, false},
		{rec, true, "", false, false},
		{rec, false, "", false, false},
		{rec, true, "me", true, false},
		{dynamo.PollRecord{SourceID: "a"}, true, "", false, false},
	} {
		err := CheckLease(tc.rec, tc.found, tc.owner, tc.removed)
		if (err == nil) != tc.holds || err != nil && !errors.Is(err, dynamo.ErrLeaseLost) {
			t.Errorf("CheckLease(owner %q, found %v, held by %q, removed %v) = %v", tc.rec.Owner, tc.found, tc.owner, tc.removed, err)
		}
	}
	if StagedBatch(true, 7, 7) != nil || !errors.Is(StagedBatch(true, 8, 7), ErrStagingLost) || !errors.Is(StagedBatch(false, 0, 7), ErrStagingLost) {
		t.Error("StagedBatch decided wrongly")
	}
}
