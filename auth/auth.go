// Package auth holds the one rule for who may change Dynamo, which the admin
// API and the web interface both apply (Access): with an admin token
// configured (DYNAMO_ADMIN_TOKEN), a request must prove it holds the token;
// without one, and without a public URL, it must come from a browser or
// program on this machine that addressed Dynamo by a loopback literal.
//
// Forwarding headers (X-Forwarded-For, -Proto, -Host, Forwarded, X-Real-IP,
// Via), which anyone can write, are believed only from the trusted proxies'
// networks; from anyone else they mark a request that came through a proxy
// nobody vouched for, which therefore never counts as local.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// Access decides who may change Dynamo. The zero value has no token, no
// public URL and trusts no proxy: only local requests may change anything.
type Access struct {
	// Token is the admin token; "" for none.
	Token string
	// PublicURL is the canonical origin Dynamo is reached at (e.g.
	// "https://feeds.example.org"); "" for none. With one set, the local
	// exemption is off: every change needs the token.
	PublicURL string
	// Proxies are the networks of the reverse proxies whose forwarding
	// headers are believed.
	Proxies []netip.Prefix
	// Failures, when set, limits wrong credentials per client (Check,
	// Throttled, Failed).
	Failures *Failures
	// Log, when set, receives a line for every wrong credential.
	Log *slog.Logger
}

// ParseProxy reads a --trusted-proxy value: a CIDR prefix or a single
// address.
func ParseProxy(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is neither an address nor a CIDR prefix such as 10.0.0.0/8", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// Authorized reports whether r may change Dynamo: with a token, whether r
// carries it in an Authorization: Bearer header or one of proofs (the web
// interface's login cookie, its form field) vouches for it; without a
// token, whether r is Local (and no public URL is set).
func (a Access) Authorized(r *http.Request, proofs ...func(*http.Request) bool) bool {
	if a.Token == "" {
		return a.PublicURL == "" && a.Local(r)
	}
	if a.HasBearer(r) {
		return true
	}
	for _, proof := range proofs {
		if proof(r) {
			return true
		}
	}
	return false
}

// Refusal says why Authorized refused r, for the answer's message.
func (a Access) Refusal() string {
	if a.Token != "" {
		return "this change needs the admin token (Authorization: Bearer <DYNAMO_ADMIN_TOKEN>)"
	}
	return "no admin token is configured (DYNAMO_ADMIN_TOKEN), so changes are accepted only from loopback clients " +
		"that address Dynamo as 127.0.0.1, [::1] or localhost with its port, from its own pages"
}

// Local reports whether r comes from this machine, addressed to Dynamo by
// a loopback literal, and, when a browser sent it, from a page of that same
// origin. A page of another site that rebinds its name to 127.0.0.1 sends
// its own name as Host and Origin, so it fails here, as does anything that
// came through a proxy that is not trusted.
func (a Access) Local(r *http.Request) bool {
	client, ok := a.Client(r)
	if !ok || !client.IsLoopback() {
		return false
	}
	host := r.Host
	proxied := a.trusted(r)
	if proxied {
		if fh := lastValue(r.Header.Get("X-Forwarded-Host")); fh != "" {
			host = fh
		}
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, ""
	}
	if !loopbackName(name) {
		return false
	}
	// Behind a trusted proxy the browser spoke to the proxy's port, which
	// Dynamo cannot know; directly, it must have spoken to Dynamo's.
	if !proxied {
		if port == "" {
			port = "80"
			if r.TLS != nil {
				port = "443"
			}
		}
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if !ok {
			return false
		}
		_, served, err := net.SplitHostPort(local.String())
		if err != nil || served != port {
			return false
		}
	}
	return sameOrigin(r, a.Scheme(r)+"://"+host)
}

// sameOrigin reports whether r's browser headers, when present, say it
// came from origin (or from the user, Sec-Fetch-Site: none).
func sameOrigin(r *http.Request, origin string) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || strings.EqualFold(o, origin)
}

// loopbackName reports whether a Host name is a loopback literal:
// localhost or a loopback address, written as an address.
func loopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	return err == nil && addr.Zone() == "" && addr.Unmap().IsLoopback()
}

// forwarding are the headers a proxy adds.
var forwarding = []string{"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-Ip", "Via"}

// Client is the address of r's client: the connection's peer, or, when
// that is a trusted proxy, the nearest untrusted address in
// X-Forwarded-For. It reports false when r came through a proxy that is
// not trusted (a forwarding header from an untrusted peer) or when no
// address can be read.
func (a Access) Client(r *http.Request) (netip.Addr, bool) {
	peer, ok := addrOf(r.RemoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !a.trustedAddr(peer) {
		for _, h := range forwarding {
			if len(r.Header.Values(h)) > 0 {
				return netip.Addr{}, false
			}
		}
		return peer, true
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			continue
		}
		addr, ok := addrOf(hop)
		if !ok {
			return netip.Addr{}, false
		}
		client = addr
		if !a.trustedAddr(addr) {
			break
		}
	}
	return client, true
}

// Scheme is "https" when r reached Dynamo over TLS, directly or, as a
// trusted proxy says, through it; else "http".
func (a Access) Scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if a.trusted(r) && strings.EqualFold(lastValue(r.Header.Get("X-Forwarded-Proto")), "https") {
		return "https"
	}
	return "http"
}

// SecureCookies reports whether cookies set in answer to r must be
// Secure: the public URL is https, or r itself came over https.
func (a Access) SecureCookies(r *http.Request) bool {
	if u, err := url.Parse(a.PublicURL); err == nil && u.Scheme == "https" {
		return true
	}
	return a.Scheme(r) == "https"
}

// trusted reports whether r's peer is a trusted proxy. Without proxies
// it reads no address: every feed request asks (Scheme), and most
// servers trust none.
func (a Access) trusted(r *http.Request) bool {
	if len(a.Proxies) == 0 {
		return false
	}
	peer, ok := addrOf(r.RemoteAddr)
	return ok && a.trustedAddr(peer)
}

func (a Access) trustedAddr(addr netip.Addr) bool {
	for _, p := range a.Proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// lastValue is the last element of a comma-separated header: the one the
// nearest proxy wrote.
func lastValue(v string) string {
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// addrOf reads "host:port" or a bare address, IPv4-mapped ones unmapped.
func addrOf(hostport string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	addr, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.Unmap().WithZone(""), true
}

// HasBearer reports whether r carries the token in an Authorization:
// Bearer header (the scheme in any case, RFC 9110 §11.1). Such a request is
// no browser's ambient credential, so it needs no anti-forgery token
// either.
func (a Access) HasBearer(r *http.Request) bool {
	given, ok := bearer(r)
	return ok && a.Token != "" && Matches(a.Token, given)
}

// bearer is the credential of r's Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	scheme, given, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return given, true
}

// Matches reports whether given (trimmed) is token. Comparing digests keeps
// the comparison's time independent of the tokens' lengths as well as
// their content.
func Matches(token, given string) bool {
	got, want := sha256.Sum256([]byte(strings.TrimSpace(given))), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
