package auth

import (
	"net/netip"
	"testing"
	"time"
)

func TestFailures(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := &Failures{Burst: 3, Every: 10 * time.Second, Max: 4, Now: func() time.Time { return now }}
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for i := range 3 {
		if w := f.wait(a); w != 0 {
			t.Fatalf("guess %d refused (wait %s) within the burst", i+1, w)
		}
		f.fail(a)
	}
	if w := f.wait(a); w != 10*time.Second {
		t.Errorf("after the burst: wait %s, want 10s", w)
	}
	if w := f.wait(b); w != 0 {
		t.Errorf("another client waits %s", w)
	}
	now = now.Add(10 * time.Second)
	if w := f.wait(a); w != 0 {
		t.Errorf("after one refill period: wait %s", w)
	}
	f.fail(a)
	if w := f.wait(a); w != 10*time.Second {
		t.Errorf("after a guess on the refilled bucket: wait %s, want 10s", w)
	}
	// IPv6 clients are counted by /64.
	for i := range 3 {
		f.fail(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: byte(i)}))
	}
	if w := f.wait(netip.MustParseAddr("2001:db8::ffff")); w == 0 {
		t.Error("rotating addresses within a /64 escaped the limit")
	}
	// The table stays within Max, forgetting drained buckets first.
	for i := range 10 {
		f.fail(netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}))
	}
	if len(f.clients) > f.Max {
		t.Errorf("%d clients remembered, Max %d", len(f.clients), f.Max)
	}
}
