package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCheckAddr classifies addresses without dialing any of them.
func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool
		what    string // part of the reason, when refused
	}{
		{"127.0.0.1", true, "loopback"},
		{"127.255.255.254", true, "loopback"},
		{"::1", true, "loopback"},
		{"::ffff:127.0.0.1", true, "loopback"},
		{"10.0.0.1", true, "RFC 1918"},
		{"10.255.255.255", true, "RFC 1918"},
		{"172.16.0.1", true, "RFC 1918"},
		{"172.31.255.255", true, "RFC 1918"},
		{"192.168.1.1", true, "RFC 1918"},
		{"::ffff:192.168.1.1", true, "RFC 1918"},
		{"::ffff:10.1.2.3", true, "RFC 1918"},
		{"100.64.0.1", true, "carrier-grade NAT"},
		{"100.127.255.255", true, "carrier-grade NAT"},
		{"169.254.169.254", true, "link-local"},
		{"169.254.0.1", true, "link-local"},
		{"::ffff:169.254.169.254", true, "link-local"},
		{"fe80::1", true, "link-local"},
		{"fe80::1%eth0", true, "link-local"},
		{"febf:ffff::1", true, "link-local"},
		{"fc00::1", true, "unique-local"},
		{"fd00::2", true, "unique-local"},
		{"fdff:ffff::1", true, "unique-local"},
		{"fec0::1", true, "site-local"},
		{"0.0.0.0", true, "unspecified"},
		{"0.1.2.3", true, "unspecified"},
		{"::", true, "unspecified"},
		{"::ffff:0.0.0.0", true, "unspecified"},
		{"224.0.0.1", true, "multicast"},
		{"239.255.255.250", true, "multicast"},
		{"ff02::1", true, "multicast"},
		{"255.255.255.255", true, "broadcast"},
		{"240.0.0.1", true, "reserved"},
		{"192.0.2.1", true, "documentation"},
		{"198.51.100.7", true, "documentation"},
		{"203.0.113.9", true, "documentation"},
		{"2001:db8::1", true, "documentation"},
		{"198.18.0.1", true, "benchmarking"},
		{"192.0.0.8", true, "IETF"},
		{"100::1", true, "discard"},
		{"::127.0.0.1", true, "IPv4-compatible"},
		{"64:ff9b::7f00:1", true, "carries 127.0.0.1"},
		{"64:ff9b::a9fe:a9fe", true, "carries 169.254.169.254"},
		{"64:ff9b:1::c0a8:101", true, "carries 192.168.1.1"},
		{"2002:7f00:1::1", true, "carries 127.0.0.1"},
		{"2002:c0a8:101::1", true, "carries 192.168.1.1"},
		// Public addresses, including neighbours of the refused ranges.
		{"93.184.216.34", false, ""},
		{"8.8.8.8", false, ""},
		{"1.1.1.1", false, ""},
		{"9.255.255.255", false, ""},
		{"11.0.0.0", false, ""},
		{"100.63.255.255", false, ""},
		{"100.128.0.0", false, ""},
		{"126.255.255.255", false, ""},
		{"128.0.0.0", false, ""},
		{"169.253.255.255", false, ""},
		{"172.15.255.255", false, ""},
		{"172.32.0.0", false, ""},
		{"192.167.255.255", false, ""},
		{"192.169.0.0", false, ""},
		{"223.255.255.255", false, ""},
		{"::ffff:8.8.8.8", false, ""},
		{"2606:4700:4700::1111", false, ""},
		{"2a00:1450:4001:80b::200e", false, ""},
		{"64:ff9b::808:808", false, ""},
		{"2002:808:808::1", false, ""},
		{"fbff:ffff::1", false, ""},
		{"fe00::1", false, ""},
	}
	for _, tc := range tests {
		err := CheckAddr(netip.MustParseAddr(tc.addr))
		switch {
		case tc.refused && err == nil:
			t.Errorf("CheckAddr(%s) = nil, want refused (%s)", tc.addr, tc.what)
		case !tc.refused && err != nil:
			t.Errorf("CheckAddr(%s) = %v, want nil", tc.addr, err)
		case tc.refused && !strings.Contains(err.Error(), tc.what):
			t.Errorf("CheckAddr(%s) = %q, want it to mention %q", tc.addr, err, tc.what)
		}
	}
	if CheckAddr(netip.Addr{}) == nil {
		t.Error("CheckAddr(zero Addr) = nil, want refused")
	}
}

func TestLegacyIPv4(t *testing.T) {
	tests := []struct {
		host string
		want string // "" when it is a name
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0x7F.0.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"169.254.43518", "169.254.169.254"},
		{"10.0.0.1.", "10.0.0.1"},
		{"0x", "0.0.0.0"},
		{"example.org", ""},
		{"127.0.0.1.example.org", ""},
		{"256.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"4294967296", ""},
		{"08.0.0.1", ""},
		{"1..2", ""},
		{"", ""},
		{"[::1]", ""},
	}
	for _, tc := range tests {
		a, ok := legacyIPv4(tc.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("legacyIPv4(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

// countingServer is an origin on loopback that counts the requests that
// reach it.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if h != nil {
			h(w, r)
			return
		}
		w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantKind(t *testing.T, err error, kind Kind) *Error {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want a *fetch.Error of kind %s", err, err, kind)
	}
	if fe.Kind != kind {
		t.Fatalf("kind = %s (%v), want %s", fe.Kind, fe, kind)
	}
	return fe
}

// TestGuardRefusesLoopback dials only loopback: the guard must refuse every
// spelling of it before a request reaches the origin, which counts them.
func TestGuardRefusesLoopback(t *testing.T) {
	srv, hits := countingServer(t, nil)
	p := port(t, srv)
	c := New(Options{HostGap: -1})
	for _, host := range []string{
		"127.0.0.1", "[::1]", "localhost", "LOCALHOST.", "feeds.localhost", "0x7f.1", "127.1", "2130706433", "0177.0.0.1",
		"[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "0.0.0.0",
	} {
		u := "http://" + host + ":" + p + "/feed"
		resp, err := c.Get(context.Background(), Request{URL: u})
		if resp != nil {
			t.Errorf("Get(%s) returned a response", u)
		}
		fe := wantKind(t, err, KindRefused)
		if !strings.Contains(fe.Error(), "--allow-private") {
			t.Errorf("Get(%s): error %q does not say how to allow it", u, fe)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the origin was reached %d times", n)
	}
	// The same origin is reachable when private destinations are allowed.
	open := New(Options{AllowPrivate: true, HostGap: -1})
	if _, err := open.Get(context.Background(), Request{URL: "http://localhost:" + p + "/feed"}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 {
		t.Fatalf("hits = %d, want 1", hits.Load())
	}
}

// TestGuardRefusesRedirectToLoopback lets a guarded client reach one origin
// (through the test hook, standing for a public site) and checks that its
// redirect to another loopback origin is refused at dial time.
func TestGuardRefusesRedirectToLoopback(t *testing.T) {
	inner, innerHits := countingServer(t, nil)
	innerPort := port(t, inner)
	for _, target := range []string{
		"http://127.0.0.1:" + innerPort + "/admin",
		"http://localhost:" + innerPort + "/admin",
		"http://0x7f.0.0.1:" + innerPort + "/admin",
		"http://[::1]:" + innerPort + "/admin",
	} {
		outer, outerHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target, http.StatusFound)
		})
		outerPort, _ := strconv.Atoi(port(t, outer))
		c := New(Options{HostGap: -1})
		c.allow = func(ap netip.AddrPort) bool { return int(ap.Port()) == outerPort }
		_, err := c.Get(context.Background(), Request{URL: outer.URL + "/feed"})
		wantKind(t, err, KindRefused)
		if outerHits.Load() != 1 {
			t.Errorf("redirect to %s: outer origin hits = %d, want 1", target, outerHits.Load())
		}
	}
	if n := innerHits.Load(); n != 0 {
		t.Fatalf("the redirect target was reached %d times", n)
	}
}
