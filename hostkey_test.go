package dynamo

import (
	"slices"
	"testing"
)

func TestHostKey(t *testing.T) {
	tests := map[string]string{
		"http://Example.ORG/feed":      "example.org:80",
		"http://example.org:80/":       "example.org:80",
		"https://example.org/":         "example.org:443",
		"http://example.org:8080/":     "example.org:8080",
		"http://[2001:db8::1]:8080/x":  "[2001:db8::1]:8080",
		"https://user@example.org/x?y": "example.org:443",
		"not a url at all":             "not a url at all",
	}
	for raw, want := range tests {
		if got := HostKey(raw); got != want {
			t.Errorf("HostKey(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestLeaseHostsPick(t *testing.T) {
	urls := []string{"http://a.example/1", "http://A.example:80/2", "http://b.example/1", "http://c.example/1", "http://b.example/2", "http://d.example/1"}
	tests := []struct {
		name  string
		hosts LeaseHosts
		limit int
		want  []int
	}{
		{"no limits", LeaseHosts{}, 4, []int{0, 1, 2, 3}},
		{"one per host", LeaseHosts{OnePerHost: true}, 10, []int{0, 2, 3, 5}},
		{"one per host, up to the limit", LeaseHosts{OnePerHost: true}, 2, []int{0, 2}},
		{"busy hosts skipped", LeaseHosts{Skip: []string{"a.example:80", "c.example:80"}}, 10, []int{2, 4, 5}},
		{"both", LeaseHosts{OnePerHost: true, Skip: []string{"b.example:80"}}, 10, []int{0, 3, 5}},
	}
	for _, tc := range tests {
		if got := tc.hosts.Pick(urls, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Pick = %v, want %v", tc.name, got, tc.want)
		}
	}
}
