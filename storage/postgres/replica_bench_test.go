package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// BenchmarkReplicaReads reads one source through a Replicated store on a
// real standby while another process changes another source at a steady
// rate, each change notified and watched, and reports the share of reads
// the primary answered. The floor is one for all sources, so every
// notification sends reads to the primary until the standby has replayed
// it, whichever source changed: this measures what that costs the
// replicas' share of the reads (docs/STORAGE.md, "The road to ten million
// sources").
func BenchmarkReplicaReads(b *testing.B) {
	pair := pgtest.NewPair(b)
	for _, rate := range []int{0, 10, 100, 300} {
		b.Run(fmt.Sprintf("changes=%d/s", rate), func(b *testing.B) {
			r, primary := openReplicated(b, pair)
			writer := openDSN(b, primary)
			addSource(b, r.Store, "read")
			addSource(b, writer, "w")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			changes, err := r.WatchChanges(ctx)
			if err != nil {
				b.Fatal(err)
			}
			go func() {
				for range changes {
				}
			}()
			pair.CatchUp(b)
			var written atomic.Int64
			done := make(chan struct{})
			go func() {
				defer close(done)
				if rate == 0 {
					return
				}
				tick := time.NewTicker(time.Second / time.Duration(rate))
				defer tick.Stop()
				src, err := writer.Source(ctx, "w")
				if err != nil {
					b.Error(err)
					return
				}
				for n := 0; ; n++ {
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
					}
					src.Category = fmt.Sprint(n)
					if err := writer.UpdateSource(ctx, src); err != nil && ctx.Err() == nil {
						b.Error(err)
						return
					}
					written.Add(1)
				}
			}()
			time.Sleep(200 * time.Millisecond) // the writer under way
			onPrimary, wrote, start := r.primaryReads.Load(), written.Load(), time.Now()
			for b.Loop() {
				if _, err := r.Source(ctx, "read"); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(r.primaryReads.Load()-onPrimary)*100/float64(b.N), "%primary")
			b.ReportMetric(float64(written.Load()-wrote)/elapsed.Seconds(), "changes/s")
			cancel()
			<-done
		})
	}
}
