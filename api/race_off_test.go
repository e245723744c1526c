//go:build !race

package api_test

// archiveStories is how many stories TestArchivedFeedWalk walks (see
// race_on_test.go for the race detector's).
const archiveStories = 25_000
