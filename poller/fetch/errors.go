package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Kind classifies a failed retrieval, so that callers can tell a refused
// destination from a slow origin without reading error text.
type Kind string

// The kinds of failure.
const (
	KindURL       Kind = "url"       // the URL cannot be parsed or has no host
	KindScheme    Kind = "scheme"    // not http or https, also a redirect's target
	KindRefused   Kind = "refused"   // the destination address is not public (SSRF guard)
	KindTimeout   Kind = "timeout"   // connect or total timeout, or the context's deadline
	KindCanceled  Kind = "canceled"  // the caller's context was canceled
	KindNetwork   Kind = "network"   // name resolution, connection or transfer failed
	KindTooLarge  Kind = "too-large" // the body, decompressed, exceeds MaxBody
	KindEncoding  Kind = "encoding"  // a Content-Encoding that is unknown or corrupt
	KindRedirects Kind = "redirects" // the redirect chain is longer than MaxRedirects
	KindStatus    Kind = "status"    // an HTTP status other than 2xx and 304
	KindThrottled Kind = "throttled" // the host asked to wait (Retry-After) beyond the context's deadline
)

// Error is a failed retrieval. Test for it with errors.As.
type Error struct {
	Kind Kind
	URL  string // the URL requested (for a status error, the final one)
	// StatusCode is the HTTP status of a KindStatus error.
	StatusCode int
	// RetryAfter is how long the origin asked to wait (KindStatus on 429
	// or 503, KindThrottled); zero when it did not say.
	RetryAfter time.Duration
	Err        error
}

// Error says what failed, where, and the origin's Retry-After if any.
func (e *Error) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "fetch %s: %s", e.URL, e.Kind)
	if e.Err != nil {
		sb.WriteString(": ")
		sb.WriteString(e.Err.Error())
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&sb, " (retry after %s)", e.RetryAfter)
	}
	return sb.String()
}

// Unwrap returns the underlying error, so that errors.Is sees, for
// example, context.DeadlineExceeded.
func (e *Error) Unwrap() error { return e.Err }

// classify turns an error of the HTTP exchange into an *Error.
func classify(ctx context.Context, rawURL string, err error) *Error {
	var fe *Error
	if errors.As(err, &fe) { // from checkRedirect or the body reader
		if fe.URL == "" {
			fe.URL = rawURL
		}
		return fe
	}
	var refused *addrError
	var netErr net.Error
	kind := KindNetwork
	switch {
	case errors.As(err, &refused):
		return &Error{Kind: KindRefused, URL: rawURL, Err: refused}
	case ctx.Err() == context.DeadlineExceeded, errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		kind = KindTimeout
	case errors.Is(err, context.Canceled):
		kind = KindCanceled
	}
	return &Error{Kind: kind, URL: rawURL, Err: unwrapURLError(err)}
}

// unwrapURLError drops net/http's "Get \"url\": " prefix, which Error
// already says.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
