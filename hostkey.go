package dynamo

import (
	"net"
	"net/url"
	"strings"
)

// HostKey identifies a source's host for politeness: the host name in
// lower case with the scheme's default port made explicit, so
// http://example.org and http://example.org:80 share a turn, while two
// servers on one address but different ports do not. The fetcher spaces
// requests per HostKey, and a poller leases one source per HostKey at a
// time (LeaseHosts). An unparseable URL is its own key.
func HostKey(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		return rawURL
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// scanPerLease is how many due sources a store reads per source asked for,
// beyond scanBase, when LeaseHosts limits the choice: sources of busy hosts
// ahead in the order are passed over, up to that many.
const (
	scanPerLease = 4
	scanBase     = 64
)

// Limited reports whether h limits anything.
func (h LeaseHosts) Limited() bool { return h.OnePerHost || len(h.Skip) > 0 }

// Scan is how many due sources, oldest next poll first, a store reads to
// choose limit of them within h.
func (h LeaseHosts) Scan(limit int) int {
	if !h.Limited() {
		return limit
	}
	return limit*scanPerLease + scanBase
}

// Pick chooses, among candidates' URLs in lease order, up to limit that h
// allows, and returns their indexes in that order.
func (h LeaseHosts) Pick(urls []string, limit int) []int {
	taken := make(map[string]bool, len(h.Skip)+limit)
	for _, k := range h.Skip {
		taken[k] = true
	}
	var out []int
	for i, u := range urls {
		if len(out) == limit {
			break
		}
		if !h.Limited() {
			out = append(out, i)
			continue
		}
		k := HostKey(u)
		if taken[k] {
			continue
		}
		if h.OnePerHost {
			taken[k] = true
		}
		out = append(out, i)
	}
	return out
}
