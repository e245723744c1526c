package api_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
)

// plainStore hides every method of a store beyond dynamo.Store: the API
// reads an archive answer from it as Source, Head and EachItem.
type plainStore struct{ dynamo.Store }

// An archive answer read at once (each store's ArchiveAnswer: PostgreSQL's
// one round trip, SQLite's two statements, each reading only what an
// answer takes of the source and head) is the answer read in three: the same
// status, headers and body for archive queries, with conditions, formats,
// gzip and validators, an unknown and an empty collection, and an archive
// too large to hold (streamed).
func TestArchiveAtOnceAnswersAsThreeReads(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) { archiveAtOnceAnswersAsThreeReads(t, st.open(t)) })
	}
}

func archiveAtOnceAnswersAsThreeReads(t *testing.T, store dynamo.Store) {
	if _, ok := store.(interface {
		ArchiveAnswer(context.Context, dynamo.ItemQuery, func(*dynamo.Source, *dynamo.Resource) error, func(*dynamo.ArchivedItem) error) error
	}); !ok {
		t.Fatalf("%T reads no archive answer at once", store)
	}
	for _, maxBytes := range []int64{0, 600} {
		opts := func(c *api.Config) { c.CacheBytes, c.MaxAnswerBytes = -1, maxBytes }
		atOnce := newEnv(t, store, opts)
		three := newEnv(t, plainStore{store}, opts)
		if maxBytes == 0 {
			atOnce.origin.set("/news.html", annotatedPage("Test News", alpha, bravo, charlie))
			atOnce.addSource("news", "/news.html", `"category":"local"`)
			atOnce.poll("news")
			atOnce.origin.set("/news.html", annotatedPage("Test News", delta, alpha2, bravo))
			atOnce.poll("news")
			atOnce.addSource("empty", "/empty.html")
		}
		etag := ""
		for _, c := range []struct {
			path   string
			header []string
		}{
			{"/resources/news?max=50", nil},
			{"/resources/news?max=2", nil},
			{"/resources/news?max=10&type=atom", nil},
			{"/resources/news?max=10&type=json", nil},
			{"/resources/news?max=10", []string{"Accept-Encoding", "gzip"}},
			{"/resources/news?max=10", []string{"Accept", "text/html"}},
			{"/resources/news?title=" + alpha.title[:5], nil},
			{"/resources/news?max=20&title=fair&op=or&desc=parade", nil},
			{"/resources/news?max=5&since=2000-01-01T00:00:00Z", nil},
			{"/resources/news?max=5&until=2000-01-01T00:00:00Z", nil},
			{"/resources/empty?max=5", nil},
			{"/resources/nope?max=5", nil},
			{"/resources/news?max=50", []string{"If-None-Match", "etag"}},
		} {
			header := c.header
			if len(header) == 2 && header[1] == "etag" {
				if etag == "" {
					t.Fatal("no ETag to ask with")
				}
				header = []string{header[0], etag}
			}
			// One Host for both servers, whose answers' links name it.
			header = append([]string{"Host", "feeds.example.org"}, header...)
			got, want := atOnce.get(c.path, header...), three.get(c.path, header...)
			if c.path == "/resources/news?max=50" && etag == "" {
				etag = got.header.Get("ETag")
			}
			got.header.Del("Date")
			want.header.Del("Date")
			if got.status != want.status || !bytes.Equal(got.body, want.body) || !equalHeaders(got.header, want.header) {
				t.Errorf("max %d bytes, %s %v: at once %d %v\n%s\nin three reads %d %v\n%s", maxBytes, c.path, header,
					got.status, got.header, got.body, want.status, want.header, want.body)
			}
			if c.path == "/resources/news?max=50" && len(c.header) == 0 && got.status != http.StatusOK {
				t.Errorf("%s: status %d", c.path, got.status)
			}
		}
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w := b[k]
		if len(v) != len(w) {
			return false
		}
		for i := range v {
			if v[i] != w[i] && !(k == "Cache-Control" && sameButAge(v[i], w[i])) {
				return false
			}
		}
	}
	return true
}

// maxAge is a Cache-Control value's max-age, which counts down to the
// source's next poll: two reads a second apart differ by one.
var maxAge = regexp.MustCompile(`max-age=([0-9]+)`)

// sameButAge reports whether two Cache-Control values are the same but for
// max-age values at most a second apart.
func sameButAge(a, b string) bool {
	ma, mb := maxAge.FindStringSubmatch(a), maxAge.FindStringSubmatch(b)
	if ma == nil || mb == nil || maxAge.ReplaceAllString(a, "") != maxAge.ReplaceAllString(b, "") {
		return false
	}
	x, _ := strconv.Atoi(ma[1])
	y, _ := strconv.Atoi(mb[1])
	return x-y <= 1 && y-x <= 1
}
