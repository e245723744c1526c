package poller_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// benchHosts is how many origin hosts the benchmarks spread their sources
// over. The fetcher lets one request at a time reach a host (politeness),
// so a single origin would measure that rule, not the poller.
const benchHosts = 16

// serverCPU reads the CPU time a store's server has used so far; nil for
// a store inside the process.
type serverCPU func() (time.Duration, bool)

// benchStores are the stores the poll benchmarks run on, each fresh, with
// the CPU time of the PostgreSQL backends serving the benchmark's
// database (pgtest.ServerCPU).
var benchStores = []struct {
	name string
	open func(b *testing.B) (dynamo.Store, serverCPU, error)
}{
	{"postgres", func(b *testing.B) (dynamo.Store, serverCPU, error) {
		dsn := pgtest.DSN(b)
		st, err := postgres.Open(context.Background(), dsn)
		return st, func() (time.Duration, bool) { return pgtest.ServerCPU(dsn) }, err
	}},
	{"sqlite", func(b *testing.B) (dynamo.Store, serverCPU, error) {
		st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "dynamo.db"))
		return st, nil, err
	}},
}

// benchOrigins starts benchHosts origins serving handler and returns the
// URLs of n pages spread over them.
func benchOrigins(b *testing.B, handler http.Handler, n int) []string {
	origins := make([]*httptest.Server, benchHosts)
	for i := range origins {
		origins[i] = httptest.NewServer(handler)
		b.Cleanup(origins[i].Close)
	}
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/p%03d", origins[i%benchHosts].URL, i)
	}
	return urls
}

// benchPoller registers a source for each URL in a fresh store opened by
// open.
func benchPoller(b *testing.B, open func(*testing.B) (dynamo.Store, serverCPU, error), urls []string) (*poller.Poller, []string, serverCPU) {
	b.Helper()
	ctx := context.Background()
	st, server, err := open(b)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ids := make([]string, len(urls))
	for i := range ids {
		ids[i] = fmt.Sprintf("s%03d", i)
		src := &dynamo.Source{ID: ids[i], URL: urls[i], Kind: dynamo.KindHTML,
			Interval: dynamo.Duration(time.Hour), Policy: "flat"}
		if err := st.CreateSource(ctx, src); err != nil {
			b.Fatal(err)
		}
	}
	p, err := poller.New(poller.Config{Store: st, Owner: "bench",
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1})})
	if err != nil {
		b.Fatal(err)
	}
	return p, ids, server
}

// pollAll polls the sources round-robin from parallel goroutines, as the
// poller's workers do, and reports polls per second.
func pollAll(b *testing.B, p *poller.Poller, ids []string, server serverCPU, want dynamo.PollStatus) {
	inParallel(b, len(ids), server, func(n int) error {
		out, err := p.PollNow(context.Background(), ids[n])
		if err == nil && out.Status != want {
			err = fmt.Errorf("%s: %+v, want %s", ids[n], out, want)
		}
		return err
	})
}

// fetchAll is pollAll's baseline: a bare net/http client fetching the same
// pages from the same goroutines, sending etag as If-None-Match when set
// and reading every body.
func fetchAll(b *testing.B, urls []string, etag string, want int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchHosts}}
	inParallel(b, len(urls), nil, func(n int) error {
		req, err := http.NewRequest(http.MethodGet, urls[n], nil)
		if err != nil {
			return err
		}
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("GET %s: %s, want %d", urls[n], resp.Status, want)
		}
		return nil
	})
}

// inParallel calls poll with source numbers round-robin from benchHosts
// goroutines, each on its own sources (as leases would have it), and
// reports polls per second, the process's CPU per poll ("cpu-µs/poll"),
// the database server's ("server-cpu-µs/poll", when server is set), and
// what their sum makes of two cores: "polls/s-2cores" is 2 CPU-seconds a
// second divided by the CPU of one poll, the rate two idle cores would
// allow if CPU were the only limit.
func inParallel(b *testing.B, sources int, server serverCPU, poll func(n int) error) {
	var workers atomic.Int64
	b.SetParallelism(benchHosts / max(1, runtime.GOMAXPROCS(0)))
	if server == nil {
		server = func() (time.Duration, bool) { return 0, true }
	}
	serverStart, serverKnown := server()
	cpuStart, cpuKnown := cputime.Process()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		worker, parallel := int(workers.Add(1))-1, benchHosts/max(1, runtime.GOMAXPROCS(0))*runtime.GOMAXPROCS(0)
		for n := worker; pb.Next(); n += parallel {
			if err := poll(n % sources); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "polls/s")
	cpuEnd, _ := cputime.Process()
	serverEnd, _ := server()
	if !cpuKnown || !serverKnown || b.N == 0 {
		return
	}
	cpu, serverUsed := cpuEnd-cpuStart, serverEnd-serverStart
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/poll")
	if serverUsed > 0 {
		b.ReportMetric(float64(serverUsed.Microseconds())/float64(b.N), "server-cpu-µs/poll")
	}
	if all := cpu + serverUsed; all > 0 {
		b.ReportMetric(2*float64(time.Second)/(float64(all)/float64(b.N)), "polls/s-2cores")
	}
}

// BenchmarkPoll measures polls of 64 sources on 16 loopback origins from
// 16 goroutines, on each store, beside a bare net/http client fetching the
// same pages in the same run: "notmodified", origins answering 304 to the
// ETag of the first poll; "changed", 48 KB pages that gain a story on
// every request, so each poll parses the page and stores a version with
// one new item among fifty; "three" and "bursts", pages gaining several
// items a poll, on which the cost per new item was tuned; "listing" and
// "digest", held-out pages written to judge that tuning (see their
// functions). Every source is polled once before the timer.
func BenchmarkPoll(b *testing.B) {
	notModified := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, annotated("Only story of "+r.URL.Path))
	})
	var served atomic.Int64
	changed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, changingPage(r.URL.Path, served.Add(1)))
	})
	var requests sync.Map // path → *atomic.Int64
	listing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := requests.LoadOrStore(r.URL.Path, new(atomic.Int64))
		fmt.Fprint(w, listingPage(r.URL.Path, n.(*atomic.Int64).Add(1)))
	})
	three := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := requests.LoadOrStore("three"+r.URL.Path, new(atomic.Int64))
		fmt.Fprint(w, threePage(r.URL.Path, n.(*atomic.Int64).Add(1)))
	})
	bursts := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := requests.LoadOrStore("bursts"+r.URL.Path, new(atomic.Int64))
		fmt.Fprint(w, burstsPage(r.URL.Path, n.(*atomic.Int64).Add(1)))
	})
	digest := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := requests.LoadOrStore("digest"+r.URL.Path, new(atomic.Int64))
		fmt.Fprint(w, digestPage(r.URL.Path, n.(*atomic.Int64).Add(1)))
	})
	for _, c := range []struct {
		name     string
		handler  http.Handler
		etag     string
		bare     int
		want     dynamo.PollStatus
		pageSize bool
	}{
		{"notmodified", notModified, `"v1"`, http.StatusNotModified, dynamo.StatusNotModified, false},
		{"changed", changed, "", http.StatusOK, dynamo.StatusChanged, true},
		{"listing", listing, "", http.StatusOK, dynamo.StatusChanged, true},
		{"three", three, "", http.StatusOK, dynamo.StatusChanged, true},
		{"bursts", bursts, "", http.StatusOK, dynamo.StatusChanged, true},
		{"digest", digest, "", http.StatusOK, dynamo.StatusChanged, true},
	} {
		b.Run(c.name+"/bare", func(b *testing.B) {
			fetchAll(b, benchOrigins(b, c.handler, 64), c.etag, c.bare)
		})
		for _, st := range benchStores {
			b.Run(c.name+"/"+st.name, func(b *testing.B) {
				p, ids, server := benchPoller(b, st.open, benchOrigins(b, c.handler, 64))
				for _, id := range ids { // the first poll stores a version (and the ETag)
					if _, err := p.PollNow(context.Background(), id); err != nil {
						b.Fatal(err)
					}
				}
				pollAll(b, p, ids, server, c.want)
				if c.pageSize {
					b.ReportMetric(float64(len(pageOf(c.name)("/p000", 1))), "page-bytes")
				}
			})
		}
	}
}

// changingPage is a 50 KB annotated page of 50 stories, each a title and a
// description of about 900 bytes, whose top story is new at every request:
// the typical change, one new item among fifty.
func changingPage(path string, n int64) string {
	var b strings.Builder
	b.WriteString("<html><head><title>Town news</title></head><body><h1><!-- <channel:title> -->Town news<!-- </channel:title> --></h1>\n")
	story := func(index int, title string) {
		fmt.Fprintf(&b, "<div class=story><h2><!-- <item:title index=\"%d\"> -->%s<!-- </item:title> --></h2>\n"+
			"<!-- <item:description index=\"%d\"> --><p>%s</p><p>%s</p><!-- </item:description> --></div>\n",
			index, title, index, strings.Repeat("The council met on Tuesday evening to discuss the budget. ", 13), title)
	}
	story(1, fmt.Sprintf("Breaking story number %d on %s", n, path))
	for i := 2; i <= 50; i++ {
		story(i, fmt.Sprintf("Story %d of page %s", i, path))
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// pageOf is the page function of a changing benchmark case.
func pageOf(name string) func(string, int64) string {
	switch name {
	case "listing":
		return listingPage
	case "three":
		return threePage
	case "bursts":
		return burstsPage
	case "digest":
		return digestPage
	}
	return changingPage
}

// listingWords are the vocabulary of listingPage's stories.
var listingWords = strings.Fields("harbour council budget meeting river bridge library school election market station museum garden festival road repair water supply winter storm concert park trail ferry schedule tram hospital clinic archive survey planning permit housing energy solar coastal flood warning recycling route lane")

// listingPage is the held-out poll workload (issue 21): a 48 KB page of 40
// stories, each a link, a title, a date and a description of about 800
// bytes of varied words, gaining one to four new stories at each of its
// own requests (n) while the oldest fall off. The poll figures were tuned
// on changingPage; this page was written afterwards to judge them on a
// change of another shape: several new items a poll, each with a link and
// a date, and descriptions that differ from story to story.
func listingPage(path string, n int64) string {
	// newest is the number of stories published by request n: 1 + n%4
	// new ones at request n, after the first thousand.
	newest := 1000 + n + 6*(n/4) + (n%4)*(n%4+1)/2
	var b strings.Builder
	b.WriteString("<html><head><title>County listings</title></head><body><h1><!-- <channel:title> -->County listings<!-- </channel:title> --></h1><ul>\n")
	for seq := newest; seq > newest-40; seq-- {
		h := uint64(seq) * 2654435761
		var desc strings.Builder
		for desc.Len() < 810 {
			h = h*6364136223846793005 + 1442695040888963407
			desc.WriteString(listingWords[(h>>33)%uint64(len(listingWords))])
			desc.WriteByte(' ')
		}
		fmt.Fprintf(&b, "<li><!-- <item:link index=\"%d\"> --><a href=\"%s/story-%d.html\"><!-- </item:link> --><!-- <item:title index=\"%d\"> -->Listing %d: %s<!-- </item:title> --></a>\n"+
			"<!-- <item:extension index=\"%d\" uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"date\"> -->2026-%02d-%02d 10:%02d<!-- </item:extension> -->\n"+
			"<!-- <item:description index=\"%d\"> --><p>%s</p><!-- </item:description> --></li>\n",
			seq, path, seq, seq, seq, listingWords[seq%int64(len(listingWords))], seq, 1+seq%12, 1+seq%28, seq%60, seq, desc.String())
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}

// tuningWords are the vocabulary of the pages issue 21's item-cost work
// was tuned on (threePage, burstsPage), kept apart from listingPage's.
var tuningWords = strings.Fields("orchard quarry lantern velvet meadow copper falcon thistle granite harvest beacon willow cinder marble glacier tundra saffron walnut prairie canyon lagoon ember juniper pebble cobalt summit heron nettle basalt amber kestrel fjord bramble cedar delta ridge hollow spruce")

// tuningStory writes one story of threePage or burstsPage: a link, a
// title, a dc:date and a description of about descLen bytes of words
// chosen from seq.
func tuningStory(b *strings.Builder, path string, seq int64, descLen int) {
	h := uint64(seq)*0x9e3779b97f4a7c15 + 17
	var desc strings.Builder
	for desc.Len() < descLen {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
		desc.WriteString(tuningWords[h%uint64(len(tuningWords))])
		desc.WriteByte(' ')
	}
	fmt.Fprintf(b, "<article><h3><!-- <item:title index=\"%d\"> -->Notice %d: %s %s<!-- </item:title> --></h3>"+
		"<!-- <item:link index=\"%d\"> --><a href=\"%s/notice/%d\">more</a><!-- </item:link> -->\n"+
		"<!-- <item:extension index=\"%d\" uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"date\"> -->2026-11-%02dT%02d:00:00Z<!-- </item:extension> -->\n"+
		"<!-- <item:description index=\"%d\"> --><p>%s</p><!-- </item:description> --></article>\n",
		seq, seq, tuningWords[seq%int64(len(tuningWords))], tuningWords[(seq/7)%int64(len(tuningWords))],
		seq, path, seq, seq, 1+seq%28, seq%24, seq, desc.String())
}

// threePage is a workload issue 21's per-item work was tuned on (not the
// held-out listingPage): 40 stories of about 850-byte descriptions,
// exactly three new at each of the page's own requests (n), the three
// oldest falling off.
func threePage(path string, n int64) string {
	var b strings.Builder
	b.WriteString("<html><head><title>Parish notices</title></head><body><h1><!-- <channel:title> -->Parish notices<!-- </channel:title> --></h1>\n")
	for seq := 100 + 3*n; seq > 100+3*n-40; seq-- {
		tuningStory(&b, path, seq, 850)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// burstsPage is the other tuning workload: 80 stories with short
// descriptions (about 200 bytes), one to six new at each request (3.5 on
// average, in a fixed cycle), the oldest falling off.
func burstsPage(path string, n int64) string {
	// newest is the number of stories published by request n: (n%6)+1 new
	// at request n, 21 in each cycle of six.
	newest := 200 + 21*(n/6) + (n%6+1)*(n%6+2)/2
	var b strings.Builder
	b.WriteString("<html><head><title>Trail reports</title></head><body><h1><!-- <channel:title> -->Trail reports<!-- </channel:title> --></h1>\n")
	for seq := newest; seq > newest-80; seq-- {
		tuningStory(&b, path, seq, 200)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// digestPage is a second held-out poll workload (issue 21, session 35),
// written by the judge after the poll tuning and given to no tuner: a
// ~48 KB page of 30 stories with a title, a link, an author, a date and a
// description of about 1.1 KB of markup (paragraphs, emphasis, a link),
// where each request publishes one new story (two at every third request)
// and every second request rewrites the description of an older story
// (a revision of an item already stored).
func digestPage(path string, n int64) string {
	newest := 500 + n + n/3
	var b strings.Builder
	b.WriteString("<html><head><title>Weekly digest</title></head><body><h1><!-- <channel:title> -->Weekly digest<!-- </channel:title> --></h1>\n")
	for seq := newest; seq > newest-30; seq-- {
		h := uint64(seq) * 11400714819323198485
		var desc strings.Builder
		for desc.Len() < 1020 {
			h = h*6364136223846793005 + 1442695040888963407
			w := listingWords[(h>>33)%uint64(len(listingWords))]
			switch (h >> 20) % 13 {
			case 0:
				desc.WriteString("</p><p>")
			case 1:
				desc.WriteString("<em>" + w + "</em> ")
				continue
			case 2:
				desc.WriteString(`<a href="/topics/` + w + `">` + w + "</a> ")
				continue
			}
			desc.WriteString(w)
			desc.WriteByte(' ')
		}
		if seq == newest-7 && n%2 == 0 {
			fmt.Fprintf(&desc, " Updated at request %d.", n)
		}
		fmt.Fprintf(&b, "<article><h2><!-- <item:link index=\"%d\"> --><a href=\"%s/d/%d\"><!-- </item:link> --><!-- <item:title index=\"%d\"> -->Digest %d: %s and %s<!-- </item:title> --></a></h2>\n"+
			"<p>By <!-- <item:extension index=\"%d\" uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"creator\"> -->Writer %d<!-- </item:extension> -->, "+
			"<!-- <item:extension index=\"%d\" uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"date\"> -->2026-%02d-%02dT%02d:15:00Z<!-- </item:extension> --></p>\n"+
			"<!-- <item:description index=\"%d\"> --><p>%s</p><!-- </item:description> --></article>\n",
			seq, path, seq, seq, seq, listingWords[seq%int64(len(listingWords))], listingWords[(seq/7)%int64(len(listingWords))],
			seq, seq%17, seq, 1+seq%12, 1+seq%28, seq%24, seq, desc.String())
	}
	b.WriteString("</body></html>\n")
	return b.String()
}
