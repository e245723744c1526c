package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// AccessLog writes one "request" line per answer through h: method, route
// (the ServeMux pattern, as Observe labels it), path, status, bytes written
// (after compression, when a handler inside compresses), duration and the
// client's address. The lines go to h whatever its level, so that
// --access-log works beside --log-level warn (docs/OPERATIONS.md "Logs").
//
// The route is the pattern Observe saw: a handler between the two may hand
// the mux a copy of the request (r.WithContext), whose Pattern the mux
// sets, so Observe passes it back through the request's context.
func AccessLog(h slog.Handler, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		pattern := new(string)
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), patternKey{}, pattern)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		rec := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
		rec.AddAttrs(
			slog.String("method", r.Method),
			slog.String("route", Route(*pattern)),
			slog.String("path", r.URL.Path),
			slog.Int("status", sw.status),
			slog.Int64("bytes", sw.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
		)
		h.Handle(context.WithoutCancel(r.Context()), rec)
	})
}

// patternKey holds, in a request's context, where Observe writes the
// pattern the mux matched, for AccessLog.
type patternKey struct{}
