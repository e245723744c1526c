package postgres

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
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

// tracedPoller is a poller of one source, "a", at the origin's /a, on a
// store whose pool has one connection (so that the statements prepared by
// the polls before are the ones used) and whose exchanges trace counts.
func tracedPoller(t *testing.T, origin http.Handler, stories *dedup.Stories) (*poller.Poller, *roundTrips) {
	t.Helper()
	ctx := context.Background()
	srv := httptest.NewServer(origin)
	t.Cleanup(srv.Close)
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
	t.Cleanup(func() { st.Close() })
	src := &dynamo.Source{ID: "a", URL: srv.URL + "/a", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	p, err := poller.New(poller.Config{Store: st, Owner: "test", Duplicates: stories,
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1})})
	if err != nil {
		t.Fatal(err)
	}
	return p, trace
}

// countThirdPoll polls "a" three times, each expected to end as want
// says, and returns the exchanges of the third: the first poll stores a
// version, the second prepares the statements of the kind of poll
// counted.
func countThirdPoll(t *testing.T, p *poller.Poller, trace *roundTrips, want ...dynamo.PollStatus) []string {
	t.Helper()
	for i, want := range want {
		trace.count(i == 2)
		out, err := p.PollNow(context.Background(), "a")
		if err != nil || out.Status != want {
			t.Fatalf("poll %d: %+v, %v; want %s", i+1, out, err, want)
		}
	}
	return trace.count(false)
}

// TestUnchangedPollRoundTrips counts the exchanges with PostgreSQL of a
// poll that finds nothing new, through the poller: the lease, taken
// before the fetch, and the record after it, one statement that checks
// the lease, writes the state and the log and releases the lease
// (docs/POLLER.md "Round trips"). Nothing else may be asked of the
// server: not the source's WebSub subscription (it comes with the lease),
// not a transaction's BEGIN or COMMIT.
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
			p, trace := tracedPoller(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.etag != "" && r.Header.Get("If-None-Match") == tc.etag {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				if tc.etag != "" {
					w.Header().Set("ETag", tc.etag)
				}
				w.Write([]byte(page))
			}), nil)
			sent := countThirdPoll(t, p, trace, dynamo.StatusChanged, tc.want, tc.want)
			if len(sent) != 2 || !strings.HasPrefix(sent[0], "UPDATE sources") || !strings.HasPrefix(sent[1], "WITH s AS ( UPDATE sources") {
				t.Errorf("an unchanged poll sent %d exchanges, want 2 (the lease, then the record):\n%s", len(sent), strings.Join(sent, "\n"))
			}
		})
	}
}

// TestChangedPollRoundTrips lists the exchanges with PostgreSQL of a poll
// that stores a version with one new item: the lease; BEGIN with the
// source's row locked and read, and the newest version's row and last
// item number read ahead; the version's reads, each needing the answer
// before: the revisions of the previous version, then the one item it did
// not hold, with its title's items and an id reserved for its revision;
// and every write, the new revision first, with the COMMIT, in the last
// exchange. A poller with a detector of stories (as `dynamo serve` runs)
// needs one exchange more: the writes, the stories lock, the new item's
// insert with its numbers and the read of the items numbered since go
// together, and the detector's answer (duplicates) with the COMMIT.
func TestChangedPollRoundTrips(t *testing.T) {
	detector, err := dedup.NewStories(dedup.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		stories *dedup.Stories
		want    []string
	}{
		{"no detector", nil, []string{
			"UPDATE sources",                      // the lease
			"batch of BEGIN",                      // with the source's row locked, its newest version read ahead
			"SELECT item_key, rhash",              // the previous version's revisions
			"batch of SELECT item_id",             // the new item, stored or not, and its title's items
			"batch of INSERT INTO item_revisions", // the new revision, the rest, and the COMMIT
		}},
		{"stories", detector, []string{
			"UPDATE sources",
			"batch of BEGIN",
			"SELECT item_key, rhash",
			"batch of SELECT item_id",
			// the new revision, the version, the stories lock, the new
			// item numbered as it is inserted, the items numbered since
			"batch of INSERT INTO item_revisions",
			"batch of UPDATE sources", // the state, the log, and the COMMIT
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			p, trace := tracedPoller(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `<html><body><h1><!-- <channel:title> -->News<!-- </channel:title> --></h1>
<h2><!-- <item:title index="1"> -->Story %d<!-- </item:title> --></h2>
<h2><!-- <item:title index="2"> -->Older story<!-- </item:title> --></h2></body></html>`, n.Add(1))
			}), tc.stories)
			sent := countThirdPoll(t, p, trace, dynamo.StatusChanged, dynamo.StatusChanged, dynamo.StatusChanged)
			ok := len(sent) == len(tc.want)
			for i := 0; ok && i < len(tc.want); i++ {
				ok = strings.HasPrefix(sent[i], tc.want[i])
			}
			if !ok {
				t.Errorf("a changed poll sent %d exchanges:\n%s\nwant %d:\n%s", len(sent), strings.Join(sent, "\n"), len(tc.want), strings.Join(tc.want, "\n"))
			}
		})
	}
}
