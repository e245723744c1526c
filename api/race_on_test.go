//go:build race

package api_test

// archiveStories is how many stories TestArchivedFeedWalk walks. Under the
// race detector, which the suite runs this package with and which makes
// every request many times slower, a tenth of the 25,000: the same pages,
// links and checks, 25 pages instead of 250. Without it (go test ./api),
// the whole 25,000.
const archiveStories = 2_500
