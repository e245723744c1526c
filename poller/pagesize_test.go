package poller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
)

// TestPollPagesAtTheSizeLimit polls, over loopback with the fetcher's
// defaults, the page of exactly dynamo.MaxPageBytes once the suggester
// annotated it (over that size), a page of exactly what Dynamo reads, one
// byte more, and the page at the limit as it is through selectors
// (docs/WRAPPER.md, "Size cap").
func TestPollPagesAtTheSizeLimit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	annotated := pagetest.AnnotatedAtLimit(t)
	items := pagetest.Items(dynamo.MaxPageBytes)
	o.set("/annotated", page{body: string(annotated)})
	o.set("/at-read-limit", page{body: string(pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes))})
	o.set("/over-read-limit", page{body: string(pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes+1))})
	o.set("/as-is", page{body: string(pagetest.List(dynamo.MaxPageBytes))})
	addSource(t, st, "annotated", o.URL+"/annotated", dynamo.KindHTML)
	addSource(t, st, "at-read-limit", o.URL+"/at-read-limit", dynamo.KindHTML)
	addSource(t, st, "over-read-limit", o.URL+"/over-read-limit", dynamo.KindHTML)
	src := &dynamo.Source{ID: "as-is", URL: o.URL + "/as-is", Interval: dynamo.Duration(time.Hour)}
	annotate.Selectors{Item: "ul.notices > li", Title: "h2 a", Link: "h2 a", Date: "span.date"}.SetOn(src)
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	p := newPoller(t, st)
	tests := []struct {
		id  string
		err string // the poll's error, "" when it must store the items
	}{
		{"annotated", ""},
		{"at-read-limit", ""},
		{"over-read-limit", "too-large: body exceeds 20971520 bytes"},
		{"as-is", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			out := pollNow(t, p, tt.id)
			if tt.err != "" {
				if out.Status != dynamo.StatusError || !strings.Contains(out.Error, tt.err) {
					t.Errorf("poll: %+v, want an error saying %q", out, tt.err)
				}
				return
			}
			if out.Status != dynamo.StatusChanged || out.NewItems != items {
				t.Errorf("poll: %+v, want %d new items", out, items)
			}
		})
	}
}
