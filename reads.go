package dynamo

import "context"

type latestReadsKey struct{}

// WithLatestReads returns a context whose store reads see every change
// committed before they begin, however the store spreads its reads: a
// store with read replicas answers them from its primary. The HTTP
// interfaces mark an operator's requests so, so that an operator never sees
// a state older than their own last change (docs/STORAGE.md, "Read
// replicas").
func WithLatestReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, latestReadsKey{}, true)
}

// LatestReads reports whether ctx asks for the latest state
// (WithLatestReads).
func LatestReads(ctx context.Context) bool {
	on, _ := ctx.Value(latestReadsKey{}).(bool)
	return on
}
