// Package fetch retrieves sources over HTTP for the poller, politely and
// safely (docs/FETCHING.md): a clear User-Agent, connect and total timeouts, a
// cap on the body that also bounds its decompressed size, a bounded chain
// of http and https redirects, conditional GET, and per-host politeness
// (one request at a time, a minimum gap, Retry-After honoured).
//
// Destinations in loopback, private, link-local and other non-public
// ranges are refused when the connection is dialed, after name resolution,
// so neither a hostname that resolves there nor a redirect gets through
// (see CheckAddr). Options.AllowPrivate lifts the guard for local use and
// tests.
//
// docs/FETCHING.md describes the defaults and every refused range.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
)

// DefaultUserAgent names Dynamo, its version (internal/buildinfo) and where
// to learn about it, so that a webmaster who sees it in a log knows who
// polls, why, and which build.
var DefaultUserAgent = UserAgent("")

// AgentToken is the product token Dynamo's User-Agent starts with, the
// one a robots.txt names to address Dynamo (User-agent: Dynamo).
const AgentToken = "Dynamo"

// UserAgent is Dynamo's User-Agent with contact, a URL where its operator
// can be reached (--user-agent-contact: https:, http: or mailto:), added
// after the project's when set.
func UserAgent(contact string) string {
	about := "+https://github.com/dynamo-feeds/dynamo"
	if contact != "" {
		about += "; +" + contact
	}
	return AgentToken + "/" + buildinfo.Read().Short() + " (" + about + ")"
}

// Defaults for the zero values of Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
	// DefaultMaxBody is the largest page Dynamo reads, in bytes after
	// decompression: a page of dynamo.MaxPageBytes with room for the
	// annotations the suggester inserts (docs/WRAPPER.md, "Size cap").
	// Feeds and every other body share it: the fetcher does not know what
	// it fetches.
	DefaultMaxBody      = dynamo.MaxAnnotatedPageBytes
	DefaultMaxRedirects = 5
	DefaultHostGap      = time.Second
)

// MaxDelay caps what an origin can impose through Retry-After,
// Cache-Control: max-age or Expires: a misconfigured origin must not stop a
// source, or a whole host, for weeks.
const MaxDelay = 24 * time.Hour

// maxHeaderBytes bounds the response headers a server may send.
const maxHeaderBytes = 256 << 10

// accept prefers the feed formats, then XML, then HTML pages.
const accept = "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, " +
	"application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.8, */*;q=0.5"

// Options configure a Client. A zero field takes its default; a negative
// HostGap or MaxRedirects means none (no gap between requests to a host;
// no redirect followed).
type Options struct {
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string
	// ConnectTimeout bounds establishing a connection (TCP and TLS).
	// Default 10s.
	ConnectTimeout time.Duration
	// Timeout bounds one whole retrieval once it is sent: connection,
	// redirects, headers and body. A body that trickles in slowly hits it.
	// Waiting for the host's turn (politeness) is bounded by the caller's
	// context instead. Default 30s.
	Timeout time.Duration
	// MaxBody is the largest body accepted, counted after decompression.
	// Default DefaultMaxBody (20 MiB).
	MaxBody int64
	// MaxRedirects is the longest redirect chain followed. Default 5.
	MaxRedirects int
	// AllowPrivate lets requests reach loopback, private and link-local
	// addresses (--allow-private): for local use and tests only.
	AllowPrivate bool
	// HostGap is the minimum time between the end of one request to a host
	// and the start of the next. Default 1s.
	HostGap time.Duration
}

func (o Options) withDefaults() Options {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	switch {
	case o.MaxRedirects == 0:
		o.MaxRedirects = DefaultMaxRedirects
	case o.MaxRedirects < 0:
		o.MaxRedirects = 0
	}
	switch {
	case o.HostGap == 0:
		o.HostGap = DefaultHostGap
	case o.HostGap < 0:
		o.HostGap = 0
	}
	return o
}

// Client retrieves URLs. It is safe for concurrent use; one Client per
// process keeps the per-host politeness in one place.
type Client struct {
	opts  Options
	http  *http.Client
	hosts *hosts
	// allow, when set, admits an address that CheckAddr refuses; tests use
	// it to let a guarded client reach their one origin on loopback.
	allow func(netip.AddrPort) bool
}

// New returns a Client with opts, defaults filled in.
func New(opts Options) *Client {
	c := &Client{opts: opts.withDefaults(), hosts: newHosts()}
	dialer := &net.Dialer{
		Timeout:   c.opts.ConnectTimeout,
		KeepAlive: 30 * time.Second,
		Control:   c.control,
	}
	transport := &http.Transport{
		Proxy: nil, // a proxy would be dialed instead of the destination and defeat the guard
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, canonicalAddr(addr))
		},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    c.opts.ConnectTimeout,
		ResponseHeaderTimeout:  c.opts.Timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        90 * time.Second,
		DisableCompression:     true, // gzip is decoded here, so that the cap counts decompressed bytes
	}
	c.http = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	return c
}

// Transport is the guarded transport the client dials through, for the
// other exchanges that must reach only what a fetch may reach (WebSub's
// hubs and callbacks). Requests sent through it get none of Get's
// politeness, caps or redirects: their own client sets those.
func (c *Client) Transport() http.RoundTripper { return c.http.Transport }

// Request is one conditional retrieval.
type Request struct {
	URL string
	// ETag and LastModified are the validators of the previous retrieval;
	// when set they are sent as If-None-Match and If-Modified-Since.
	ETag         string
	LastModified string
}

// Response is what a retrieval brought back: a 2xx with its body, or a
// 304; with a KindStatus error, the status and headers of the failure.
type Response struct {
	// URL is the final URL, after redirects.
	URL        string
	StatusCode int
	// NotModified reports a 304: the body is empty and the source has not
	// changed since the validators sent.
	NotModified bool
	// Body is the decoded (decompressed) body.
	Body        []byte
	ContentType string
	// ETag and LastModified are the validators to send next time; on a 304
	// without them, the ones sent.
	ETag         string
	LastModified string
	// BodyHash is the SHA-256 of Body in hex; empty for a 304. An unchanged
	// hash means an unchanged body: no parse and no write needed.
	BodyHash string
	// Expires is when the origin says the content may change, from
	// Cache-Control: max-age or Expires; zero when it says nothing or the
	// time is past. It is capped at MaxDelay from now.
	Expires time.Time
	// RetryAfter is the origin's Retry-After on a 429 or 503, capped at
	// MaxDelay; such a response comes with a KindStatus error.
	RetryAfter time.Duration
	// Links are the response's Link header values, where a WebSub
	// publisher advertises its hub (docs/WEBSUB.md).
	Links []string
}

// Get retrieves req.URL. It waits for the host's turn (one request at a
// time, HostGap apart, after any Retry-After), within ctx. A failure is an
// *Error; for a status error (KindStatus) the Response, without a body,
// comes with it.
func (c *Client) Get(ctx context.Context, req Request) (*Response, error) {
	u, err := parseURL(req.URL)
	if err != nil {
		return nil, err
	}
	key := dynamo.HostKey(u.String())
	release, err := c.hosts.acquire(ctx, key)
	if err != nil {
		return nil, &Error{Kind: kindOfWait(err), URL: req.URL, RetryAfter: retryAfterOf(err), Err: err}
	}
	resp, err := c.do(ctx, u, req)
	var pause time.Duration
	if resp != nil {
		pause = resp.RetryAfter
	}
	release(time.Now(), c.opts.HostGap, pause)
	return resp, err
}

// SetCrawlDelay makes d the least gap between two requests to rawURL's
// host (dynamo.HostKey), above HostGap when longer: the host's robots.txt
// Crawl-delay (package robots sets it each time it answers for the host).
// It is capped at MaxDelay. A host idle past its gap may be forgotten,
// delay and all, so the caller sets it again before each request.
func (c *Client) SetCrawlDelay(rawURL string, d time.Duration) {
	c.hosts.setDelay(dynamo.HostKey(rawURL), min(max(d, 0), MaxDelay))
}

// BusyHosts lists the hosts (dynamo.HostKey) a request could not start
// to at now: a request to it is under way or waiting for its turn, or the
// gap after the last one (HostGap, or the host's Retry-After) is not over.
// A poller leases no source of these hosts, so that nothing it leases
// waits behind the gap.
func (c *Client) BusyHosts(now time.Time) []string { return c.hosts.busy(now) }

// parseURL checks that raw is an absolute http or https URL.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, &Error{Kind: KindURL, URL: raw, Err: err}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &Error{Kind: KindScheme, URL: raw, Err: fmt.Errorf("scheme %q is not http or https", u.Scheme)}
	}
	if u.Host == "" {
		return nil, &Error{Kind: KindURL, URL: raw, Err: errors.New("no host")}
	}
	return u, nil
}

// do performs the exchange within the total timeout.
func (c *Client) do(ctx context.Context, u *url.URL, req Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Kind: KindURL, URL: req.URL, Err: err}
	}
	hreq.Header.Set("User-Agent", c.opts.UserAgent)
	hreq.Header.Set("Accept", accept)
	hreq.Header.Set("Accept-Encoding", "gzip, deflate")
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return nil, classify(ctx, req.URL, err)
	}
	defer hresp.Body.Close()
	resp := c.head(hresp, req)
	switch {
	case hresp.StatusCode == http.StatusNotModified:
		resp.NotModified = true
		return resp, nil
	case hresp.StatusCode < 200 || hresp.StatusCode > 299:
		io.CopyN(io.Discard, hresp.Body, 4<<10) // lets a short error page keep the connection
		return resp, &Error{Kind: KindStatus, URL: resp.URL, StatusCode: hresp.StatusCode, RetryAfter: resp.RetryAfter,
			Err: fmt.Errorf("HTTP %s", statusText(hresp))}
	}
	body, err := readBody(hresp, c.opts.MaxBody)
	if err != nil {
		if e := (*Error)(nil); errors.As(err, &e) {
			e.URL = resp.URL
			return nil, e
		}
		return nil, classify(ctx, resp.URL, err)
	}
	sum := sha256.Sum256(body)
	resp.Body, resp.BodyHash = body, hex.EncodeToString(sum[:])
	return resp, nil
}

// head makes the Response from the status and headers.
func (c *Client) head(hresp *http.Response, req Request) *Response {
	now := time.Now()
	resp := &Response{
		URL:          hresp.Request.URL.String(),
		StatusCode:   hresp.StatusCode,
		ContentType:  hresp.Header.Get("Content-Type"),
		ETag:         hresp.Header.Get("ETag"),
		LastModified: hresp.Header.Get("Last-Modified"),
		Expires:      expires(hresp.Header, now),
		Links:        hresp.Header.Values("Link"),
	}
	if hresp.StatusCode == http.StatusTooManyRequests || hresp.StatusCode == http.StatusServiceUnavailable {
		resp.RetryAfter = retryAfter(hresp.Header.Get("Retry-After"), now)
	}
	if hresp.StatusCode == http.StatusNotModified {
		if resp.ETag == "" {
			resp.ETag = req.ETag
		}
		if resp.LastModified == "" {
			resp.LastModified = req.LastModified
		}
	}
	return resp
}

func statusText(r *http.Response) string {
	if r.Status != "" {
		return r.Status
	}
	return fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode))
}

// checkRedirect bounds the chain and keeps it to http and https.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return &Error{Kind: KindRedirects, URL: via[0].URL.String(),
			Err: fmt.Errorf("more than %d redirects (last to %s)", c.opts.MaxRedirects, req.URL)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &Error{Kind: KindScheme, URL: via[0].URL.String(),
			Err: fmt.Errorf("redirect to %s: scheme %q is not http or https", req.URL, req.URL.Scheme)}
	}
	return nil
}
