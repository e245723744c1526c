package postgres

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
)

// roundTrips is a pgx tracer that lists, while counting, every exchange
// with the server that waits for its answer: a query, an Exec (BEGIN and
// COMMIT among them), a batch (one exchange however many statements it
// holds) and a statement's preparation.
type roundTrips struct {
	mu       sync.Mutex
	counting bool
	sent     []string
}

func (r *roundTrips) note(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counting {
		what = strings.Join(strings.Fields(what), " ")
		r.sent = append(r.sent, what[:min(len(what), 60)])
	}
}

// count starts counting afresh (on) or stops and returns what was sent.
func (r *roundTrips) count(on bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	sent := r.sent
	r.counting, r.sent = on, nil
	return sent
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.note(d.SQL)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	r.note("batch of " + d.Batch.QueuedQueries[0].SQL)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	r.note("prepare " + d.SQL)
	return ctx
}
func (r *roundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// TestUnchangedPollRoundTrips counts the exchanges with PostgreSQL of a
// poll that finds nothing new, through the poller: the lease, taken
// before the fetch, and the record after it, one statement that checks
// the lease, writes the state and the log and releases the lease
// (docs/POLLER.md "Round trips"). Nothing else may be asked of the
// server: not the source's WebSub subscription (it comes with the lease),
// not a transaction's BEGIN or COMMIT. The pool has one connection, so
// that the statements prepared by the polls before are the ones used.
func TestUnchangedPollRoundTrips(t *testing.T) {
	const page = `<html><body><h1><!-- <channel:title> -->News<!-- </channel:title> --></h1>
<h2><!-- <item:title index="1"> -->Only story<!-- </item:title> --></h2></body></html>`
	for _, tc := range []struct {
		name string
		etag string // sent with the page, answered 304 when sent back
		want dynamo.PollStatus
	}{
		{"304", `"v1"`, dynamo.StatusNotModified},
		{"same body", "", dynamo.StatusUnchanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.etag != "" && r.Header.Get("If-None-Match") == tc.etag {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				if tc.etag != "" {
					w.Header().Set("ETag", tc.etag)
				}
				w.Write([]byte(page))
			}))
			defer origin.Close()
			cfg, err := pgxpool.ParseConfig(pgtest.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			trace := &roundTrips{}
			cfg.ConnConfig.Tracer = trace
			cfg.MaxConns = 1
			st, err := openConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			src := &dynamo.Source{ID: "a", URL: origin.URL + "/a", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
			if err := st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
			p, err := poller.New(poller.Config{Store: st, Owner: "test",
				Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1})})
			if err != nil {
				t.Fatal(err)
			}
			// The first poll stores a version, the second prepares the
			// statements of an unchanged poll; the third is counted.
			for i, want := range []dynamo.PollStatus{dynamo.StatusChanged, tc.want, tc.want} {
				trace.count(i == 2)
				out, err := p.PollNow(ctx, "a")
				if err != nil || out.Status != want {
					t.Fatalf("poll %d: %+v, %v; want %s", i+1, out, err, want)
				}
			}
			sent := trace.count(false)
			if len(sent) != 2 || !strings.HasPrefix(sent[0], "UPDATE sources") || !strings.HasPrefix(sent[1], "WITH s AS ( UPDATE sources") {
				t.Errorf("an unchanged poll sent %d exchanges, want 2 (the lease, then the record):\n%s", len(sent), strings.Join(sent, "\n"))
			}
		})
	}
}
