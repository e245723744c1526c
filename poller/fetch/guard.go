package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// refusedRange is a block of addresses that a public feed never lives in.
type refusedRange struct {
	prefix netip.Prefix
	what   string
}

// refusedRanges are the destinations refused unless AllowPrivate is set:
// everything that reaches the machine itself, its local networks, its
// cloud metadata service, or nothing routable at all. IPv4-mapped IPv6
// addresses are checked as the IPv4 address they carry (see CheckAddr).
var refusedRanges = func() []refusedRange {
	table := []struct{ cidr, what string }{
		{"0.0.0.0/8", "the unspecified \"this network\" range"},
		{"10.0.0.0/8", "private (RFC 1918)"},
		{"100.64.0.0/10", "carrier-grade NAT (RFC 6598)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (the cloud metadata service lives at 169.254.169.254)"},
		{"172.16.0.0/12", "private (RFC 1918)"},
		{"192.0.0.0/24", "reserved for IETF protocol assignments"},
		{"192.0.2.0/24", "documentation (TEST-NET-1)"},
		{"192.168.0.0/16", "private (RFC 1918)"},
		{"198.18.0.0/15", "benchmarking (RFC 2544)"},
		{"198.51.100.0/24", "documentation (TEST-NET-2)"},
		{"203.0.113.0/24", "documentation (TEST-NET-3)"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved (including the broadcast address)"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible (deprecated)"},
		{"100::/64", "discard-only (RFC 6666)"},
		{"2001:2::/48", "benchmarking (RFC 5180)"},
		{"2001:db8::/32", "documentation"},
		{"3fff::/20", "documentation (RFC 9637)"},
		{"fc00::/7", "unique-local (private IPv6)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local (deprecated private IPv6)"},
		{"ff00::/8", "multicast"},
	}
	ranges := make([]refusedRange, len(table))
	for i, r := range table {
		ranges[i] = refusedRange{netip.MustParsePrefix(r.cidr), r.what}
	}
	return ranges
}()

// embeddingPrefixes carry an IPv4 address in their last 32 bits (NAT64,
// RFC 6052 and RFC 8215; SIIT's IPv4-translated addresses, RFC 2765) or in
// bits 16–48 (6to4, RFC 3056); a gateway forwards to that IPv4 address, so
// it is checked too.
var (
	nat64Prefixes = []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48"),
		netip.MustParsePrefix("::ffff:0:0:0/96")}
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// addrError is a destination that the guard refuses.
type addrError struct {
	addr string
	what string
}

func (e *addrError) Error() string {
	return fmt.Sprintf("%s is %s; private destinations are refused unless allowed (--allow-private)", e.addr, e.what)
}

// CheckAddr reports why addr is not a public destination, or nil when it
// is. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is checked as the IPv4
// address it carries, and so is one embedded by NAT64 or 6to4. The client
// calls it on every address it dials; it dials nothing itself.
func CheckAddr(addr netip.Addr) error {
	if !addr.IsValid() {
		return &addrError{addr.String(), "not an IP address"}
	}
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return inRanges(addr.Unmap(), addr)
	}
	if addr.Is4() {
		return inRanges(addr, addr)
	}
	for _, p := range nat64Prefixes {
		if p.Contains(addr) {
			b := addr.As16()
			return inRanges(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), addr)
		}
	}
	if sixToFour.Contains(addr) {
		b := addr.As16()
		return inRanges(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), addr)
	}
	return inRanges(addr, addr)
}

// inRanges checks addr, reporting original (the address as dialed, which
// may carry addr embedded).
func inRanges(addr, original netip.Addr) error {
	for _, r := range refusedRanges {
		if r.prefix.Contains(addr) {
			what := r.what
			if addr != original {
				what = fmt.Sprintf("%s (it carries %s)", what, addr)
			}
			return &addrError{original.String(), what}
		}
	}
	return nil
}

// control runs on every socket before it connects: address is the IP and
// port actually dialed, after name resolution.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	if c.opts.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// What cannot be checked is refused, as refused.
		return &addrError{address, "an address the guard cannot read (" + err.Error() + ")"}
	}
	if c.allow != nil && c.allow(ap) {
		return nil
	}
	return CheckAddr(ap.Addr())
}

// CheckURL refuses, before anything is requested, a URL whose host names a
// destination the guard refuses when dialing (unless AllowPrivate): an
// address in any spelling (IPv4-mapped, zoned, legacy numeric forms) or a
// localhost name. It returns the *Error, of KindRefused, that polling the
// URL would return, so registration and polling say the same. Other names
// are not resolved here: what they resolve to is checked each time they
// are dialed, as a name's answers may change. A URL that does not parse
// is left to the caller's own validation.
func (c *Client) CheckURL(raw string) error {
	if c.opts.AllowPrivate {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	host, _, err := net.SplitHostPort(canonicalAddr(net.JoinHostPort(u.Hostname(), port)))
	if err != nil {
		return nil
	}
	var refused error
	if addr, err := netip.ParseAddr(host); err == nil {
		refused = CheckAddr(addr)
	} else if strings.ContainsAny(host, ":%") || strings.Trim(host, "0123456789.") == "" {
		// Neither a name nor an address: refused, never sent to a resolver.
		refused = &addrError{host, "an address the guard cannot read"}
	}
	if refused == nil {
		return nil
	}
	return &Error{Kind: KindRefused, URL: raw, Err: refused}
}

// canonicalAddr rewrites a host that names a loopback or IPv4 address
// without looking like one, so that it is dialed, and checked, as that
// address, and never sent to a name server: an IPv4 address in one of the
// legacy numeric forms that browsers and inet_aton accept ("0x7f.1",
// "2130706433", "0177.0.0.1", "127.1"), and the localhost names, which
// RFC 6761 reserves for loopback whatever a resolver answers.
func canonicalAddr(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return net.JoinHostPort("127.0.0.1", port)
	}
	if a, ok := legacyIPv4(host); ok {
		return net.JoinHostPort(a.String(), port)
	}
	return hostport
}

// legacyIPv4 parses host as the WHATWG URL standard's IPv4 parser does:
// one to four dot-separated numbers, each decimal, octal (leading 0) or
// hexadecimal (0x), the last filling the remaining bytes. It reports false
// for a host that is not all numbers (a name).
func legacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func ipv4Number(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
