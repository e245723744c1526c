package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/storage"
)

// queryStore is an embedded store with two collections: news with two
// versions (the second drops "Old story" and adds "Snow day"), and wire
// with one item, in category wires.
func queryStore(t *testing.T) string {
	t.Helper()
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	ctx := context.Background()
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	item := func(id, title string) dynamo.Item {
		return dynamo.Item{ID: id, Title: title, Link: "http://example.org/" + id, Index: 1}
	}
	polls := []struct {
		id    string
		items []dynamo.Item
	}{
		{"news", []dynamo.Item{item("rain", "Rain all week"), item("old", "Old story")}},
		{"news", []dynamo.Item{item("snow", "Snow day"), item("rain", "Rain all week")}},
		{"wire", []dynamo.Item{item("wire-rain", "Rain on the wire")}},
	}
	for _, id := range []string{"news", "wire"} {
		src := dynamo.NewSource(id, "http://example.org/"+id)
		src.Kind, src.Category = dynamo.KindFeed, id+"s"
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range polls {
		when := at.Add(time.Duration(i) * time.Hour)
		for j := range p.items {
			p.items[j].Index = j + 1
		}
		if _, err := st.LeaseSource(ctx, p.id, "test", when, time.Minute); err != nil {
			t.Fatal(err)
		}
		doc := &dynamo.Resource{URL: "http://example.org/" + p.id, RSSID: p.id, Channel: dynamo.Channel{Title: p.id}, Items: p.items}
		_, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: p.id, Owner: "test", At: when, Document: doc},
			func(dynamo.PollResult) dynamo.PollUpdate {
				return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: when, NextPoll: when.Add(time.Hour)}, Log: dynamo.PollLogEntry{At: when, Status: dynamo.StatusChanged}}
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestQuery(t *testing.T) {
	t.Parallel()
	db := queryStore(t)
	for _, tc := range []struct {
		args []string
		code int
		want []string // the titles printed, in order; for code != 0, a phrase of stderr
	}{
		{[]string{"news"}, 0, []string{"Snow day", "Rain all week", "Old story"}},
		{[]string{"news", "title=rain&op=or&title=SNOW"}, 0, []string{"Snow day", "Rain all week"}},
		{[]string{"news", "?index=2&max=1"}, 0, []string{"Rain all week"}},
		{[]string{"news", "max=2&utm_source=x"}, 0, []string{"Snow day", "Rain all week"}},
		{[]string{"--all", "title=rain"}, 0, []string{"Rain on the wire", "Rain all week"}},
		{[]string{"--all", "category=newss&desc=&title=rain"}, 0, []string{"Rain all week"}},
		// since and until, as the feeds and the web search read them: a
		// time bounds when items were first seen (news 12:00 and 13:00,
		// wire 14:00); a date's until runs through its day.
		{[]string{"news", "since=2026-03-01T12:30:00Z"}, 0, []string{"Snow day"}},
		{[]string{"news", "until=2026-03-01T12:30:00Z&title=o"}, 0, []string{"Old story"}},
		{[]string{"news", "since=2026-03-01&until=2026-03-01"}, 0, []string{"Snow day", "Rain all week", "Old story"}},
		{[]string{"--all", "since=2026-03-01T13:30:00Z"}, 0, []string{"Rain on the wire"}},
		{[]string{"--all", "until=2026-03-01T13:30:00Z&title=rain"}, 0, []string{"Rain all week"}},
		{[]string{"news", "index=1&since=2026-03-01"}, 2, []string{"since and until bound the archive's items"}},
		{[]string{"news", "since=yesterday"}, 2, []string{`since must be a date (2026-11-20) or an RFC 3339 time`}},
		{[]string{"news", "max=0"}, 2, []string{"max must be an integer from 1 to 10000"}},
		{[]string{"news", "TITLE=rain"}, 2, []string{"parameter names are lower case: title, not TITLE"}},
		{[]string{"news", "title=a&op=or"}, 2, []string{"followed by no condition"}},
		{[]string{"news", "xpath=//item"}, 2, []string{`parameter "xpath" has no meaning here`}},
		{[]string{"--all", "index=1"}, 2, []string{`parameter "index" has no meaning here`}},
		{[]string{"nope"}, 1, []string{`no collection "nope"`}},
		{[]string{"news", "index=9"}, 1, []string{`has no version 9`}},
		{[]string{}, 2, []string{"usage"}},
	} {
		code, stdout, stderr := run(t, "", append([]string{"query", "--db", db}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.code, stderr)
			continue
		}
		if code != 0 {
			if !strings.Contains(stderr, tc.want[0]) {
				t.Errorf("%v: stderr %q, want it to say %q", tc.args, stderr, tc.want[0])
			}
			continue
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("%v: %d lines, want %d:\n%s", tc.args, len(lines), len(tc.want), stdout)
			continue
		}
		for i, title := range tc.want {
			if !strings.Contains(lines[i], title) || !strings.HasPrefix(lines[i], "2026-03-01 1") {
				t.Errorf("%v: line %d is %q, want %q", tc.args, i+1, lines[i], title)
			}
		}
	}
}

// TestReadingCommandsNeedAStore: dynamo query and dynamo sources export
// only read, so a --db path with no store behind it (a typo, the wrong
// directory) is an error naming it, and leaves no file behind; they used
// to create an empty store there and answer from it, as if it had no
// sources.
func TestReadingCommandsNeedAStore(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{
		{"query", "--db", missing, "news"},
		{"query", "--db", "sqlite:" + missing, "--all"},
		{"sources", "export", "--db", missing},
	} {
		code, stdout, stderr := run(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "no embedded store at "+missing+" (dynamo serve or dynamo migrate creates one") || stdout != "" {
			t.Errorf("dynamo %s: exit %d, stdout %q, stderr %q; want 1 saying there is no store", strings.Join(args, " "), code, stdout, stderr)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("dynamo %s left %s behind (%v)", strings.Join(args, " "), missing, err)
		}
	}
	// An existing store is read as before.
	if code, _, stderr := run(t, "", "query", "--db", queryStore(t), "news"); code != 0 {
		t.Errorf("dynamo query of an existing store: exit %d, %s", code, stderr)
	}
}
