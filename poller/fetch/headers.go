package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// expires is when the origin says the response stops being fresh:
// Cache-Control max-age (less the Age already spent in caches) or, failing
// that, Expires. It is zero when the origin says nothing, says no-cache or
// no-store, or names a time already past; it is at most MaxDelay away.
func expires(h http.Header, now time.Time) time.Time {
	var t time.Time
	if maxAge, ok, noCache := cacheControlMaxAge(h.Values("Cache-Control")); noCache {
		return time.Time{}
	} else if ok {
		age, _ := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64)
		t = now.Add(time.Duration(maxAge-max(age, 0)) * time.Second)
	} else if e := h.Get("Expires"); e != "" {
		t, _ = http.ParseTime(e) // an invalid date means already expired (RFC 9111 §5.3)
	}
	if !t.After(now) {
		return time.Time{}
	}
	if limit := now.Add(MaxDelay); t.After(limit) {
		return limit
	}
	return t
}

// cacheControlMaxAge reads max-age from Cache-Control, and whether
// no-cache or no-store forbid using the response without revalidation.
func cacheControlMaxAge(values []string) (seconds int64, ok, noCache bool) {
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-cache", "no-store":
				noCache = true
			case "max-age":
				n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(arg), `"`), 10, 64)
				if err == nil && !ok {
					seconds, ok = min(max(n, 0), int64(MaxDelay/time.Second)), true
				}
			}
		}
	}
	return seconds, ok, noCache
}

// retryAfter reads a Retry-After header: seconds or an HTTP date. It is
// zero when absent or unreadable, and at most MaxDelay.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(max(n, 0), int64(MaxDelay/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxDelay)
}
