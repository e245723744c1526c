package api

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/antchfx/xpath"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// Bounds on what a read request may ask for. They keep every request's cost
// bounded whatever a client sends; docs/API.md lists them.
const (
	MaxQueryLength     = 4096  // bytes of raw query string
	MaxParams          = 64    // parameters in one query string
	MaxMax             = 10000 // the largest max=n
	DefaultMax         = 100   // items answered when an item query gives no max
	MaxConditions      = 32    // title/link/description conditions in one request
	MaxConditionLength = 256   // bytes of one condition's value
	MaxXPathLength     = 1024  // bytes of an xpath expression
	MaxCategoryLength  = 256   // bytes of a category name
	maxIndex           = 1 << 30
)

// paramError is a client error in the query string. Its message names the
// parameter and the values it accepts, and is shown to the client as it is.
type paramError struct {
	param string
	msg   string
}

func (e *paramError) Error() string { return e.msg }

func badParam(param, format string, args ...any) *paramError {
	return &paramError{param: param, msg: fmt.Sprintf(format, args...)}
}

// endpoint names the parameters one kind of read accepts.
type endpoint struct {
	name   string
	params []string
}

// The read endpoints and their parameters.
var (
	collectionsEndpoint = endpoint{"/resources", []string{"type"}}
	resourceEndpoint    = endpoint{"/resources/{rssId}", []string{"index", "max", "title", "link", "description", "desc", "op", "xpath", "type"}}
	aggregateEndpoint   = endpoint{"/aggregate", []string{"max", "category", "title", "link", "description", "desc", "op", "dups", "type"}}
)

func (e endpoint) accepts(name string) bool { return slices.Contains(e.params, name) }

// readQuery is a read request's query string, parsed and validated.
type readQuery struct {
	Index      int                // the version asked for, 1 = the newest; 0 when not given
	Max        int                // 0 when not given
	Conditions []dynamo.Condition // in the order given; the first one's Or is false
	XPath      string             // "" when not given
	expr       *xpath.Expr        // XPath compiled
	Category   string
	Dups       bool // dups=include
	Format     transform.Format
}

// itemQuery reports whether the request asks for items rather than the
// list of a collection's versions.
func (q *readQuery) itemQuery() bool {
	return q.Index > 0 || q.Max > 0 || len(q.Conditions) > 0 || q.XPath != ""
}

// limit is the number of items to answer at most.
func (q *readQuery) limit() int {
	if q.Max > 0 {
		return q.Max
	}
	return DefaultMax
}

// parseQuery reads a raw query string for endpoint e. It reads the pairs in
// order, which url.ParseQuery does not keep: op applies to the conditions
// that follow it (SPEC §5).
func parseQuery(raw string, e endpoint) (*readQuery, error) {
	if len(raw) > MaxQueryLength {
		return nil, badParam("query", "the query string must be at most %d bytes (it has %d)", MaxQueryLength, len(raw))
	}
	q := &readQuery{Format: transform.RSS2}
	seen := map[string]bool{}
	or := false
	opPending := "" // the value of an op that no condition has followed yet
	pairs := 0
	for piece := range strings.SplitSeq(raw, "&") {
		if piece == "" {
			continue
		}
		if pairs++; pairs > MaxParams {
			return nil, badParam("query", "the query string must have at most %d parameters", MaxParams)
		}
		name, value, err := splitPair(piece)
		if err != nil {
			return nil, err
		}
		if !e.accepts(name) {
			return nil, badParam(name, "unknown parameter %q: %s accepts %s", name, e.name, strings.Join(e.params, ", "))
		}
		switch name {
		case "title", "link", "description", "desc":
			opPending = ""
			if err := q.addCondition(name, value, or); err != nil {
				return nil, err
			}
			continue
		case "op":
			switch strings.ToLower(value) {
			case "and":
				or = false
			case "or":
				or = true
			default:
				return nil, badParam("op", "op must be and or or (got %q)", value)
			}
			opPending = value
			continue
		}
		if seen[name] {
			return nil, badParam(name, "%s must be given at most once", name)
		}
		seen[name] = true
		if err := q.set(name, value); err != nil {
			return nil, err
		}
	}
	if opPending != "" {
		return nil, badParam("op", "op=%s is followed by no condition: op joins the conditions after it to those before, as in title=a&op=or&title=b", opPending)
	}
	return q, nil
}

// splitPair splits and unescapes one name=value pair.
func splitPair(piece string) (name, value string, err error) {
	rawName, rawValue, _ := strings.Cut(piece, "=")
	name, err = url.QueryUnescape(rawName)
	if err != nil {
		return "", "", badParam("query", "the query string has a malformed escape in %q", piece)
	}
	if name == "" {
		return "", "", badParam("query", "the query string has a value without a parameter name: %q", piece)
	}
	value, err = url.QueryUnescape(rawValue)
	if err != nil {
		return "", "", badParam(name, "%s has a malformed escape in %q", name, rawValue)
	}
	return name, value, nil
}

// addCondition appends a keyword condition; an empty value is left out, so
// that a search form's empty fields do not match everything.
func (q *readQuery) addCondition(name, value string, or bool) error {
	if value == "" {
		return nil
	}
	if len(value) > MaxConditionLength {
		return badParam(name, "%s must be at most %d bytes", name, MaxConditionLength)
	}
	if len(q.Conditions) == MaxConditions {
		return badParam(name, "at most %d conditions (title, link, description) may be given", MaxConditions)
	}
	field, err := dynamo.ParseField(name)
	if err != nil { // cannot happen for the names accepted above
		return badParam(name, "%v", err)
	}
	q.Conditions = append(q.Conditions, dynamo.Condition{Or: or && len(q.Conditions) > 0, Field: field, Value: value})
	return nil
}

// set reads a parameter that may be given once.
func (q *readQuery) set(name, value string) error {
	var err error
	switch name {
	case "index":
		q.Index, err = parseInt(name, value, 1, maxIndex, "an integer from 1 (the newest version) to the number of versions")
	case "max":
		q.Max, err = parseInt(name, value, 1, MaxMax, fmt.Sprintf("an integer from 1 to %d", MaxMax))
	case "xpath":
		err = q.setXPath(value)
	case "category":
		if len(value) > MaxCategoryLength {
			err = badParam(name, "category must be at most %d bytes", MaxCategoryLength)
		}
		q.Category = value
	case "dups":
		switch strings.ToLower(value) {
		case "include":
			q.Dups = true
		case "exclude":
			q.Dups = false
		default:
			err = badParam(name, "dups must be include (every copy of a story) or exclude (the default: each story once), not %q", value)
		}
	case "type":
		q.Format, err = transform.ParseFormat(value)
		if err != nil {
			err = badParam(name, "type must be one of %s (got %q)", formatList(), value)
		}
	}
	return err
}

func parseInt(name, value string, lo, hi int, want string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < lo || n > hi {
		return 0, badParam(name, "%s must be %s (got %q)", name, want, value)
	}
	return n, nil
}

// setXPath compiles the expression. The library is not written for hostile
// input, so a panic while compiling is a bad expression like any other.
func (q *readQuery) setXPath(value string) (err error) {
	switch {
	case strings.TrimSpace(value) == "":
		return badParam("xpath", "xpath must be a non-empty XPath 1.0 expression selecting item elements or nodes inside them")
	case len(value) > MaxXPathLength:
		return badParam("xpath", "xpath must be at most %d bytes (it has %d)", MaxXPathLength, len(value))
	}
	defer func() {
		if p := recover(); p != nil {
			err = badParam("xpath", "xpath is not a valid XPath 1.0 expression: %v", p)
		}
	}()
	expr, cerr := xpath.Compile(value)
	if cerr != nil {
		return badParam("xpath", "xpath is not a valid XPath 1.0 expression: %v", cerr)
	}
	q.XPath, q.expr = value, expr
	return nil
}

func formatList() string {
	names := make([]string, 0, 5)
	for _, f := range transform.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// canonical writes the query in one normal form: the parameters that may be
// given once in a fixed order, then the conditions in their order with op
// written only where it changes, names spelled out (desc → description),
// numbers without leading zeros, the default type left out. Requests that
// mean the same answer share it, which makes it the cache key and the
// feed's self URL.
func (q *readQuery) canonical() string {
	var v []string
	add := func(name, value string) { v = append(v, name+"="+url.QueryEscape(value)) }
	if q.Index > 0 {
		add("index", strconv.Itoa(q.Index))
	}
	if q.Max > 0 {
		add("max", strconv.Itoa(q.Max))
	}
	if q.XPath != "" {
		add("xpath", q.XPath)
	}
	if q.Category != "" {
		add("category", q.Category)
	}
	if q.Dups {
		add("dups", "include")
	}
	or := false
	for i, c := range q.Conditions {
		if i > 0 && c.Or != or {
			or = c.Or
			add("op", map[bool]string{true: "or", false: "and"}[or])
		}
		add(string(c.Field), c.Value)
	}
	if q.Format != transform.RSS2 {
		add("type", string(q.Format))
	}
	return strings.Join(v, "&")
}
