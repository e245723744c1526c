package api

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/transform"
)

// Bounds of the Cache-Control max-age that feeds are served with.
const (
	defaultMaxAge = time.Minute    // when the next poll is unknown
	maxMaxAge     = 24 * time.Hour // however far off the next poll is
)

// writeAnswer sends a rendered feed, or 304 when the client's copy is
// current.
//
// A client that accepts gzip gets the compressed body kept with the answer
// (made for the first such client) and its own ETag; Vary says the answer
// depends on Accept-Encoding, and If-None-Match with either ETag is the
// same content, so answers 304.
func (s *Server) writeAnswer(w http.ResponseWriter, r *http.Request, a *answer) {
	gzipped := a.gz != nil && httpcompress.AcceptsGzip(r)
	etag := a.hdr.etag
	if gzipped {
		etag = a.hdr.gzETag
	}
	if s.setAnswerHeaders(w, r, a, etag) {
		return
	}
	h := w.Header()
	body, length := a.body, a.hdr.contentLength
	if gzipped {
		body = a.gz.get(a.body)
		length = a.gz.contentLength()
		h["Content-Encoding"] = gzipEncoding
	}
	h["Content-Length"] = length
	w.Write(body)
}

// answerHeaders sets the headers of a feed answer, etag being the tag of
// the representation the client gets, and answers 304, reporting true, when
// the client's copy is current; else it sets the Content-Type and the body
// is the caller's to write. The answer must be prepared (answer.prepare).
func (s *Server) answerHeaders(w http.ResponseWriter, r *http.Request, a *answer, etag string) bool {
	return s.setAnswerHeaders(w, r, a, []string{etag})
}

// setAnswerHeaders is answerHeaders with the ETag as the header holds it.
// The header values are the answer's own (answer.prepare), set under their
// canonical keys: a cached answer builds none of them again.
func (s *Server) setAnswerHeaders(w http.ResponseWriter, r *http.Request, a *answer, etag []string) bool {
	h := w.Header()
	if len(h["Vary"]) == 0 {
		h["Vary"] = varyValues
	} else {
		httpcompress.AddVary(h)
		h.Add("Vary", "Accept") // a browser asking for HTML gets the readable page
	}
	h["Etag"] = etag
	if a.hdr.link != nil {
		h["Link"] = a.hdr.link
	}
	if a.hdr.lastModified != nil { // an empty collection or category has none
		h["Last-Modified"] = a.hdr.lastModified
	}
	if a.immutable {
		h["Cache-Control"] = immutableCacheControl
	} else {
		h["Cache-Control"] = a.hdr.cacheControl.header(int(maxAge(a.nextChange, s.cfg.Now()).Seconds()))
	}
	if notModified(r, a) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	h["Content-Type"] = a.hdr.contentType
	return false
}

// Header values every answer shares; each slice's capacity is its length,
// so appending to one copies it.
var (
	// varyValues is Vary: an answer depends on Accept-Encoding (its
	// compression) and Accept (a browser asking for HTML gets the
	// readable page).
	varyValues            = []string{"Accept-Encoding", "Accept"}[:2:2]
	immutableCacheControl = []string{"public, max-age=" + strconv.Itoa(immutableAge) + ", immutable"}[:1:1]
	gzipEncoding          = []string{"gzip"}[:1:1]
)

// maxAge is how long a client may keep an answer: until the collection's
// next poll, the earliest it can change.
func maxAge(next, now time.Time) time.Duration {
	if next.IsZero() {
		return defaultMaxAge
	}
	return min(max(next.Sub(now), 0), maxMaxAge).Truncate(time.Second)
}

// notModified evaluates the conditional request headers as RFC 9110 §13.2.2
// orders them: If-None-Match when present (weak comparison), else
// If-Modified-Since.
func notModified(r *http.Request, a *answer) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagMatches(inm, a.etag) || etagMatches(inm, a.hdr.gzETag[0])
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !a.lastModified.IsZero() && !a.lastModified.After(t)
}

// etagMatches reports whether the If-None-Match list names etag, ignoring
// weakness (W/) on either side (RFC 9110's weak comparison), or is "*".
func etagMatches(list, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for tag := range strings.SplitSeq(list, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// notFoundError is a 404 whose message is shown to the client.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}

// classify maps an error to its status and the message the client sees.
// Errors that are not the client's are logged and shown without detail.
func (s *Server) classify(r *http.Request, err error) (status int, param, msg string) {
	var pe *dynamo.ParamError
	var nf *notFoundError
	switch {
	case errors.As(err, &pe):
		return http.StatusBadRequest, pe.Param, pe.Msg
	case errors.As(err, &nf):
		return http.StatusNotFound, "", nf.msg
	case errors.Is(err, dynamo.ErrNotFound):
		return http.StatusNotFound, "", "not found"
	case errors.Is(err, limits.ErrBusy):
		return http.StatusServiceUnavailable, "", "too many expensive reads (xpath, searches, long archives) at once: try again in a moment, or ask for a cached feed"
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("api: request timed out", "path", r.URL.Path, "err", err)
		return http.StatusServiceUnavailable, "", "the request took too long; try again, or ask for fewer items"
	case r.Context().Err() != nil:
		return http.StatusServiceUnavailable, "", "request cancelled"
	}
	s.log.Error("api: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	return http.StatusInternalServerError, "", "internal error; it has been logged"
}

// writeReadError answers a failed read in the format the client asked for
// with type= (an XML document for the XML formats, JSON for json), or in
// plain text when it asked for none or its type was the error.
func (s *Server) writeReadError(w http.ResponseWriter, r *http.Request, err error) {
	status, param, msg := s.classify(r, err)
	format, asked := requestedFormat(r.URL.RawQuery)
	switch {
	case !asked:
		writePlainError(w, status, msg)
	case format == transform.JSON:
		writeJSONError(w, status, param, msg)
	default:
		writeXMLError(w, status, param, msg)
	}
}

func errorHeaders(w http.ResponseWriter, contentType string, status int) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
}

func writePlainError(w http.ResponseWriter, status int, msg string) {
	errorHeaders(w, "text/plain; charset=utf-8", status)
	fmt.Fprintln(w, msg)
}

// errorBody is the JSON error document.
type errorBody struct {
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Parameter string `json:"parameter,omitempty"`
}

func writeJSONError(w http.ResponseWriter, status int, param, msg string) {
	errorHeaders(w, "application/json; charset=utf-8", status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(errorBody{Status: status, Error: msg, Parameter: param})
}

// xmlError is the XML error document.
type xmlError struct {
	XMLName   xml.Name `xml:"error"`
	Status    int      `xml:"status"`
	Message   string   `xml:"message"`
	Parameter string   `xml:"parameter,omitempty"`
}

func writeXMLError(w http.ResponseWriter, status int, param, msg string) {
	errorHeaders(w, "application/xml; charset=utf-8", status)
	w.Write([]byte(xml.Header))
	// Messages quote client input, which may hold characters XML cannot
	// carry; strings.ToValidUTF8 and the encoder's escaping keep the
	// document well-formed.
	body, _ := xml.MarshalIndent(xmlError{Status: status, Message: xmlText(msg), Parameter: xmlText(param)}, "", "  ")
	w.Write(append(body, '\n'))
}

// xmlText drops what XML 1.0 cannot hold: invalid UTF-8 and control
// characters other than tab and newline.
func xmlText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, s)
}

// checkBaseURL accepts an absolute http(s) URL without query or fragment.
func checkBaseURL(base string) error {
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") || strings.ContainsAny(base, "?#") {
		return fmt.Errorf("api: base URL %q must be an absolute http or https URL without query or fragment: %w", base, dynamo.ErrInvalid)
	}
	return nil
}

// requestedFormat finds the format a query string asks for, even in a query
// that does not parse, so that its error can answer in that format. It
// reports false when no type parameter names a format.
func requestedFormat(raw string) (transform.Format, bool) {
	if len(raw) > dynamo.MaxQueryLength {
		return "", false
	}
	for piece := range strings.SplitSeq(raw, "&") {
		rawName, rawValue, _ := strings.Cut(piece, "=")
		name, err1 := url.QueryUnescape(rawName)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 != nil || err2 != nil || name != "type" {
			continue
		}
		if f, err := transform.ParseFormat(value); err == nil {
			return f, true
		}
	}
	return "", false
}

// MaxJSONBody bounds a JSON request body, in bytes.
const MaxJSONBody = 64 << 10

// writeJSON sends v as the JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	jsonHeaders(w)
	w.WriteHeader(status)
	b, _ := jsonIndent(v, "")
	w.Write(append(b, '\n'))
}

// jsonHeaders are those of every JSON answer of the admin API.
func jsonHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// jsonIndent marshals v indented by two spaces after prefix, leaving <, >
// and & as they are: answers quote annotations ("<item:title> is never
// closed") and URLs with &, which a reader of curl's output must see as
// written, not as \u003citem:title\u003e. The Content-Type and nosniff
// keep browsers from reading the answer as HTML, which is what that
// escaping guards against.
func jsonIndent(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeJSONList answers {"key": [...]}, after head's fields when head is
// set (a struct marshalled as an object), as writeJSON would indent it, with
// the items each hands to item written as they come, so that a listing of
// any length is never held whole. The status (200) goes out with the first
// item; an error before it is returned for the caller to answer, and an
// error after it ends the connection, so that the client sees a truncated
// answer rather than a short list.
func writeJSONList(w http.ResponseWriter, head any, key string, each func(item func(any) error) error) error {
	opening := []byte("{")
	if head != nil {
		b, err := jsonIndent(head, "")
		if err != nil {
			return err
		}
		opening = append(bytes.TrimSuffix(b, []byte("\n}")), ',')
	}
	started := false
	start := func() {
		jsonHeaders(w)
		w.WriteHeader(http.StatusOK)
		k, _ := json.Marshal(key)
		fmt.Fprintf(w, "%s\n  %s: [", opening, k)
		started = true
	}
	sep := "\n    "
	err := each(func(v any) error {
		b, err := jsonIndent(v, "    ")
		if err != nil {
			return err
		}
		if !started {
			start()
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		sep = ",\n    "
		_, err = w.Write(b)
		return err
	})
	switch {
	case err != nil && !started:
		return err
	case err != nil:
		panic(http.ErrAbortHandler)
	case !started:
		start()
		io.WriteString(w, "]\n}\n")
	default:
		io.WriteString(w, "\n  ]\n}\n")
	}
	return nil
}

// writeAdminError answers a failed admin request in JSON.
func (s *Server) writeAdminError(w http.ResponseWriter, r *http.Request, err error) {
	var status int
	var param, msg string
	var pe *dynamo.ParamError
	switch {
	case errors.As(err, &pe):
		status, param, msg = http.StatusBadRequest, pe.Param, pe.Msg
	case errors.Is(err, dynamo.ErrConflict), errors.Is(err, dynamo.ErrLeaseLost):
		status, msg = http.StatusConflict, err.Error()
	case errors.Is(err, sources.ErrUnresolvable):
		status, msg = http.StatusUnprocessableEntity, err.Error()
	case errors.Is(err, dynamo.ErrInvalid):
		status, msg = http.StatusBadRequest, err.Error()
	default:
		status, param, msg = s.classify(r, err)
	}
	writeJSONError(w, status, param, msg)
}

// invalid is a client error in a request body, shown as it is.
var invalid = dynamo.Invalidf

// decodeJSON reads exactly one JSON value into v, refusing bodies that are
// not sent as JSON, bodies over MaxJSONBody, trailing data and, for a
// struct, unknown fields.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	// Only a JSON type: a page on another site can make a browser send a
	// form, text/plain or untyped body without asking (no CORS preflight),
	// and with no token configured that browser may be the operator's.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return invalid("the body must be JSON, sent with Content-Type: application/json (got %q)", r.Header.Get("Content-Type"))
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return invalid("the body must be at most %d bytes", MaxJSONBody)
		}
		return invalid("the body is not a valid JSON object for this request: %v", err)
	}
	if dec.More() {
		return invalid("the body must hold one JSON object and nothing after it")
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("the body must hold one JSON object and nothing after it")
	}
	return nil
}
