package api

import (
	"net/http"

	"github.com/dynamo-feeds/dynamo"
)

// Cached puts in front of next, the handler chain that routes to the
// server's feeds (httpcompress.Handler around the ServeMux that Mount
// filled), a fast path for the requests most often made: a GET of a feed
// whose answer is cached, made as a request already answered from the
// cache was (the same target, Host, scheme and Accept: requestKey). Such a
// request skips the routing, the query's parsing and the cache key, and
// the compression middleware, which leaves a cached answer alone anyway
// (writeAnswer compresses it once, and tags a 304 itself). What depends on
// the request beyond its key (If-None-Match, If-Modified-Since,
// Accept-Encoding) is read as on the full path, by the same code
// (writeAnswer). The route pattern that first answered is set on the
// request for the metrics around (metrics.Observe, which must wrap this
// handler, and the access log).
//
// Everything else goes to next: other methods, a request the cache does
// not know by name, an operator's reads that must not come from the cache
// (dynamo.LatestReads), and the readable page of a feed, which is made for
// each request (serveFeed never names it).
func (s *Server) Cached(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.RequestURI != "" && !dynamo.LatestReads(r.Context()) {
			if a, pattern, ok := s.cache.lookup(s.requestKey(r)); ok {
				r.Pattern = pattern
				s.cfg.Metrics.CacheHit()
				s.writeAnswer(w, r, a)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requestKey is r as the cache knows requests by name.
func (s *Server) requestKey(r *http.Request) requestKey {
	k := requestKey{https: s.access.Scheme(r) == "https", host: r.Host, uri: r.RequestURI}
	if v := r.Header["Accept"]; len(v) > 0 { // wantsHTML reads the first
		k.accept = v[0]
	}
	return k
}

// cacheHit returns the answer cached under key for r, unless r is an
// operator's read that must not come from the cache; a GET's answer that
// is not a readable page (page: made for each request, from the answer) is
// then named by r, for Cached to find without routing.
func (s *Server) cacheHit(r *http.Request, key string, page bool) (*answer, bool) {
	if dynamo.LatestReads(r.Context()) {
		return nil, false
	}
	a, ok := s.cache.get(key)
	if ok && !page && r.Method == http.MethodGet && r.RequestURI != "" {
		s.cache.name(key, s.requestKey(r), r.Pattern)
	}
	return a, ok
}
