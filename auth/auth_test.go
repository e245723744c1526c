package auth

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// request is a request as the server sees it on 127.0.0.1:8080.
func request(remote, host string, header ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/poller", nil)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
	r.RemoteAddr, r.Host = remote, host
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return r
}

func TestLocalWithoutToken(t *testing.T) {
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		r       *http.Request
		want    bool
	}{
		{"curl on loopback", nil, request("127.0.0.1:1234", "127.0.0.1:8080"), true},
		{"ipv6 loopback", nil, request("[::1]:1234", "[::1]:8080"), true},
		{"localhost", nil, request("127.0.0.1:1234", "LocalHost:8080"), true},
		{"mapped loopback peer", nil, request("[::ffff:127.0.0.1]:1234", "127.0.0.1:8080"), true},
		{"own page, same origin", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Origin", "http://127.0.0.1:8080", "Sec-Fetch-Site", "same-origin"), true},
		{"typed by the user", nil, request("127.0.0.1:1", "localhost:8080", "Sec-Fetch-Site", "none"), true},
		{"remote client", nil, request("192.0.2.1:1234", "127.0.0.1:8080"), false},
		// DNS rebinding: evil.example now resolves to 127.0.0.1, and the
		// browser sends its name, as a same-origin request.
		{"rebinding", nil, request("127.0.0.1:1", "evil.example:8080", "Origin", "http://evil.example:8080", "Sec-Fetch-Site", "same-origin"), false},
		{"rebinding without browser headers", nil, request("127.0.0.1:1", "evil.example:8080"), false},
		{"rebinding to a numeric-looking name", nil, request("127.0.0.1:1", "127.0.0.1.nip.io:8080"), false},
		{"another site's page on loopback", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), false},
		{"another loopback port's page", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Origin", "http://127.0.0.1:3000", "Sec-Fetch-Site", "same-site"), false},
		{"opaque origin", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Origin", "null"), false},
		{"wrong port", nil, request("127.0.0.1:1", "127.0.0.1:9090"), false},
		{"no port means 80", nil, request("127.0.0.1:1", "localhost"), false},
		{"zoned literal", nil, request("127.0.0.1:1", "[::1%25lo]:8080"), false},
		// Behind a reverse proxy on this host, every peer is loopback.
		{"untrusted proxy", nil, request("127.0.0.1:1", "127.0.0.1:8080", "X-Forwarded-For", "203.0.113.9"), false},
		{"untrusted proxy, forged loopback", nil, request("127.0.0.1:1", "127.0.0.1:8080", "X-Forwarded-For", "127.0.0.1"), false},
		{"untrusted proxy, Forwarded", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Forwarded", "for=203.0.113.9"), false},
		{"untrusted proxy, Via", nil, request("127.0.0.1:1", "127.0.0.1:8080", "Via", "1.1 proxy"), false},
		{"trusted proxy, remote client", proxy, request("10.1.2.3:1", "127.0.0.1:8080", "X-Forwarded-For", "203.0.113.9"), false},
		{"trusted proxy, client forges loopback", proxy, request("10.1.2.3:1", "feeds.example", "X-Forwarded-For", "127.0.0.1, 203.0.113.9"), false},
		{"trusted proxy, local client", proxy, request("10.1.2.3:1", "localhost:443", "X-Forwarded-For", "127.0.0.1"), true},
		{"trusted proxy, local client, rebinding", proxy, request("10.1.2.3:1", "evil.example", "X-Forwarded-For", "127.0.0.1"), false},
		{"trusted proxy, forwarded host", proxy, request("10.1.2.3:1", "localhost", "X-Forwarded-For", "127.0.0.1", "X-Forwarded-Host", "evil.example"), false},
		{"trusted proxy, garbage hop", proxy, request("10.1.2.3:1", "localhost", "X-Forwarded-For", "nonsense"), false},
	} {
		if got := (Access{Proxies: tc.proxies}).Authorized(tc.r); got != tc.want {
			t.Errorf("%s: Authorized = %v, want %v", tc.name, got, tc.want)
		}
	}
	if (Access{PublicURL: "https://feeds.example"}).Authorized(request("127.0.0.1:1", "127.0.0.1:8080")) {
		t.Error("with a public URL, a local request without the token was authorized")
	}
	r := request("127.0.0.1:1", "127.0.0.1:8080")
	r = r.WithContext(context.Background())
	if (Access{}).Authorized(r) {
		t.Error("a request whose serving address is unknown was authorized")
	}
}

func TestToken(t *testing.T) {
	formProof := func(r *http.Request) bool { return r.Header.Get("X-Proof") == "yes" }
	a := Access{Token: "s3cret-s3cret-s3cret"}
	for _, tc := range []struct {
		name string
		r    *http.Request
		want bool
	}{
		{"remote with the token", request("192.0.2.1:1", "feeds.example", "Authorization", "Bearer s3cret-s3cret-s3cret"), true},
		{"lowercase scheme", request("192.0.2.1:1", "feeds.example", "Authorization", "bearer s3cret-s3cret-s3cret"), true},
		{"upper-case scheme", request("192.0.2.1:1", "feeds.example", "Authorization", "BEARER s3cret-s3cret-s3cret"), true},
		{"token with spaces", request("192.0.2.1:1", "feeds.example", "Authorization", "Bearer  s3cret-s3cret-s3cret "), true},
		{"wrong token", request("127.0.0.1:1", "127.0.0.1:8080", "Authorization", "Bearer s3cret-s3cret-s3cre"), false},
		{"loopback needs the token once one is set", request("127.0.0.1:1", "127.0.0.1:8080"), false},
		{"another proof", request("192.0.2.1:1", "feeds.example", "X-Proof", "yes"), true},
		{"basic is not bearer", request("192.0.2.1:1", "feeds.example", "Authorization", "Basic s3cret-s3cret-s3cret"), false},
		{"bearer without credential", request("192.0.2.1:1", "feeds.example", "Authorization", "Bearer"), false},
	} {
		if got := a.Authorized(tc.r, formProof); got != tc.want {
			t.Errorf("%s: Authorized = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !Matches("", "") || Matches("a", "") || (Access{}).HasBearer(request("127.0.0.1:1", "x", "Authorization", "Bearer ")) {
		t.Error("Matches or HasBearer disagree with their documentation")
	}
}

func TestSchemeAndCookies(t *testing.T) {
	proxy := Access{Proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	if got := proxy.Scheme(request("10.0.0.1:1", "x", "X-Forwarded-Proto", "https")); got != "https" {
		t.Errorf("a trusted proxy's X-Forwarded-Proto https: scheme %s", got)
	}
	if got := proxy.Scheme(request("192.0.2.1:1", "x", "X-Forwarded-Proto", "https")); got != "http" {
		t.Errorf("an untrusted X-Forwarded-Proto: scheme %s", got)
	}
	if !proxy.SecureCookies(request("10.0.0.1:1", "x", "X-Forwarded-Proto", "https")) || proxy.SecureCookies(request("10.0.0.1:1", "x")) {
		t.Error("Secure cookies do not follow the trusted proxy")
	}
	if !(Access{PublicURL: "https://feeds.example"}).SecureCookies(request("127.0.0.1:1", "x")) {
		t.Error("an https public URL does not make cookies Secure")
	}
}

func TestParseProxy(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.0/8": "10.0.0.0/8", "10.1.2.3/8": "10.0.0.0/8", "192.0.2.7": "192.0.2.7/32", "::1": "::1/128", "::ffff:10.0.0.1": "10.0.0.1/32"} {
		if p, err := ParseProxy(in); err != nil || p.String() != want {
			t.Errorf("ParseProxy(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	if _, err := ParseProxy("proxy.example"); err == nil {
		t.Error("a name was accepted as a trusted proxy")
	}
}
