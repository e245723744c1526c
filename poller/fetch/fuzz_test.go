package fetch

import (
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// FuzzLegacyIPv4 checks the reading of numeric hosts: whatever it accepts
// is an IPv4 address that reads back as itself, and a dotted quad that
// netip accepts is read the same way.
func FuzzLegacyIPv4(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1", "1.2.3", "example.org", "0x", "1..1", "08", "4294967295", "255.255.255.256"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, ok := legacyIPv4(host)
		if std, err := netip.ParseAddr(host); err == nil && std.Is4() && (!ok || a != std) {
			t.Fatalf("legacyIPv4(%q) = %v %v, want %v", host, a, ok, std)
		}
		if !ok {
			return
		}
		if !a.Is4() {
			t.Fatalf("legacyIPv4(%q) = %v, not IPv4", host, a)
		}
		if b, ok := legacyIPv4(a.String()); !ok || b != a {
			t.Fatalf("legacyIPv4(%q) = %v does not read back (%v %v)", host, a, b, ok)
		}
	})
}

// FuzzHeaders checks the freshness headers: whatever an origin sends,
// the delays stay within [0, MaxDelay] and an expiry lies ahead.
func FuzzHeaders(f *testing.F) {
	f.Add("max-age=60", "Sun, 22 Nov 2026 13:00:00 GMT", "10", "120")
	f.Add("no-store, max-age=1", "0", "-1", "Sun, 22 Nov 2026 12:05:00 GMT")
	f.Add(`max-age="99999999999999999999"`, "garbage", "x", "99999999999")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, cacheControl, expiresHeader, age, retry string) {
		h := http.Header{"Cache-Control": {cacheControl}, "Expires": {expiresHeader}, "Age": {age}}
		if e := expires(h, now); !e.IsZero() && (!e.After(now) || e.After(now.Add(MaxDelay))) {
			t.Fatalf("expires = %v, outside (now, now+MaxDelay]", e)
		}
		if d := retryAfter(retry, now); d < 0 || d > MaxDelay {
			t.Fatalf("retryAfter(%q) = %s", retry, d)
		}
	})
}
