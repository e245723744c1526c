package archive

import (
	"testing"
	"time"
)

// TestTimeAndHashColumns reads what each store's driver hands a scan
// destination: a timestamptz, microseconds, NULL; a hash as text or bytes.
func TestTimeAndHashColumns(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	for _, tc := range []struct {
		src  any
		want time.Time
		ok   bool
	}{
		{at.In(time.FixedZone("x", 3600)), at, true},
		{at.UnixMicro(), at, true},
		{time.Time{}.UnixMicro(), time.Time{}, true},
		{nil, time.Time{}, true},
		{"2024-05-06", time.Time{}, false},
	} {
		got := time.Unix(1, 0)
		err := Time(&got).Scan(tc.src)
		if (err == nil) != tc.ok || tc.ok && (!got.Equal(tc.want) || got.Location() != time.UTC) {
			t.Errorf("Time.Scan(%#v) = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		src  any
		want string
		ok   bool
	}{
		{"00ff", "00ff", true},
		{[]byte{0, 255}, "00ff", true},
		{nil, "", false},
		{int64(1), "", false},
	} {
		var got string
		err := Hash(&got).Scan(tc.src)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Hash.Scan(%#v) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}
