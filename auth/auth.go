// Package auth holds the one rule for who may change Dynamo, which the admin
// API and the web interface both apply: with an admin token configured
// (DYNAMO_ADMIN_TOKEN), a request must prove it holds the token; without
// one, it must come from a loopback client. The client address is the
// connection's, never a forwarding header, which anyone can write.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Authorized reports whether r may change Dynamo under token (the
// configured admin token, "" for none): without a token, whether it comes
// from a loopback client; with one, whether it carries the token in an
// Authorization: Bearer header or, for the web interface, whether one of
// proofs (its login cookie, its form field) vouches for it.
func Authorized(r *http.Request, token string, proofs ...func(*http.Request) bool) bool {
	if token == "" {
		return Loopback(r.RemoteAddr)
	}
	if HasBearer(r, token) {
		return true
	}
	for _, proof := range proofs {
		if proof(r) {
			return true
		}
	}
	return false
}

// HasBearer reports whether r carries token in an Authorization: Bearer
// header. Such a request is no browser's ambient credential, so it needs no
// anti-forgery token either.
func HasBearer(r *http.Request, token string) bool {
	given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && token != "" && Matches(token, given)
}

// Matches reports whether given (trimmed) is token. Comparing digests keeps
// the comparison's time independent of the tokens' lengths as well as
// their content.
func Matches(token, given string) bool {
	got, want := sha256.Sum256([]byte(strings.TrimSpace(given))), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// Loopback reports whether remoteAddr (http.Request.RemoteAddr, "host:port"
// or a bare host) is a loopback address, IPv4-mapped ones included.
func Loopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}
