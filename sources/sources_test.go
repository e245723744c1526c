package sources_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

func newService(t *testing.T) *sources.Service {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &sources.Service{
		Store:    st,
		Policies: []string{"flat", "smart"},
		Now:      func() time.Time { return now },
		// A page ending in /site/ has its feed at /site/feed; nothing else
		// is found.
		Resolve: func(_ context.Context, s *dynamo.Source) (*discovery.Result, error) {
			if s.Kind != dynamo.KindAuto {
				return nil, nil
			}
			if strings.HasSuffix(s.URL, "/site/") {
				s.URL, s.Kind = s.URL+"feed", dynamo.KindFeed
				return nil, nil
			}
			return nil, sources.ErrUnresolvable
		},
	}
}

func TestCreateChangeApply(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	src := dynamo.NewSource(" site ", " http://example.org/site/ ")
	src.Kind = "AUTO"
	if _, err := svc.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Store.Source(ctx, "site")
	if err != nil || got.URL != "http://example.org/site/feed" || got.Kind != dynamo.KindFeed || got.CreatedAt.IsZero() {
		t.Fatalf("created %+v (%v): want normalized, resolved, stamped", got, err)
	}
	again := dynamo.NewSource("site", "http://example.org/other")
	again.Kind = dynamo.KindFeed
	if _, err := svc.Create(ctx, again); !errors.Is(err, dynamo.ErrConflict) {
		t.Errorf("a second source of one id: %v, want ErrConflict", err)
	}
	if _, err := svc.Create(ctx, dynamo.NewSource("none", "http://example.org/none")); !errors.Is(err, sources.ErrUnresolvable) {
		t.Errorf("a URL with nothing to poll: %v, want ErrUnresolvable", err)
	}

	before := *got
	got.Policy, got.Interval = "smart", dynamo.Duration(15*time.Minute)
	if err := svc.Change(ctx, got, &before); err != nil {
		t.Fatal(err)
	}
	bad := *got
	bad.Policy = "bogus"
	if err := svc.Change(ctx, &bad, got); err == nil || !strings.Contains(err.Error(), `policy "bogus" is unknown`) {
		t.Errorf("a change to an unknown policy: %v", err)
	}
	renamed := *got
	renamed.ID = "other"
	if err := svc.Change(ctx, &renamed, got); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("a change of id: %v, want ErrInvalid", err)
	}

	// Apply registers, then updates in place.
	file := dynamo.NewSource("filed", "http://example.org/feed.xml")
	file.Kind = dynamo.KindFeed
	for _, interval := range []time.Duration{time.Hour, 2 * time.Hour} {
		file.Interval = dynamo.Duration(interval)
		if err := svc.Apply(ctx, file); err != nil {
			t.Fatal(err)
		}
		if s, err := svc.Store.Source(ctx, "filed"); err != nil || time.Duration(s.Interval) != interval {
			t.Errorf("after Apply with %s: %+v (%v)", interval, s, err)
		}
	}
	file.Subscribers = -5
	if err := svc.Apply(ctx, file); err == nil || !strings.Contains(err.Error(), "subscribers must be 0 or more") {
		t.Errorf("Apply of a bad source: %v", err)
	}
}

// A selectors source's selectors must parse to be registered.
func TestSelectorsSourceChecked(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	src := dynamo.NewSource("council", "http://example.org/news")
	src.Kind, src.ItemSelector, src.TitleSelector = dynamo.KindSelectors, "ul.news > li", "a["
	if _, err := svc.Create(ctx, src); !errors.Is(err, dynamo.ErrInvalid) || !strings.Contains(err.Error(), `title selector "a[" is not a CSS selector`) {
		t.Errorf("an unparsable selector: %v, want ErrInvalid naming it", err)
	}
	src.TitleSelector = "a"
	if _, err := svc.Create(ctx, src); err != nil {
		t.Fatalf("a selectors source: %v", err)
	}
	if got, err := svc.Store.Source(ctx, "council"); err != nil || got.Kind != dynamo.KindSelectors || got.ItemSelector != "ul.news > li" {
		t.Errorf("stored %+v (%v)", got, err)
	}
}

func TestImport(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	entries := []opml.Entry{
		{Title: "A", XMLURL: "http://example.org/a.xml", Category: "News"},
		{Title: "A again", XMLURL: "HTTP://EXAMPLE.ORG/a.xml#top"},
		{Title: "Site", XMLURL: "http://example.org/site/", Extra: map[string]string{"kind": "auto", "id": "site"}},
		{Title: "Bad", XMLURL: "http://example.org/b.xml", Extra: map[string]string{"policy": "bogus"}},
		{Title: "Same derived id", XMLURL: "http://example.org/a.xml?x"},
	}
	var progress []sources.ImportOutcome
	res, err := svc.Import(ctx, entries, func(r sources.ImportResult) { progress = append(progress, r.Outcome) })
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		outcome sources.ImportOutcome
		id      string
	}{
		{sources.ImportRegistered, "example.org-a.xml"},
		{sources.ImportSkipped, "example.org-a.xml"},
		{sources.ImportRegistered, "site"},
		{sources.ImportFailed, ""},
		{sources.ImportRegistered, "example.org-a.xml-2"},
	}
	if len(res) != len(want) || len(progress) != len(want) {
		t.Fatalf("%d results, %d progress calls: %+v", len(res), len(progress), res)
	}
	for i, w := range want {
		if res[i].Outcome != w.outcome || res[i].ID != w.id || res[i].Entry != i+1 {
			t.Errorf("entry %d: %+v, want %s %s", i+1, res[i], w.outcome, w.id)
		}
	}
	if !errors.Is(res[3].Err, dynamo.ErrInvalid) || !strings.Contains(res[3].Reason, `policy "bogus" is unknown`) {
		t.Errorf("the failed entry: %+v", res[3])
	}
	if s, err := svc.Store.Source(ctx, "example.org-a.xml"); err != nil || s.Category != "News" || s.Kind != dynamo.KindFeed {
		t.Errorf("imported %+v (%v)", s, err)
	}
}

// TestApplyKeepsResolvedKind: a sources file is applied at every start,
// and an entry of kind auto (the default) already registered with its URL
// keeps the kind it was resolved to without a fetch, so that a site down
// at a restart does not keep serve from starting. A changed URL is
// resolved again.
func TestApplyKeepsResolvedKind(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	fetches, down := 0, false
	svc.Resolve = func(_ context.Context, s *dynamo.Source) (*discovery.Result, error) {
		if s.Kind != dynamo.KindAuto {
			return nil, nil
		}
		fetches++
		if down {
			return nil, dynamo.Invalidf("kind auto: cannot read %s: connection refused", s.URL)
		}
		s.Kind = dynamo.KindFeed
		return nil, nil
	}
	entry := func(url string) *dynamo.Source { return dynamo.NewSource("wire", url) } // kind auto
	if err := svc.Apply(ctx, entry("http://example.org/feed.xml")); err != nil {
		t.Fatal(err)
	}
	down = true
	if err := svc.Apply(ctx, entry("http://example.org/feed.xml")); err != nil {
		t.Fatalf("the same entry applied again while its site is down: %v", err)
	}
	if s, err := svc.Store.Source(ctx, "wire"); err != nil || s.Kind != dynamo.KindFeed || fetches != 1 {
		t.Errorf("after the second Apply: %+v (%v), %d fetches; want kind feed, 1 fetch", s, err, fetches)
	}
	if err := svc.Apply(ctx, entry("http://example.org/other.xml")); err == nil || fetches != 2 {
		t.Errorf("a changed URL while its site is down: %v after %d fetches; want it resolved again, and refused", err, fetches)
	}
}
