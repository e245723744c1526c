package fetch

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"
)

// BenchmarkGet measures retrievals over loopback: a 304 (the cost of an
// unchanged source) and a 50 KB 200 (a changed page). Each iteration makes
// one request through the Client (guard check, politeness, body cap,
// decoding, hash) and one, as the baseline, through a bare net/http client
// reading the same response; interleaving them lets the ratio hold on a
// machine whose load varies during the run.
func BenchmarkGet(b *testing.B) {
	page := bytes.Repeat([]byte("<p>fifty kilobytes of page</p>\n"), 50<<10/31)
	srv := serve(b, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Write(page)
	})
	for _, tc := range []struct{ name, etag string }{{"304", `"v1"`}, {"200-50KB", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			c := open(Options{})
			hc := &http.Client{}
			req := Request{URL: srv.URL + "/page", ETag: tc.etag}
			var client, baseline time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := c.Get(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				plainGet(b, hc, req)
				client, baseline = client+mid.Sub(start), baseline+time.Since(mid)
			}
			b.ReportMetric(float64(b.N)/client.Seconds(), "client-req/s")
			b.ReportMetric(float64(b.N)/baseline.Seconds(), "net/http-req/s")
			b.ReportMetric(client.Seconds()/baseline.Seconds(), "time-ratio")
		})
	}
}

func plainGet(b *testing.B, hc *http.Client, r Request) {
	req, err := http.NewRequest(http.MethodGet, r.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	resp.Body.Close()
}
