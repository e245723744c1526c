package dynamo_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		str  string
	}{
		{"90s", 90 * time.Second, "90s"},
		{"15m", 15 * time.Minute, "15m"},
		{"2h", 2 * time.Hour, "2h"},
		{"1h30m", 90 * time.Minute, "90m"},
		{"7d", 7 * 24 * time.Hour, "7d"},
		{"120", 2 * time.Minute, "2m"},
		{"1.5s", 1500 * time.Millisecond, "1.5s"},
	}
	for _, tt := range tests {
		d, err := dynamo.ParseDuration(tt.in)
		if err != nil || time.Duration(d) != tt.want || d.String() != tt.str {
			t.Errorf("ParseDuration(%q) = %v (%s), %v; want %v (%s)", tt.in, time.Duration(d), d, err, tt.want, tt.str)
		}
	}
	for _, bad := range []string{"", "soon", "5 parsecs", "xd"} {
		if _, err := dynamo.ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
}

func TestDurationJSON(t *testing.T) {
	var v struct{ D dynamo.Duration }
	if err := json.Unmarshal([]byte(`{"D":"15m"}`), &v); err != nil || time.Duration(v.D) != 15*time.Minute {
		t.Fatalf("unmarshal string: %v %v", v.D, err)
	}
	if err := json.Unmarshal([]byte(`{"D":30}`), &v); err != nil || time.Duration(v.D) != 30*time.Second {
		t.Fatalf("unmarshal number: %v %v", v.D, err)
	}
	if err := json.Unmarshal([]byte(`{"D":"later"}`), &v); err == nil {
		t.Fatal("unmarshal of a bad duration succeeded")
	}
	out, _ := json.Marshal(struct{ D dynamo.Duration }{dynamo.Duration(2 * time.Hour)})
	if string(out) != `{"D":"2h"}` {
		t.Fatalf("marshal = %s", out)
	}
}
