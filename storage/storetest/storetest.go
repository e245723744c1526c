// Package storetest is the conformance suite of dynamo.Store. Every store
// implementation runs it, so that PostgreSQL and the embedded store behave
// alike and as the root package's store.go documents.
//
// A store's test calls Run with a function that opens a fresh, empty store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) dynamo.Store { return openTestStore(t) })
//	}
//
// The suite's clock is fake: every time it passes to the store is derived
// from one fixed instant in whole seconds, so the documents it stores survive
// the XMLData round trip and the results do not depend on the machine.
package storetest

import (
	"slices"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// Run runs every conformance subtest in parallel, each on a store of its
// own. open must return a fresh, empty store and close it when its t ends.
func Run(t *testing.T, open func(t *testing.T) dynamo.Store) {
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// RunVersions runs, as Run does, the subtests that store and read
// versions (those from "Recording polls" to "Reading the archive"): for a
// second configuration of a store that changes only how versions are
// written.
func RunVersions(t *testing.T, open func(t *testing.T) dynamo.Store) {
	first := slices.IndexFunc(suite, func(tc subtest) bool { return tc.name == "VersionOnlyWhenContentChanges" })
	last := slices.IndexFunc(suite, func(tc subtest) bool { return tc.name == "Stats" })
	for _, tc := range suite[first : last+1] {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// Names lists the conformance subtests in the order Run starts them, for
// documentation and for stores that report which ones they pass.
func Names() []string {
	names := make([]string, len(suite))
	for i, tc := range suite {
		names[i] = tc.name
	}
	return names
}

type subtest struct {
	name string
	run  func(t *testing.T, s dynamo.Store)
}

var suite = []subtest{
	// Sources.
	{"SourceRoundTrip", testSourceRoundTrip},
	{"SourceConflict", testSourceConflict},
	{"SourcesOrderedByID", testSourcesOrderedByID},
	{"EachSource", testEachSource},
	{"UpdateSource", testUpdateSource},
	{"NewURLStartsAfresh", testNewURLStartsAfresh},
	{"DeleteKeepsArchive", testDeleteKeepsArchive},
	{"DeleteWithoutArchive", testDeleteWithoutArchive},
	{"DeletePurge", testDeletePurge},
	{"RecreateRevivesArchive", testRecreateRevivesArchive},

	// Recording polls.
	{"VersionOnlyWhenContentChanges", testVersionOnlyWhenContentChanges},
	{"RecordPollWritesUpdate", testRecordPollWritesUpdate},
	{"RecordPollWithoutDocument", testRecordPollWithoutDocument},
	{"RecordPollChecksLease", testRecordPollChecksLease},
	{"RecordPollRefusesBadText", testRecordPollRefusesBadText},
	{"ConcurrentWritersSameContent", testConcurrentWritersSameContent},
	{"ConcurrentWritersManySources", testConcurrentWritersManySources},
	{"ItemWithoutOwnIDKnownByTitle", testItemWithoutOwnIDKnownByTitle},
	{"ItemsComeBack", testItemsComeBack},
	{"StorageGrowsWithContentNotPolls", testStorageGrowsWithContentNotPolls},

	// Reading the archive.
	{"DocumentRebuildsExactly", testDocumentRebuildsExactly},
	{"Versions", testVersions},
	{"ArchiveItems", testArchiveItems},
	{"ArchivePages", testArchivePages},
	{"VersionItems", testVersionItems},
	{"EachItem", testEachItem},
	{"ArchiveAnswer", testArchiveAnswer},
	{"ConditionsLeftToRight", testConditionsLeftToRight},
	{"ConditionsAgreeWithMatch", testConditionsAgreeWithMatch},
	{"Aggregate", testAggregate},
	{"AggregatePages", testAggregatePages},
	{"StoryItems", testStoryItems},
	{"StoryNumbers", testStoryNumbers},
	{"StoryPollsSerialized", testStoryPollsSerialized},
	{"Stats", testStats},

	// Leases and scheduling.
	{"LeaseDue", testLeaseDue},
	{"LeaseDueByHost", testLeaseDueByHost},
	{"LeaseSource", testLeaseSource},
	{"ReleaseLeases", testReleaseLeases},
	{"ConcurrentLeaseDue", testConcurrentLeaseDue},
	{"SetNextPolls", testSetNextPolls},
	{"Polls", testPolls},

	// Settings and change notifications.
	{"Settings", testSettings},
	{"WatchChanges", testWatchChanges},

	// WebSub, both roles.
	{"SubscriptionRoundTrip", testSubscriptionRoundTrip},
	{"ClaimSubscriptions", testClaimSubscriptions},
	{"SourcesPushedUntil", testSourcesPushedUntil},
	{"HubSubscriptionRenewal", testHubSubscriptionRenewal},
	{"HubDeliveries", testHubDeliveries},
	{"ConcurrentLeaseDeliveries", testConcurrentLeaseDeliveries},
	{"FinishDeliveriesBatch", testFinishDeliveriesBatch},
	{"DeliveriesConcurrentWrites", testDeliveriesConcurrentWrites},
}
