package load_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// vocabulary is what distinctStories draws their words from.
var vocabulary = strings.Fields(`council bridge mill river school market harbour library station festival
museum garden tower square church theatre hospital airport factory stadium farm forest valley mountain lake
island village city road railway tram bus ferry tunnel canal park beach castle palace prison court bank shop
bakery brewery vineyard orchard meadow quarry mine well fountain statue monument archive gallery studio
mayor teacher doctor baker farmer fisher miller painter singer writer pilot sailor soldier judge nurse
opens closes builds repairs sells buys wins loses meets leaves joins plans delays moves floods burns grows
new old red blue green small large quiet busy early late northern southern eastern western ancient modern`)

// distinctStories returns n stories numbered from first whose texts are
// drawn at random from vocabulary, so that near-duplicate detection finds
// few pairs among them: the cost measured is storing items, not comparing
// a crowd of look-alikes.
func distinctStories(first, n int) []story {
	var out []story
	for i := first; i < first+n; i++ {
		x := uint64(i)*6364136223846793005 + 1442695040888963407
		word := func() string {
			x = x*6364136223846793005 + 1442695040888963407
			return vocabulary[(x>>33)%uint64(len(vocabulary))]
		}
		var title, desc []string
		for range 7 {
			title = append(title, word())
		}
		for range 24 {
			desc = append(desc, word())
		}
		out = append(out, story{fmt.Sprintf("%s %d", strings.Join(title, " "), i), fmt.Sprintf("/story/%d", i), strings.Join(desc, " ")})
	}
	return out
}

// bigArchive registers "big", a page of 5,000 stories (the default
// --max-items) stored in versions distinct versions, and "small", a page of
// 10; it logs how long each poll of the big page took, which bounds how
// long it held the store's writer.
func bigArchive(t *testing.T, c *dynamoClient, s *site, versions int) {
	c.register("big", s.URL+"/big.html")
	var took []time.Duration
	for v := range versions {
		s.set("/big.html", annotatedPage("Big", distinctStories(v*5000, 5000)...))
		start := time.Now()
		c.poll("big", v+1)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("%d polls storing 5,000 new items each (fetch, parse and store): fastest %s, median %s, slowest %s; load %s",
		versions, took[0].Round(time.Millisecond), took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), loadAverage())
	s.set("/small.html", annotatedPage("Small", distinctStories(900000, 10)...))
	c.register("small", s.URL+"/small.html")
	c.poll("small", 1)
}

// timed is the latencies and failures of one kind of request.
type timed struct {
	mu       sync.Mutex
	took     []time.Duration
	failures []string
}

func (r *timed) add(d time.Duration, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.took = append(r.took, d)
	if failure != "" {
		r.failures = append(r.failures, failure)
	}
}

func (r *timed) percentile(p float64) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := slices.Clone(r.took)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// TestHeavyReadsBesideCheapOnes is the attack of issue 23 §3: 16 clients
// at once ask an XPath whose cost is quadratic in the document over an
// archive of 5,000-item versions (10,000 items; 100,000 in long mode)
// while /healthz and a small feed are timed beside them. Every /healthz
// and small-feed answer must be 200, the XPath answers only 200, 400 (the
// step or memory budget) or 503 with Retry-After (the gate of expensive
// reads), and the process's peak resident memory, read from /proc, must
// stay under 768 MB (the unbounded server reached 1.74 GB).
func TestHeavyReadsBesideCheapOnes(t *testing.T) {
	versions, d := 2, 8*time.Second
	if long() {
		versions, d = 20, time.Minute
	}
	s := newSite(t)
	p := startServe(t, "--allow-private", "--heavy-reads", "2")
	c := newDynamoClient(t, p.base)
	bigArchive(t, c, s, versions)
	rss0, _ := p.memory(t)
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	probe := func(r *timed, path string) {
		start := time.Now()
		resp, err := client.Get(p.base + path)
		failure := ""
		switch {
		case err != nil:
			failure = err.Error()
		case resp.StatusCode != http.StatusOK:
			failure = fmt.Sprintf("%s: %d", path, resp.StatusCode)
		}
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		r.add(time.Since(start), failure)
	}
	// The baseline: the same probes for 5 s without the crowd.
	baseHealthz, baseSmall := &timed{}, &timed{}
	for i, t0 := 0, time.Now(); time.Since(t0) < 5*time.Second; i++ {
		probe(baseHealthz, "/healthz")
		probe(baseSmall, fmt.Sprintf("/resources/small?max=%d&type=atom", i%200+1))
		time.Sleep(20 * time.Millisecond)
	}

	ctx, stop := context.WithTimeout(context.Background(), d)
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	heavyStatus := map[int]int{}
	xpath := "/resources/big?xpath=" + url.QueryEscape("//*[count(//*)>0]")
	for range 16 {
		wg.Go(func() {
			for ctx.Err() == nil {
				resp, err := client.Get(p.base + xpath)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
					if status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
						status = -503 // a 503 without Retry-After
					}
				}
				mu.Lock()
				heavyStatus[status]++
				mu.Unlock()
			}
		})
	}
	healthz, small := &timed{}, &timed{}
	time.Sleep(time.Second) // the crowd first
	for i := 0; ctx.Err() == nil; i++ {
		probe(healthz, "/healthz")
		// A different max each time: a render, not the cache, up to 200.
		probe(small, fmt.Sprintf("/resources/small?max=%d", i%200+1))
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	rss, hwm := p.memory(t)
	t.Logf("16 concurrent XPath clients for %s over %d versions of 5,000 items, --heavy-reads 2; load %s", d, versions, loadAverage())
	t.Logf("XPath answers by status: %v", heavyStatus)
	t.Logf("without the crowd: /healthz p50 %s, p99 %s; small feed p50 %s, p99 %s (%d requests each)",
		baseHealthz.percentile(0.5), baseHealthz.percentile(0.99), baseSmall.percentile(0.5), baseSmall.percentile(0.99), len(baseHealthz.took))
	t.Logf("beside the crowd: /healthz %d requests, p50 %s, p99 %s (%.1f× the baseline's p99); small feed (uncached renders) %d requests, p50 %s, p99 %s (%.1f×)",
		len(healthz.took), healthz.percentile(0.5), healthz.percentile(0.99), float64(healthz.percentile(0.99))/float64(baseHealthz.percentile(0.99)),
		len(small.took), small.percentile(0.5), small.percentile(0.99), float64(small.percentile(0.99))/float64(baseSmall.percentile(0.99)))
	t.Logf("resident memory: %s before, %s after, peak %s", mb(rss0), mb(rss), mb(hwm))
	for _, r := range []*timed{baseHealthz, baseSmall, healthz, small} {
		if len(r.failures) > 0 {
			t.Errorf("%d cheap requests failed beside the XPath crowd, e.g. %s", len(r.failures), r.failures[0])
		}
	}
	for status, n := range heavyStatus {
		if status != http.StatusOK && status != http.StatusBadRequest && status != http.StatusServiceUnavailable {
			t.Errorf("%d XPath answers of status %d", n, status)
		}
	}
	if heavyStatus[http.StatusServiceUnavailable] == 0 {
		t.Error("the gate of expensive reads never answered 503: the crowd did not saturate it")
	}
	if hwm > 768<<20 {
		t.Errorf("peak resident memory %s, want under 768 MB", mb(hwm))
	}
}

// TestSlowClients is the attack of issue 23 §4: 200 clients send the body
// of a POST /api/wrap at one byte a second, and 30 ask for large answers
// and never read them. With --read-timeout and --write-timeout of 3s,
// every slow sender must be cut off within the read timeout (and a few
// seconds of slack), every non-reader's answer cut short, /healthz must
// keep answering, and peak resident memory, read from /proc, must stay
// under 512 MB.
func TestSlowClients(t *testing.T) {
	const timeout = 3 * time.Second
	s := newSite(t)
	p := startServe(t, "--allow-private", "--read-timeout", timeout.String(), "--write-timeout", timeout.String())
	c := newDynamoClient(t, p.base)
	bigArchive(t, c, s, 1)
	rss0, _ := p.memory(t)

	dial := func() net.Conn {
		conn, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	// The slow senders: a body of 100,000 bytes announced, one byte a
	// second sent, until the server closes the connection.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var cutAfter []time.Duration
	start := time.Now()
	for range 200 {
		conn := dial()
		wg.Go(func() {
			fmt.Fprintf(conn, "POST /api/wrap HTTP/1.1\r\nHost: %s\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n", p.addr)
			closed := make(chan struct{})
			go func() {
				conn.SetReadDeadline(time.Now().Add(30 * time.Second))
				io.Copy(io.Discard, conn) // whatever the server answers, until it closes
				close(closed)
			}()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-closed:
					mu.Lock()
					cutAfter = append(cutAfter, time.Since(start))
					mu.Unlock()
					return
				case <-tick.C:
					conn.Write([]byte("<"))
				}
			}
		})
	}
	// The non-readers: each asks for a different large answer (the
	// 5,000 items of the big page, in a format and length of its own) and
	// reads nothing, with the smallest receive buffer the kernel allows.
	formats := []string{"rss2", "atom", "json", "rss1", "xmldata"}
	var readers []net.Conn
	for i := range 30 {
		conn := dial()
		conn.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(conn, "GET /resources/big?index=1&type=%s&max=%d HTTP/1.1\r\nHost: %s\r\n\r\n", formats[i%len(formats)], 4900+i, p.addr)
		readers = append(readers, conn)
	}
	// /healthz beside them.
	healthz := &timed{}
	peak := int64(0)
	for time.Since(start) < 4*timeout {
		t0 := time.Now()
		resp, err := http.Get(p.base + "/healthz")
		failure := ""
		if err != nil {
			failure = err.Error()
		} else {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				failure = resp.Status
			}
		}
		healthz.add(time.Since(t0), failure)
		if rss, _ := p.memory(t); rss > peak {
			peak = rss
		}
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	// Each non-reader now reads what the server had sent before it gave
	// up: fewer bytes than the answer's Content-Length.
	cut := 0
	for _, conn := range readers {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			cut++ // closed before even the headers arrived in full
			continue
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if length, _ := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); n < length || resp.StatusCode != http.StatusOK {
			cut++
		}
	}
	rss, hwm := p.memory(t)
	slices.Sort(cutAfter)
	t.Logf("200 slow senders (1 byte/s) and 30 non-readers, --read-timeout and --write-timeout %s; load %s", timeout, loadAverage())
	if len(cutAfter) > 0 {
		t.Logf("slow senders cut off after %s (first) to %s (last)", cutAfter[0].Round(100*time.Millisecond), cutAfter[len(cutAfter)-1].Round(100*time.Millisecond))
	}
	t.Logf("non-readers cut short: %d of 30; /healthz p99 %s over %d requests", cut, healthz.percentile(0.99), len(healthz.took))
	t.Logf("resident memory: %s before, %s after, highest sampled %s, peak (VmHWM) %s", mb(rss0), mb(rss), mb(peak), mb(hwm))
	if len(cutAfter) != 200 || cutAfter[len(cutAfter)-1] > timeout+10*time.Second {
		t.Errorf("%d of 200 slow senders cut off, the last after %v; want all within %s of slack", len(cutAfter), cutAfter, timeout+10*time.Second)
	}
	if cut != 30 {
		t.Errorf("%d of 30 non-readers' answers were cut short: the others were held open until read", cut)
	}
	if len(healthz.failures) > 0 {
		t.Errorf("/healthz failed beside the slow clients: %v", healthz.failures)
	}
	if hwm > 512<<20 {
		t.Errorf("peak resident memory %s, want under 512 MB", mb(hwm))
	}
}
