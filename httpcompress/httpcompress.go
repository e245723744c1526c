// Package httpcompress gzips HTTP answers for clients that ask
// (Accept-Encoding, RFC 9110 §12.5.3): Handler for answers made per
// request (the admin API's JSON, the web interface's HTML), and Gzip, ETag
// and AcceptsGzip for answers compressed once and kept (the API's render
// cache). Every compressible answer says Vary: Accept-Encoding, and a
// compressed answer's ETag differs from the plain one's ("…-gzip"), so
// caches never mix the two; If-None-Match with either tag still answers
// 304. docs/API.md "Compression" says why gzip alone.
package httpcompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MinSize is the smallest body worth compressing: below it gzip's header
// and trailer (18 bytes) and the lost Content-Length cost more than they
// save.
const MinSize = 256

// AcceptsGzip reports whether r's Accept-Encoding admits gzip: "gzip" (or
// its alias "x-gzip") with a non-zero weight, or "*" with one when gzip is
// not named. No header means no compression, as clients that do not
// decompress often send none.
func AcceptsGzip(r *http.Request) bool {
	star := false
	for _, value := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(value, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			ok := weight(params) > 0
			switch coding {
			case "gzip", "x-gzip":
				return ok
			case "*":
				star = ok
			}
		}
	}
	return star
}

// weight reads the q parameter of an Accept-Encoding element; 1 when
// absent, 0 when unreadable.
func weight(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil || q < 0 || q > 1 {
				return 0
			}
			return q
		}
	}
	return 1
}

// Gzip compresses b at the best compression: it is for bodies compressed
// once and served many times. Its writers are pooled: a new one allocates
// about a megabyte of compressor state.
func Gzip(b []byte) []byte { return compress(&bestWriters, b) }

// GzipFast compresses b at gzip's fastest level: it is for a body served
// once, where the best level's CPU is not repaid by serving its fewer
// bytes again. Each compression at the best level begins by clearing
// about 640 KB of match tables, which for an answer of a few kilobytes
// costs more than compressing it; the fastest level clears none.
func GzipFast(b []byte) []byte { return compress(&fastWriters, b) }

func compress(pool *sync.Pool, b []byte) []byte {
	var buf bytes.Buffer
	zw := pool.Get().(*gzip.Writer)
	zw.Reset(&buf)
	zw.Write(b) // a bytes.Buffer does not fail
	zw.Close()
	zw.Reset(io.Discard) // keep no reference to buf in the pool
	pool.Put(zw)
	return buf.Bytes()
}

var bestWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestCompression) // the level is valid
	return zw
}}

var fastWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // the level is valid
	return zw
}}

const etagSuffix = "-gzip"

// ETag is the tag of the gzip representation of a body tagged etag:
// "abc" → "abc-gzip" (a weak tag stays weak); "" stays "".
func ETag(etag string) string {
	if !strings.HasSuffix(etag, `"`) || len(etag) < 2 {
		return etag
	}
	return etag[:len(etag)-1] + etagSuffix + `"`
}

// plainETags adds to an If-None-Match list the plain tag of each gzip one,
// so that a handler comparing with its plain tag answers 304 to a client
// holding the compressed representation.
func plainETags(list string) string {
	var extra []string
	for tag := range strings.SplitSeq(list, ",") {
		tag = strings.TrimSpace(tag)
		if strings.HasSuffix(tag, etagSuffix+`"`) {
			extra = append(extra, strings.TrimSuffix(tag, etagSuffix+`"`)+`"`)
		}
	}
	if len(extra) == 0 {
		return list
	}
	return list + ", " + strings.Join(extra, ", ")
}

// Compressible reports whether a Content-Type is text that gzip shrinks:
// text/*, JSON, XML, JavaScript and SVG (their +json and +xml kinds
// included: RSS, Atom, JSON Feed). Images, archives and the rest are
// compressed already or not worth it.
func Compressible(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch {
	case strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"),
		mt == "application/json", mt == "application/xml",
		mt == "application/javascript", mt == "image/svg+xml":
		return true
	}
	return false
}

// AddVary adds Accept-Encoding to h's Vary once.
func AddVary(h http.Header) {
	for _, v := range h.Values("Vary") {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}

var writers = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression) // the level is valid
	return zw
}}

// Handler compresses next's answers when the client accepts gzip, the
// answer is compressible, not encoded already and not known to be smaller
// than MinSize, and the request is not HEAD. It leaves alone answers that
// set their own Content-Encoding (the API's cached feeds).
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			r.Header.Set("If-None-Match", plainETags(inm))
		}
		cw := &writer{ResponseWriter: w, accepts: AcceptsGzip(r) && r.Method != http.MethodHead}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

// writer decides at the first WriteHeader or Write whether to compress.
type writer struct {
	http.ResponseWriter
	accepts bool
	decided bool
	zw      *gzip.Writer // nil unless compressing
}

func (w *writer) decide(status int) {
	if w.decided || status < 200 {
		return
	}
	w.decided = true
	h := w.Header()
	if h.Get("Content-Encoding") != "" || !Compressible(h.Get("Content-Type")) {
		return
	}
	AddVary(h)
	if !w.accepts || status == http.StatusNoContent || status == http.StatusNotModified {
		if status == http.StatusNotModified && w.accepts {
			h.Set("ETag", ETag(h.Get("ETag")))
		}
		return
	}
	if n, err := strconv.Atoi(h.Get("Content-Length")); err == nil && n < MinSize {
		return
	}
	h.Del("Content-Length")
	h.Set("Content-Encoding", "gzip")
	if etag := h.Get("ETag"); etag != "" {
		h.Set("ETag", ETag(etag))
	}
	w.zw = writers.Get().(*gzip.Writer)
	w.zw.Reset(w.ResponseWriter)
}

func (w *writer) WriteHeader(status int) {
	w.decide(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *writer) Write(b []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.zw != nil {
		return w.zw.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written so far, compressed as far as it goes.
func (w *writer) Flush() {
	if w.zw != nil {
		w.zw.Flush()
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *writer) close() {
	if w.zw == nil {
		return
	}
	w.zw.Close()
	w.zw.Reset(io.Discard)
	writers.Put(w.zw)
	w.zw = nil
}
