package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// annotatedPage is a page with n annotated items.
func annotatedPage(n int) []byte {
	var b strings.Builder
	b.WriteString("<html><head><title>Bench</title></head><body>\n<!-- <channel:title> -->Bench news<!-- </channel:title> -->\n<ul>\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<li><!-- <item:link index=\"%d\"> --><a href=\"/s/%d.html\"><!-- </item:link> --><!-- <item:title index=\"%d\"> -->Story %d<!-- </item:title> --></a>\n", i, i, i, i)
		fmt.Fprintf(&b, "<!-- <item:description index=\"%d\"> --><p>About story %d, told <b>at length</b>.</p><!-- </item:description> --></li>\n", i, i)
	}
	b.WriteString("</ul></body></html>\n")
	return []byte(b.String())
}

// BenchmarkPlay measures the playground's work on a page (wrap, highlight,
// render every format) at two sizes: the time per item should stay flat.
func BenchmarkPlay(b *testing.B) {
	for _, n := range []int{100, 1000} {
		page := annotatedPage(n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				play(page, wrapper.Options{URL: "https://x.example/"}, "bench", nil)
			}
		})
	}
}

// benchSource stores a source of versions versions of 20 items each, every
// version adding two stories and dropping two, as a poller would.
func benchSource(b *testing.B, versions int) (*Server, []dynamo.Version) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "dynamo.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	src := &dynamo.Source{ID: "busy", URL: "http://127.0.0.1/busy.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
	if err := st.CreateSource(ctx, src); err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-time.Duration(versions) * time.Hour)
	for v := 0; v < versions; v++ {
		at := start.Add(time.Duration(v) * time.Hour)
		var page strings.Builder
		page.WriteString("<html><body>\n")
		for i := 1; i <= 20; i++ {
			n := 2*v + i
			fmt.Fprintf(&page, "<!-- <item:title index=\"%d\"> -->Story %d<!-- </item:title> --><!-- <item:link index=\"%d\"> -->/s/%d<!-- </item:link> -->\n", i, n, i, n)
		}
		if _, err := st.LeaseSource(ctx, src.ID, "bench", at, time.Minute); err != nil {
			b.Fatal(err)
		}
		res := wrapper.Wrap([]byte(page.String()), wrapper.Options{URL: src.URL, RSSID: src.ID, Now: at})
		_, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: src.ID, Owner: "bench", At: at, Document: res.Resource},
			func(r dynamo.PollResult) dynamo.PollUpdate {
				return dynamo.PollUpdate{
					State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastStatus: dynamo.StatusChanged, LastChange: at},
					Log:   dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged, NewItems: len(r.NewItems)},
				}
			})
		if err != nil {
			b.Fatal(err)
		}
	}
	hh, err := New(Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	vs, err := st.Versions(ctx, src.ID)
	if err != nil {
		b.Fatal(err)
	}
	return hh, vs
}

// BenchmarkSourcePage measures a source's page (embedded store, 30
// versions) beside the part of it that names the items the ten newest
// versions added and removed (eleven reads of a version's items), to show
// what that detail costs the page.
func BenchmarkSourcePage(b *testing.B) {
	h, versions := benchSource(b, 30)
	b.Run("page", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/ui/sources/busy", nil)
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
	b.Run("timeline-detail", func(b *testing.B) {
		for b.Loop() {
			if _, err := h.timeline(context.Background(), "busy", versions); err != nil {
				b.Fatal(err)
			}
		}
	})
}
