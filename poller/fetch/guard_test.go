package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
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
		{"::ffff:0:7f00:1", true, "carries 127.0.0.1"},
		{"::ffff:0:a9fe:a9fe", true, "carries 169.254.169.254"},
		{"::ffff:0:a00:5", true, "carries 10.0.0.5"},
		{"2001:2::1", true, "benchmarking"},
		{"3fff::1", true, "documentation"},
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
		{"::ffff:0:808:808", false, ""},
		{"2001:3::1", false, ""},
		{"4000::1", false, ""},
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
		// More spellings of the same few addresses: every numeric form
		// (hexadecimal, octal, padded, partial), IPv6 written out in full
		// or with a zone, the unspecified addresses (which Linux dials as
		// loopback), other loopback addresses, and userinfo that makes a
		// URL look like another host's.
		"0x7f000001", "017700000001", "127.000.000.001", "0x7f.0x0.0x0.0x1", "127.0.1", "0177.1", "127.255.255.254",
		"0", "[0:0:0:0:0:0:0:1]", "[0000:0000:0000:0000:0000:0000:0000:0001]", "[::1%25lo]", "[::]", "[0:0:0:0:0:0:0:0]",
		"[::ffff:0.0.0.0]", "feeds.example.com@127.0.0.1", "user:pass@[::1]",
		// Zoned IPv4-mapped and link-local addresses: refused, never
		// "address not understood".
		"[::ffff:127.0.0.1%25lo]", "[fe80::1%25lo]",
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
		// Registration refuses it before any request, with polling's kind
		// and advice, naming the URL once.
		checked := wantKind(t, c.CheckURL(u), KindRefused)
		if !strings.Contains(checked.Error(), "--allow-private") || strings.Count(checked.Error(), u) != 1 {
			t.Errorf("CheckURL(%s) = %q", u, checked)
		}
		if (host == "127.0.0.1" || host == "localhost") && checked.Error() != fe.Error() {
			t.Errorf("CheckURL(%s) = %q, but polling says %q", u, checked, fe)
		}
	}
	for _, public := range []string{"http://example.org/feed", "https://93.184.215.14/", "http://[2606:4700::1]/", "not a url", "/relative"} {
		if err := c.CheckURL(public); err != nil {
			t.Errorf("CheckURL(%s) = %v, want nil", public, err)
		}
	}
	if err := New(Options{AllowPrivate: true}).CheckURL("http://127.0.0.1/"); err != nil {
		t.Errorf("CheckURL with private destinations allowed: %v", err)
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
		"http://2130706433:" + innerPort + "/admin",
		"http://127.1:" + innerPort + "/admin",
		"http://LocalHost.:" + innerPort + "/admin",
		"http://[::ffff:127.0.0.1]:" + innerPort + "/admin",
		"http://[0:0:0:0:0:0:0:1]:" + innerPort + "/admin",
		"http://0:" + innerPort + "/admin",
		"http://[::]:" + innerPort + "/admin",
		"//127.0.0.1:" + innerPort + "/admin", // scheme-relative
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

// TestGuardRefusesOtherSchemes checks that only http and https are ever
// fetched, whether the URL is given or reached by a redirect: a scheme
// that the transport cannot speak is refused before anything is dialed, so
// the loopback origin sees only the requests that redirect.
func TestGuardRefusesOtherSchemes(t *testing.T) {
	srv, hits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	p := port(t, srv)
	others := []string{
		"gopher://127.0.0.1:" + p + "/_GET%20/", "ftp://127.0.0.1:" + p + "/feed", "file:///etc/passwd", "file://localhost/etc/passwd",
		"data:text/html,<script>alert(1)</script>", "data:application/rss+xml;base64,PHJzcy8+", "dict://127.0.0.1:" + p + "/info",
		"ldap://127.0.0.1:" + p + "/", "jar:http://127.0.0.1:" + p + "/a!/b", "javascript:alert(1)", "ws://127.0.0.1:" + p + "/",
		"view-source:http://127.0.0.1:" + p + "/", "mailto:a@127.0.0.1",
	}
	c := New(Options{AllowPrivate: true, HostGap: -1}) // the scheme check holds even where private addresses are allowed
	for _, u := range others {
		_, err := c.Get(context.Background(), Request{URL: u})
		wantKind(t, err, KindScheme)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("a non-HTTP URL reached the origin %d times", n)
	}
	for _, u := range others {
		_, err := c.Get(context.Background(), Request{URL: srv.URL + "/?to=" + url.QueryEscape(u)})
		wantKind(t, err, KindScheme)
	}
	if n := hits.Load(); n != int64(len(others)) {
		t.Fatalf("the origin saw %d requests, want only the %d that redirect", n, len(others))
	}
}

// loopbackDNS is a name server on loopback that answers one name with the
// loopback addresses, standing for a public name whose DNS points inside.
type loopbackDNS struct {
	addr    string
	queries atomic.Int64
}

// startLoopbackDNS serves name (fully qualified, with its final dot) as
// 127.0.0.1 and ::1, and every other name as nonexistent.
func startLoopbackDNS(t *testing.T, name string) *loopbackDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	d := &loopbackDNS{addr: pc.LocalAddr().String()}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			d.queries.Add(1)
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.EnableCompression()
			known := strings.EqualFold(q.Name.String(), name)
			if !known {
				b = dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, RCode: dnsmessage.RCodeNameError})
			}
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
			switch {
			case known && q.Type == dnsmessage.TypeA:
				b.AResource(rh, dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}})
			case known && q.Type == dnsmessage.TypeAAAA:
				b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: netip.IPv6Loopback().As16()})
			}
			if msg, err := b.Finish(); err == nil {
				pc.WriteTo(msg, from)
			}
		}
	}()
	return d
}

// resolveWith makes c resolve names through the name server at addr only,
// keeping everything else of its dialer: the same guard (c.control) on
// every address dialed, the same rewriting of numeric and localhost
// hosts. The test thus sends its DNS queries to loopback, never to the
// machine's resolver.
func resolveWith(c *Client, addr string) {
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
	dialer := &net.Dialer{Timeout: c.opts.ConnectTimeout, Control: c.control, Resolver: resolver}
	c.http.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, hostport string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, canonicalAddr(hostport))
	}
}

// TestGuardRefusesNameResolvingToLoopback has a name server on loopback
// answer a public-looking name with 127.0.0.1 and ::1: fetching that name,
// directly or through a redirect, is refused when the connection is
// dialed, and the same name reaches the origin when private destinations
// are allowed (so the refusal came from the guard, not from the lookup).
func TestGuardRefusesNameResolvingToLoopback(t *testing.T) {
	const name = "feeds.rebinding.example."
	dns := startLoopbackDNS(t, name)
	srv, hits := countingServer(t, nil)
	target := "http://" + strings.TrimSuffix(name, ".") + ":" + port(t, srv) + "/feed"

	guarded := New(Options{HostGap: -1})
	resolveWith(guarded, dns.addr)
	_, err := guarded.Get(context.Background(), Request{URL: target})
	fe := wantKind(t, err, KindRefused)
	if !strings.Contains(fe.Error(), "loopback") {
		t.Errorf("error %q does not say the name resolved to loopback", fe)
	}
	if dns.queries.Load() == 0 {
		t.Fatal("the name server was never asked: the test proves nothing")
	}

	outer, outerHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	})
	outerPort, _ := strconv.Atoi(port(t, outer))
	guarded.allow = func(ap netip.AddrPort) bool { return int(ap.Port()) == outerPort }
	_, err = guarded.Get(context.Background(), Request{URL: outer.URL + "/start"})
	wantKind(t, err, KindRefused)
	if outerHits.Load() != 1 || hits.Load() != 0 {
		t.Fatalf("outer origin hits %d (want 1), target hits %d (want 0)", outerHits.Load(), hits.Load())
	}

	open := New(Options{AllowPrivate: true, HostGap: -1})
	resolveWith(open, dns.addr)
	if _, err := open.Get(context.Background(), Request{URL: target}); err != nil {
		t.Fatalf("with private destinations allowed: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("target hits = %d, want 1", hits.Load())
	}
}
