package load_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// request is one request of the load mix and what its answer must be.
type request struct {
	path   string
	header []string // name, value pairs
	want   int      // the status
	ctype  string   // the Content-Type prefix a 200 must carry
}

// loadMix builds the mix from a Dynamo whose archive fillArchive filled:
// cached feeds in every format, archive queries with conditions and XPath,
// conditional requests that must get 304 (If-None-Match, If-Modified-Since)
// and ones that must not (a stale ETag, an old date), and client errors
// that must get 400 and 404. Every answer is read once first, which warms
// the cache and gives the validators.
func loadMix(t testing.TB, c *dynamoClient) []request {
	reads := []string{
		"/resources/news?max=50",
		"/resources/news?max=50&type=atom",
		"/resources/news?max=50&type=rss1",
		"/resources/news?max=50&type=json",
		"/resources/news",
		"/resources/news?index=1&type=json",
		"/resources/news?index=2&type=xmldata",
		"/resources/news?max=20&title=story%201&op=or&desc=paragraph%204&type=atom",
		"/resources/news?title=council&op=or&desc=mill&op=and&link=story%2F3&type=json",
		"/resources/news?xpath=%2F%2Fitem%5Bcontains(title%2C%27Story%205%27)%5D&type=rss1",
		"/resources/blog?max=10&type=atom",
		"/resources/town?index=1",
		"/resources?type=atom",
		"/aggregate?max=50&type=json",
	}
	var mix []request
	for _, path := range reads {
		a := c.get(path, http.StatusOK)
		etag, lastMod := a.header.Get("ETag"), a.header.Get("Last-Modified")
		if etag == "" || lastMod == "" {
			t.Fatalf("GET %s: no ETag or Last-Modified: %v", path, a.header)
		}
		modified, err := http.ParseTime(lastMod)
		if err != nil {
			t.Fatalf("GET %s: Last-Modified %q: %v", path, lastMod, err)
		}
		ctype := contentTypes[typeOf(path)]
		mix = append(mix,
			request{path: path, want: http.StatusOK, ctype: ctype},
			request{path: path, header: []string{"If-None-Match", etag}, want: http.StatusNotModified},
			request{path: path, header: []string{"If-None-Match", `"stale"`}, want: http.StatusOK, ctype: ctype},
			request{path: path, header: []string{"If-Modified-Since", lastMod}, want: http.StatusNotModified},
			request{path: path, header: []string{"If-Modified-Since", modified.Add(-time.Hour).UTC().Format(http.TimeFormat)}, want: http.StatusOK, ctype: ctype},
		)
	}
	return append(mix,
		request{path: "/resources/news?max=0", want: http.StatusBadRequest},
		request{path: "/resources/news?type=rss3", want: http.StatusBadRequest},
		request{path: "/resources/nowhere?max=5", want: http.StatusNotFound},
		request{path: "/resources/news?index=999", want: http.StatusNotFound},
	)
}

// loadReport is what a load run saw.
type loadReport struct {
	requests  int
	elapsed   time.Duration
	latencies []time.Duration // sorted
	byStatus  map[int]int
	errors    int
	firstErrs []string
	dials     int64
}

func (r *loadReport) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p/100*float64(len(r.latencies))))]
}

func (r *loadReport) String() string {
	return fmt.Sprintf("%d requests in %s (%.0f req/s), statuses %v, %d connections opened; latency p50 %s p90 %s p99 %s p99.9 %s max %s",
		r.requests, r.elapsed.Round(time.Millisecond), float64(r.requests)/r.elapsed.Seconds(), r.byStatus, r.dials,
		r.percentile(50), r.percentile(90), r.percentile(99), r.percentile(99.9), r.latencies[len(r.latencies)-1])
}

// runLoad sends the mix from conns keep-alive connections for d, each
// connection going round the mix from its own starting point, and checks
// every answer.
func runLoad(base string, mix []request, conns int, d time.Duration) *loadReport {
	var dials atomic.Int64
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	var (
		mu     sync.Mutex
		report = &loadReport{byStatus: map[int]int{}}
		wg     sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				lat      []time.Duration
				byStatus = map[int]int{}
				errs     []string
			)
			for i := w * 7; time.Now().Before(deadline); i++ {
				rq := mix[i%len(mix)]
				t0 := time.Now()
				status, err := check(client, base, rq)
				lat = append(lat, time.Since(t0))
				byStatus[status]++
				if err != nil {
					errs = append(errs, err.Error())
				}
			}
			mu.Lock()
			defer mu.Unlock()
			report.latencies = append(report.latencies, lat...)
			for s, n := range byStatus {
				report.byStatus[s] += n
			}
			report.errors += len(errs)
			if len(report.firstErrs) < 10 {
				report.firstErrs = append(report.firstErrs, errs[:min(len(errs), 10-len(report.firstErrs))]...)
			}
		}()
	}
	wg.Wait()
	report.elapsed = time.Since(start)
	report.requests = len(report.latencies)
	report.dials = dials.Load()
	slices.Sort(report.latencies)
	return report
}

// check sends one request of the mix and says what is wrong with its
// answer, if anything: a transport error, another status than the one
// expected (so a 304 only where a conditional request asked for it), an
// empty body, or a feed without its Content-Type.
func check(client *http.Client, base string, rq request) (int, error) {
	req, err := http.NewRequest(http.MethodGet, base+rq.path, nil)
	if err != nil {
		return 0, err
	}
	for i := 0; i+1 < len(rq.header); i += 2 {
		req.Header.Set(rq.header[i], rq.header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", rq.path, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return resp.StatusCode, fmt.Errorf("GET %s %v: read body: %w", rq.path, rq.header, err)
	case resp.StatusCode != rq.want:
		return resp.StatusCode, fmt.Errorf("GET %s %v: status %d, want %d", rq.path, rq.header, resp.StatusCode, rq.want)
	case rq.want == http.StatusNotModified:
		if len(body) != 0 {
			return resp.StatusCode, fmt.Errorf("GET %s %v: 304 with a body", rq.path, rq.header)
		}
	case len(body) == 0:
		return resp.StatusCode, fmt.Errorf("GET %s %v: status %d with an empty body", rq.path, rq.header, resp.StatusCode)
	case rq.ctype != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), rq.ctype):
		return resp.StatusCode, fmt.Errorf("GET %s: Content-Type %q, want %s", rq.path, resp.Header.Get("Content-Type"), rq.ctype)
	}
	return resp.StatusCode, nil
}

// TestLoad drives the real API (in this process, over each store, with the
// poller running) over loopback from many keep-alive connections with the
// mix of loadMix, and requires every answer to be the one expected: zero
// errors. Latency percentiles go to the test log. Short by default (64
// connections, 4 s per store); a minute at 256 connections in long mode.
func TestLoad(t *testing.T) {
	conns, d := 64, 4*time.Second
	if long() {
		conns, d = 256, time.Minute
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			base := inProcess(t, st.dsn(t))
			c := newDynamoClient(t, base)
			fillArchive(t, c, newSite(t))
			mix := loadMix(t, c)
			before := loadAverage()
			r := runLoad(base, mix, conns, d)
			t.Logf("RESULT | Go load generator, %s, %d connections, %d kinds of request: %s | load before %s |", st.name, conns, len(mix), r, before)
			if r.errors > 0 {
				t.Errorf("%d of %d answers were wrong; the first:\n%s", r.errors, r.requests, strings.Join(r.firstErrs, "\n"))
			}
			// A few more dials than clients happen when the transport
			// races a dial against a connection coming back; without
			// keep-alive there would be one per request.
			if r.dials > int64(conns+conns/8) {
				t.Errorf("%d connections opened for %d clients and %d requests: keep-alive failed", r.dials, conns, r.requests)
			}
			if r.byStatus[http.StatusNotModified] == 0 || r.byStatus[http.StatusOK] == 0 {
				t.Errorf("the mix produced no 304 or no 200: %v", r.byStatus)
			}
			c.get("/healthz", http.StatusOK)
		})
	}
}
