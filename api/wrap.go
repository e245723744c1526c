package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// wrapAnswer is what the playground shows: the document, the feed, the
// warnings and where each annotation is.
type wrapAnswer struct {
	XMLData     string             `json:"xmldata"`
	Type        transform.Format   `json:"type"`
	ContentType string             `json:"content_type"`
	Feed        string             `json:"feed"`
	Warnings    []dynamo.Warning   `json:"warnings"`
	Annotations []annotationAnswer `json:"annotations"`
	Charset     string             `json:"charset"`
	CharsetFrom string             `json:"charset_from"`
	Items       int                `json:"items"`
}

// annotationAnswer is one annotation found, with byte offsets into the
// page as decoded to UTF-8 (wrapper.Annotation).
type annotationAnswer struct {
	Name         string `json:"name"`
	Index        int    `json:"index,omitempty"`
	Item         int    `json:"item,omitempty"`
	Line         int    `json:"line"`
	Start        int    `json:"start"`
	End          int    `json:"end"`
	ContentStart int    `json:"content_start"`
	ContentEnd   int    `json:"content_end"`
	Value        string `json:"value"`
	Closed       bool   `json:"closed"`
}

// wrap answers POST /api/wrap?base=URL&type=T&id=ID&timezone=TZ with the
// page as the body.
func (s *Server) wrap(w http.ResponseWriter, r *http.Request) {
	opts, format, err := wrapOptions(r.URL.Query())
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	// A page may have 20 MiB and its wrapping takes several times that:
	// the wraps share the slots of the expensive reads, taken before the
	// body is read, so that concurrent big pages cannot take the memory
	// past --heavy-reads of them (docs/RELIABILITY.md, "Security", issue
	// 23); the others are refused with 503 and Retry-After.
	release, ok := s.enterHeavy(r.Context(), w, r)
	if !ok {
		return
	}
	defer release()
	// A page is read as the poller reads it: up to the size of a page at
	// the limit with its annotations (docs/WRAPPER.md, "Size cap").
	page, err := io.ReadAll(http.MaxBytesReader(w, r.Body, dynamo.MaxAnnotatedPageBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.writeAdminError(w, r, invalid("the page must be at most %d bytes (%d MiB)", dynamo.MaxAnnotatedPageBytes, dynamo.MaxAnnotatedPageBytes>>20))
			return
		}
		s.writeAdminError(w, r, invalid("the page could not be read: %v", err))
		return
	}
	opts.ContentType = r.Header.Get("Content-Type")
	opts.Now = s.cfg.Now()
	res := wrapper.Wrap(page, opts)
	var feed bytes.Buffer
	if err := transform.Render(&feed, res.Resource, format); err != nil {
		s.writeAdminError(w, r, fmt.Errorf("wrap: %w", err))
		return
	}
	ans := wrapAnswer{
		XMLData:     string(res.Resource.XML()),
		Type:        format,
		ContentType: format.ContentType(),
		Feed:        feed.String(),
		Warnings:    res.Warnings,
		Annotations: []annotationAnswer{},
		Charset:     res.Charset,
		CharsetFrom: res.CharsetFrom,
		Items:       len(res.Resource.Items),
	}
	if ans.Warnings == nil {
		ans.Warnings = []dynamo.Warning{}
	}
	for _, a := range res.Annotations {
		ans.Annotations = append(ans.Annotations, annotationAnswer{
			Name: a.Name, Index: a.Index, Item: a.Item, Line: a.Line, Start: a.Start, End: a.End,
			ContentStart: a.ContentStart, ContentEnd: a.ContentEnd, Value: a.Value, Closed: a.Closed,
		})
	}
	writeJSON(w, http.StatusOK, ans)
}

// wrapOptions reads /api/wrap's parameters.
func wrapOptions(q url.Values) (wrapper.Options, transform.Format, error) {
	opts := wrapper.Options{RSSID: "playground"}
	format := transform.RSS2
	for name, values := range q {
		if len(values) != 1 {
			return opts, format, badParam(name, "%s must be given at most once", name)
		}
		v := values[0]
		switch name {
		case "base":
			if v != "" {
				if err := dynamo.ValidateSourceURL(v); err != nil {
					return opts, format, badParam("base", "base %q must be the page's absolute http or https URL, in UTF-8", v)
				}
			}
			opts.URL = v
		case "type":
			f, err := transform.ParseFormat(v)
			if err != nil {
				return opts, format, badParam("type", "type must be one of %s (got %q)", formatList(), v)
			}
			format = f
		case "id":
			if dynamo.ValidateSourceID(v) != nil {
				return opts, format, badParam("id", "id %q must be 1 to 64 letters, digits, '.', '_' or '-'", v)
			}
			opts.RSSID = v
		case "timezone":
			if err := dynamo.ValidateTimezone(v); err != nil {
				return opts, format, badParam("timezone", "timezone %q is not an IANA time zone name such as Europe/Paris", v)
			}
			opts.Location, _ = time.LoadLocation(v)
		default:
			return opts, format, badParam(name, "unknown parameter %q: /api/wrap accepts base, type, id, timezone", name)
		}
	}
	return opts, format, nil
}
