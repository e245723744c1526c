package fetch

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"

	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// open is a client for test origins, which all live on loopback.
func open(o Options) *Client {
	o.AllowPrivate = true
	if o.HostGap == 0 {
		o.HostGap = -1
	}
	return New(o)
}

func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestGetSendsHeadersAndHashesBody(t *testing.T) {
	body := []byte("<rss version=\"2.0\"><channel><title>t</title></channel></rss>")
	var got http.Header
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Sun, 22 Nov 2026 10:00:00 GMT")
		w.Write(body)
	})
	resp, err := open(Options{}).Get(context.Background(), Request{URL: srv.URL + "/feed"})
	if err != nil {
		t.Fatal(err)
	}
	if ua := got.Get("User-Agent"); ua != DefaultUserAgent {
		t.Errorf("User-Agent = %q, want %q", ua, DefaultUserAgent)
	}
	if !strings.Contains(got.Get("Accept"), "application/rss+xml") {
		t.Errorf("Accept = %q", got.Get("Accept"))
	}
	if got.Get("If-None-Match") != "" || got.Get("If-Modified-Since") != "" {
		t.Errorf("unconditional request sent validators: %v", got)
	}
	sum := sha256.Sum256(body)
	want := Response{
		URL: srv.URL + "/feed", StatusCode: 200, Body: body, ContentType: "application/rss+xml; charset=utf-8",
		ETag: `"v1"`, LastModified: "Sun, 22 Nov 2026 10:00:00 GMT", BodyHash: hex.EncodeToString(sum[:]),
	}
	if !equalResponse(resp, &want) {
		t.Fatalf("response = %+v\nwant %+v", resp, want)
	}
}

func equalResponse(a, b *Response) bool {
	return a.URL == b.URL && a.StatusCode == b.StatusCode && a.NotModified == b.NotModified &&
		bytes.Equal(a.Body, b.Body) && a.ContentType == b.ContentType && a.ETag == b.ETag &&
		a.LastModified == b.LastModified && a.BodyHash == b.BodyHash && a.Expires.Equal(b.Expires) &&
		a.RetryAfter == b.RetryAfter
}

// TestConditionalGet is an origin that honours If-None-Match and
// If-Modified-Since; it counts its 304s.
func TestConditionalGet(t *testing.T) {
	const etag, lastMod = `"abc"`, "Sat, 21 Nov 2026 08:00:00 GMT"
	var full, notModified atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == etag || r.Header.Get("If-Modified-Since") == lastMod {
			notModified.Add(1)
			if r.URL.Path == "/with-etag" {
				w.Header().Set("ETag", etag)
			}
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastMod)
		w.Write([]byte("content"))
	})
	c := open(Options{})
	first, err := c.Get(context.Background(), Request{URL: srv.URL + "/with-etag"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  Request
	}{
		{"etag", Request{URL: srv.URL + "/with-etag", ETag: first.ETag}},
		{"last-modified", Request{URL: srv.URL + "/plain", LastModified: first.LastModified}},
		{"both", Request{URL: srv.URL + "/plain", ETag: first.ETag, LastModified: first.LastModified}},
	}
	for _, tc := range tests {
		resp, err := c.Get(context.Background(), tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !resp.NotModified || resp.StatusCode != 304 || len(resp.Body) != 0 || resp.BodyHash != "" {
			t.Errorf("%s: response %+v, want a bodiless 304", tc.name, resp)
		}
		// Validators carry over when the 304 does not repeat them.
		if resp.ETag != tc.req.ETag || resp.LastModified != tc.req.LastModified {
			t.Errorf("%s: validators %q %q, want %q %q", tc.name, resp.ETag, resp.LastModified, tc.req.ETag, tc.req.LastModified)
		}
	}
	if full.Load() != 1 || notModified.Load() != 3 {
		t.Fatalf("origin served %d full responses and %d 304s, want 1 and 3", full.Load(), notModified.Load())
	}
}

func TestRedirects(t *testing.T) {
	var srv *httptest.Server
	srv = serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			var n int
			fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
			if n == 0 {
				w.Write([]byte("arrived"))
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusMovedPermanently)
		case r.URL.Path == "/loop-a":
			http.Redirect(w, r, "/loop-b", http.StatusFound)
		case r.URL.Path == "/loop-b":
			http.Redirect(w, r, srv.URL+"/loop-a", http.StatusTemporaryRedirect)
		case r.URL.Path == "/ftp":
			http.Redirect(w, r, "ftp://127.0.0.1/feed", http.StatusFound)
		case r.URL.Path == "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case r.URL.Path == "/nolocation":
			w.WriteHeader(http.StatusFound)
		}
	})
	c := open(Options{MaxRedirects: 3})
	resp, err := c.Get(context.Background(), Request{URL: srv.URL + "/hop/3"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.URL != srv.URL+"/hop/0" || string(resp.Body) != "arrived" {
		t.Errorf("after 3 redirects: URL %s body %q", resp.URL, resp.Body)
	}
	tests := []struct {
		path string
		kind Kind
	}{
		{"/hop/4", KindRedirects},
		{"/loop-a", KindRedirects},
		{"/ftp", KindScheme},
		{"/file", KindScheme},
		{"/nolocation", KindStatus},
	}
	for _, tc := range tests {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + tc.path})
		wantKind(t, err, tc.kind)
	}
	none := open(Options{MaxRedirects: -1})
	_, err = none.Get(context.Background(), Request{URL: srv.URL + "/hop/1"})
	wantKind(t, err, KindRedirects)
}

func TestBadURLs(t *testing.T) {
	c := open(Options{})
	tests := []struct {
		url  string
		kind Kind
	}{
		{"ftp://127.0.0.1/feed", KindScheme},
		{"file:///etc/passwd", KindScheme},
		{"javascript:alert(1)", KindScheme},
		{"/relative/path", KindScheme},
		{"http://", KindURL},
		{"http://[::1", KindURL},
		{"http://127.0.0.1:99999/", KindNetwork},
	}
	for _, tc := range tests {
		_, err := c.Get(context.Background(), Request{URL: tc.url})
		fe := wantKind(t, err, tc.kind)
		if fe.URL != tc.url {
			t.Errorf("%s: error URL %q", tc.url, fe.URL)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/429":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/503":
			w.Header().Set("Retry-After", time.Now().Add(90*time.Minute).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/500":
			w.Header().Set("Retry-After", "60") // only 429 and 503 carry a meaningful one
			http.Error(w, strings.Repeat("boom ", 10000), http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	})
	tests := []struct {
		path             string
		code             int
		minWait, maxWait time.Duration
	}{
		{"/429", 429, 120 * time.Second, 120 * time.Second},
		{"/503", 503, 89 * time.Minute, 90 * time.Minute},
		{"/500", 500, 0, 0},
		{"/404", 404, 0, 0},
	}
	for _, tc := range tests {
		// A fresh client each time: a Retry-After would pause the host.
		resp, err := open(Options{}).Get(context.Background(), Request{URL: srv.URL + tc.path})
		fe := wantKind(t, err, KindStatus)
		if fe.StatusCode != tc.code || resp == nil || resp.StatusCode != tc.code {
			t.Fatalf("%s: error %v, response %+v; want status %d", tc.path, fe, resp, tc.code)
		}
		if fe.RetryAfter < tc.minWait || fe.RetryAfter > tc.maxWait || resp.RetryAfter != fe.RetryAfter {
			t.Errorf("%s: RetryAfter %s (response %s), want in [%s, %s]", tc.path, fe.RetryAfter, resp.RetryAfter, tc.minWait, tc.maxWait)
		}
		if !strings.Contains(fe.Error(), fmt.Sprint(tc.code)) {
			t.Errorf("%s: error text %q lacks the status", tc.path, fe)
		}
	}
}

func TestTimeouts(t *testing.T) {
	stop := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			<-stop
		case "/drip":
			w.Header().Set("Content-Length", "1000000")
			for {
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		case "/hang-headers-sent":
			w.Write([]byte("<rss>"))
			w.(http.Flusher).Flush()
			<-stop
		}
	})
	t.Cleanup(func() { close(stop) }) // before srv.Close, which waits for handlers
	c := open(Options{Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/hang", "/drip", "/hang-headers-sent"} {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		wantKind(t, err, KindTimeout)
	}
	// The caller's context bounds it too.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := open(Options{}).Get(ctx, Request{URL: srv.URL + "/hang"})
	wantKind(t, err, KindTimeout)
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = open(Options{}).Get(ctx, Request{URL: srv.URL + "/hang"})
	wantKind(t, err, KindCanceled)
}

func gzipped(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	z.Close()
	return buf.Bytes()
}

func TestBodyLimitsAndEncodings(t *testing.T) {
	const max = 64 << 10
	exact := bytes.Repeat([]byte("a"), max)
	bomb := gzipped(t, make([]byte, 64<<20)) // 64 MiB of zeros in about 64 KiB
	var deflated bytes.Buffer
	zw := zlib.NewWriter(&deflated)
	zw.Write([]byte("deflated content"))
	zw.Close()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			w.Write(exact)
		case "/declared-too-big":
			w.Header().Set("Content-Length", fmt.Sprint(max+1))
			w.Write(append(exact, 'b'))
		case "/flood": // chunked, never ends on its own
			chunk := bytes.Repeat([]byte("f"), 8192)
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, []byte("compressed content")))
		case "/gzip-exact":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, exact))
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		case "/corrupt-gzip":
			w.Header().Set("Content-Encoding", "gzip")
			g := gzipped(t, []byte("some content that is long enough to matter"))
			g[len(g)-5] ^= 0xff // break the checksum
			w.Write(g)
		case "/not-gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("plain text claiming to be gzip"))
		case "/deflate":
			w.Header().Set("Content-Encoding", "deflate")
			w.Write(deflated.Bytes())
		case "/brotli":
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte{0x1b, 0x00})
		}
	})
	c := open(Options{MaxBody: max})
	ok := map[string]string{
		"/exact":      string(exact),
		"/gzip":       "compressed content",
		"/gzip-exact": string(exact),
		"/deflate":    "deflated content",
	}
	for path, want := range ok {
		resp, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(resp.Body) != want {
			t.Errorf("%s: body of %d bytes, want %d", path, len(resp.Body), len(want))
		}
	}
	bad := map[string]Kind{
		"/declared-too-big": KindTooLarge,
		"/flood":            KindTooLarge,
		"/bomb":             KindTooLarge,
		"/corrupt-gzip":     KindEncoding,
		"/not-gzip":         KindEncoding,
		"/brotli":           KindEncoding,
	}
	for path, kind := range bad {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + path})
		fe := wantKind(t, err, kind)
		if fe.URL != srv.URL+path {
			t.Errorf("%s: error URL %q", path, fe.URL)
		}
	}
}

func TestExpires(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Time
	}{
		{"nothing", http.Header{}, time.Time{}},
		{"max-age", http.Header{"Cache-Control": {"public, max-age=600"}}, now.Add(10 * time.Minute)},
		{"max-age less age", http.Header{"Cache-Control": {"max-age=600"}, "Age": {"100"}}, now.Add(500 * time.Second)},
		{"max-age beats expires", http.Header{"Cache-Control": {"max-age=60"}, "Expires": {"Sun, 22 Nov 2026 13:00:00 GMT"}}, now.Add(time.Minute)},
		{"expires", http.Header{"Expires": {"Sun, 22 Nov 2026 13:00:00 GMT"}}, now.Add(time.Hour)},
		{"expires past", http.Header{"Expires": {"Sun, 22 Nov 2026 11:00:00 GMT"}}, time.Time{}},
		{"expires invalid", http.Header{"Expires": {"0"}}, time.Time{}},
		{"no-cache", http.Header{"Cache-Control": {"no-cache, max-age=600"}}, time.Time{}},
		{"no-store", http.Header{"Cache-Control": {"no-store"}, "Expires": {"Sun, 22 Nov 2026 13:00:00 GMT"}}, time.Time{}},
		{"max-age zero", http.Header{"Cache-Control": {"max-age=0"}}, time.Time{}},
		{"max-age capped", http.Header{"Cache-Control": {"max-age=31536000"}}, now.Add(MaxDelay)},
		{"expires capped", http.Header{"Expires": {"Fri, 01 Jan 2100 00:00:00 GMT"}}, now.Add(MaxDelay)},
		{"max-age garbage", http.Header{"Cache-Control": {"max-age=soon"}}, time.Time{}},
		{"max-age quoted", http.Header{"Cache-Control": {`max-age="120"`}}, now.Add(2 * time.Minute)},
	}
	for _, tc := range tests {
		if got := expires(tc.header, now); !got.Equal(tc.want) {
			t.Errorf("%s: expires = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"", 0},
		{"30", 30 * time.Second},
		{" 5 ", 5 * time.Second},
		{"-5", 0},
		{"soon", 0},
		{"Sun, 22 Nov 2026 12:05:00 GMT", 5 * time.Minute},
		{"Sun, 22 Nov 2026 11:00:00 GMT", 0},
		{"99999999999", MaxDelay},
		{"Fri, 01 Jan 2100 00:00:00 GMT", MaxDelay},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.value, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tc.value, got, tc.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	err := &Error{Kind: KindStatus, URL: "https://example.org/feed", StatusCode: 503, RetryAfter: time.Minute,
		Err: fmt.Errorf("HTTP 503 Service Unavailable")}
	want := "fetch https://example.org/feed: status: HTTP 503 Service Unavailable (retry after 1m0s)"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestDefaults(t *testing.T) {
	got := Options{HostGap: -1, MaxRedirects: -1}.withDefaults()
	want := Options{UserAgent: DefaultUserAgent, ConnectTimeout: DefaultConnectTimeout, Timeout: DefaultTimeout,
		MaxBody: DefaultMaxBody, MaxRedirects: 0, HostGap: 0}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	if got := (Options{}).withDefaults(); got.HostGap != DefaultHostGap || got.MaxRedirects != DefaultMaxRedirects {
		t.Errorf("zero HostGap/MaxRedirects = %s/%d, want defaults", got.HostGap, got.MaxRedirects)
	}
}

// TestConnectTimeout dials a loopback listener whose accept queue is full
// (backlog 0, one connection already waiting), so that the handshake never
// completes: the connect timeout, not the total one, must end it.
func TestConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	filler, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	c := open(Options{ConnectTimeout: 200 * time.Millisecond, Timeout: time.Minute})
	_, err = c.Get(context.Background(), Request{URL: "http://" + addr + "/feed"})
	fe := wantKind(t, err, KindTimeout)
	if !strings.Contains(fe.Error(), "dial") {
		t.Errorf("error %q does not come from dialing", fe)
	}
}
