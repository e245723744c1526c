package dynamo

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Field is an item field that keyword conditions match.
type Field string

// The fields conditions can match. Description conditions match the
// description's plain text (Item.Text), not its markup.
const (
	FieldTitle       Field = "title"
	FieldLink        Field = "link"
	FieldDescription Field = "description"
)

// ParseField reads a field name; "desc" is an alias of "description".
func ParseField(s string) (Field, error) {
	switch s {
	case "title":
		return FieldTitle, nil
	case "link":
		return FieldLink, nil
	case "description", "desc":
		return FieldDescription, nil
	}
	return "", fmt.Errorf("%w field %q: want title, link or description", ErrInvalid, s)
}

// Condition is a case-insensitive substring match on one field. Conditions
// are read left to right: each joins the result of those before it with AND,
// or with OR when Or is set (op=and|or: docs/API.md "Parameters").
type Condition struct {
	Or    bool
	Field Field
	Value string
}

// ValidateConditions checks conditions that did not come through the
// grammar (QuerySyntax builds only valid ones): each must name a known
// field. Stores check what they are given with it before compiling it to
// SQL; how many they can compile is theirs to say.
func ValidateConditions(conds []Condition) error {
	for _, c := range conds {
		switch c.Field {
		case FieldTitle, FieldLink, FieldDescription:
		default:
			return Invalidf("condition on field %q: want title, link or description", c.Field)
		}
	}
	return nil
}

// Match reports whether the item satisfies the conditions, read left to right.
// No conditions match every item. It is the reference semantics that the
// stores' SQL must agree with.
func Match(conds []Condition, it *Item) bool {
	if len(conds) == 0 {
		return true
	}
	result := conds[0].matches(it)
	for _, c := range conds[1:] {
		if c.Or {
			result = result || c.matches(it)
		} else {
			result = result && c.matches(it)
		}
	}
	return result
}

func (c Condition) matches(it *Item) bool {
	var text string
	switch c.Field {
	case FieldTitle:
		text = it.Title
	case FieldLink:
		text = it.Link
	case FieldDescription:
		text = it.Text
	}
	return strings.Contains(FoldCase(text), FoldCase(c.Value))
}

// FoldCase maps s to the form in which case-insensitive matching compares
// strings: Unicode lower case.
func FoldCase(s string) string { return strings.ToLower(s) }

// The bounds of a query string (docs/API.md "Parameters" lists them). They keep
// every request's cost bounded whatever a client sends, and are the same for
// the API, the web search and `dynamo query`, so that a URL one accepts the
// others accept.
const (
	MaxQueryLength     = 4096    // bytes of a raw query string
	MaxQueryParams     = 64      // name=value pairs in one query string
	MaxItems           = 10000   // the largest max=n
	DefaultItems       = 100     // items answered when an item query gives no max
	MaxConditions      = 32      // title/link/description conditions in one query
	MaxConditionLength = 256     // bytes of one condition's value
	MaxVersionIndex    = 1 << 30 // the largest index=n
	MaxXPathLength     = 1024    // bytes of an xpath expression
	MaxPage            = 1 << 40 // the largest page=n
)

// PageCurrent is Query.Page for page=current, the subscription document of
// an archived feed (docs/API.md "Archived feeds").
const PageCurrent = -1

// ParamError is a mistake in one named value of a request: a query string's
// parameter, a source setting, a form field. Param names it ("query" for a
// query string as a whole); the message says what it accepts and is shown
// to the client as it is. It wraps ErrInvalid.
type ParamError struct {
	Param string
	Msg   string
}

func (e *ParamError) Error() string { return e.Msg }

// Unwrap makes a ParamError an ErrInvalid.
func (e *ParamError) Unwrap() error { return ErrInvalid }

// BadParam is a ParamError about param.
func BadParam(param, format string, args ...any) *ParamError {
	return &ParamError{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// QueryParam is one name=value pair of a query string, unescaped.
type QueryParam struct{ Name, Value string }

// SplitQuery splits a raw query string into its pairs, unescaped, in the
// order given: url.ParseQuery does not keep that order, which the grammar
// needs (op applies to the conditions after it). Empty pieces ("a=1&&b=2")
// count towards MaxQueryParams but are not pairs.
func SplitQuery(raw string) ([]QueryParam, error) {
	if len(raw) > MaxQueryLength {
		return nil, BadParam("query", "the query string must be at most %d bytes (it has %d)", MaxQueryLength, len(raw))
	}
	if strings.Count(raw, "&") >= MaxQueryParams {
		return nil, BadParam("query", "the query string must have at most %d parameters", MaxQueryParams)
	}
	var params []QueryParam
	for piece := range strings.SplitSeq(raw, "&") {
		if piece == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(piece, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			return nil, BadParam("query", "the query string has a malformed escape in %q", piece)
		}
		if name == "" {
			return nil, BadParam("query", "the query string has a value without a parameter name: %q", piece)
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return nil, BadParam(name, "%s has a malformed escape in %q", name, rawValue)
		}
		params = append(params, QueryParam{name, value})
	}
	return params, nil
}

// EncodeQuery writes pairs as a query string, in order.
func EncodeQuery(params []QueryParam) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.Name) + "=" + url.QueryEscape(p.Value))
	}
	return b.String()
}

// Query is a query string as the grammar reads it (docs/API.md "Parameters").
type Query struct {
	Index      int         // the version asked for, 1 = the newest; 0 when not given
	Max        int         // 0 when not given
	Conditions []Condition // in the order given; the first one's Or is false
	Category   string
	Dups       bool   // dups=include
	Type       string // the output format as given, "" when not given: the renderer knows the names
	XPath      string // as given, "" when not given: whoever evaluates it compiles it
	// Page asks for a document of the archived feed: n >= 1 for archive
	// page n, PageCurrent for the subscription document; 0 when not given.
	Page    int64
	Ignored []string // the names the grammar does not know, in order, each once: left out of the answer
	// Since and Until bound when the items were first seen: at or after
	// Since, before Until; zero when not given. A date (2026-11-20) is
	// that day in UTC: since from its start, until through its end.
	Since, Until time.Time
}

// Limit is the number of items to answer at most.
func (q *Query) Limit() int {
	if q.Max > 0 {
		return q.Max
	}
	return DefaultItems
}

// QuerySyntax is what one kind of request accepts.
type QuerySyntax struct {
	Name   string   // the request, named in messages: "/resources/{rssId}"
	Params []string // the parameter names it accepts, in the order messages list them
}

// Parse reads a raw query string (see SplitQuery and ParseParams).
func (s QuerySyntax) Parse(raw string) (*Query, error) {
	params, err := SplitQuery(raw)
	if err != nil {
		return nil, err
	}
	return s.ParseParams(params)
}

// grammarParams are the names the query grammar gives a meaning to. A name
// outside them (utm_source, fbclid, a reader's cache-buster _=…) means
// nothing to Dynamo: a query ignores it, so that a feed URL pasted from a
// newsletter or decorated by a reader still answers (docs/API.md "Query
// parameters"). A name inside them that a kind of request does not accept
// is a mistake and answers 400.
var grammarParams = []string{"index", "max", "title", "link", "description", "desc", "op", "xpath", "type", "category", "dups", "since", "until", "page"}

// ParseParams reads a query's pairs in order. Conditions (title, link,
// description or its alias desc) may repeat; op=and|or joins the conditions
// after it to those before, until the next op, and must be followed by one;
// every other parameter may be given once. A condition's value is trimmed,
// and an empty one is left out, so that a form's empty fields do not match
// everything. Names the grammar does not know are listed in Ignored and
// otherwise left alone.
func (s QuerySyntax) ParseParams(params []QueryParam) (*Query, error) {
	q := &Query{}
	seen := map[string]bool{}
	or := false
	opPending := "" // the value of an op that no condition has followed yet
	for _, p := range params {
		if !slices.Contains(grammarParams, p.Name) {
			// TITLE= or Max= is a mistyped grammar name, not a tag added
			// by a newsletter: ignoring it would answer as if no
			// condition or bound had been given.
			if lower := strings.ToLower(p.Name); slices.Contains(grammarParams, lower) {
				return nil, BadParam(p.Name, "parameter names are lower case: %s, not %s", lower, p.Name)
			}
			if !slices.Contains(q.Ignored, p.Name) {
				q.Ignored = append(q.Ignored, p.Name)
			}
			continue
		}
		if !slices.Contains(s.Params, p.Name) {
			return nil, BadParam(p.Name, "parameter %q has no meaning here: %s accepts %s", p.Name, s.Name, strings.Join(s.Params, ", "))
		}
		switch p.Name {
		case "title", "link", "description", "desc":
			opPending = ""
			if err := q.addCondition(p.Name, p.Value, or); err != nil {
				return nil, err
			}
			continue
		case "op":
			switch strings.ToLower(p.Value) {
			case "and":
				or = false
			case "or":
				or = true
			default:
				return nil, BadParam("op", "op must be and or or (got %q)", p.Value)
			}
			opPending = p.Value
			continue
		}
		if seen[p.Name] {
			return nil, BadParam(p.Name, "%s must be given at most once", p.Name)
		}
		seen[p.Name] = true
		if err := q.set(p.Name, p.Value); err != nil {
			return nil, err
		}
	}
	if opPending != "" {
		return nil, BadParam("op", "op=%s is followed by no condition: op joins the conditions after it to those before, as in title=a&op=or&title=b", opPending)
	}
	ranged := !q.Since.IsZero() || !q.Until.IsZero()
	if ranged && (q.Index > 0 || q.XPath != "") {
		return nil, BadParam("since", "since and until bound the archive's items (max=…), not one version (index=…) or an XPath selection")
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return nil, BadParam("until", "until must be after since")
	}
	return q, nil
}

// parseTimeBound reads since or until: a date (2026-11-20, a day in UTC;
// until means through its end) or an RFC 3339 time.
func parseTimeBound(name, value string) (time.Time, error) {
	value = strings.TrimSpace(value)
	if d, err := time.Parse(time.DateOnly, value); err == nil {
		if name == "until" {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	if t, err := time.Parse(time.RFC3339, value); err == nil && t.Year() >= 1 && t.Year() <= 9999 {
		return t.UTC(), nil
	}
	return time.Time{}, BadParam(name, "%s must be a date (2026-11-20) or an RFC 3339 time (2026-11-20T08:00:00Z), not %q", name, value)
}

// addCondition appends a keyword condition.
func (q *Query) addCondition(name, value string, or bool) error {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil
	}
	if len(value) > MaxConditionLength {
		return BadParam(name, "%s must be at most %d bytes", name, MaxConditionLength)
	}
	if len(q.Conditions) == MaxConditions {
		return BadParam(name, "at most %d conditions (title, link, description) may be given", MaxConditions)
	}
	field, err := ParseField(name)
	if err != nil { // cannot happen for the names ParseParams passes
		return BadParam(name, "%v", err)
	}
	q.Conditions = append(q.Conditions, Condition{Or: or && len(q.Conditions) > 0, Field: field, Value: value})
	return nil
}

// maxItemsWanted is what max= must be, for its error message: made once,
// not on every request that names max.
var maxItemsWanted = fmt.Sprintf("an integer from 1 to %d", MaxItems)

// set reads a parameter that may be given once.
func (q *Query) set(name, value string) error {
	var err error
	switch name {
	case "index":
		q.Index, err = parseBounded(name, value, 1, MaxVersionIndex, "an integer from 1 (the newest version) to the number of versions")
	case "max":
		q.Max, err = parseBounded(name, value, 1, MaxItems, maxItemsWanted)
	case "page":
		q.Page, err = parsePage(value)
	case "category":
		if len(value) > MaxCategoryLength {
			err = BadParam(name, "category must be at most %d bytes", MaxCategoryLength)
		}
		q.Category = value
	case "dups":
		switch strings.ToLower(value) {
		case "include":
			q.Dups = true
		case "exclude":
			q.Dups = false
		default:
			err = BadParam(name, "dups must be include (every copy of a story) or exclude (the default: each story once), not %q", value)
		}
	case "type":
		q.Type = value
	case "since":
		q.Since, err = parseTimeBound(name, value)
	case "until":
		q.Until, err = parseTimeBound(name, value)
	case "xpath":
		switch {
		case strings.TrimSpace(value) == "":
			err = BadParam(name, "xpath must be a non-empty XPath 1.0 expression selecting item elements or nodes inside them")
		case len(value) > MaxXPathLength:
			err = BadParam(name, "xpath must be at most %d bytes (it has %d)", MaxXPathLength, len(value))
		}
		q.XPath = value
	default: // a name a QuerySyntax accepts without the grammar knowing it
		err = BadParam(name, "parameter %q has no meaning in a query", name)
	}
	return err
}

// parsePage reads page=current or page=n.
func parsePage(value string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(value), "current") {
		return PageCurrent, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 || n > MaxPage {
		return 0, BadParam("page", "page must be current (the newest items) or an integer from 1 (the oldest archive page) (got %q)", value)
	}
	return n, nil
}

func parseBounded(name, value string, lo, hi int, want string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < lo || n > hi {
		return 0, BadParam(name, "%s must be %s (got %q)", name, want, value)
	}
	return n, nil
}

// ConditionParams writes conditions as the grammar reads them back, in
// order, with op only where the join changes. descName spells the
// description field: "description", or the alias "desc".
func ConditionParams(conds []Condition, descName string) []QueryParam {
	var out []QueryParam
	or := false
	for i, c := range conds {
		if i > 0 && c.Or != or {
			or = c.Or
			out = append(out, QueryParam{"op", map[bool]string{true: "or", false: "and"}[or]})
		}
		name := string(c.Field)
		if c.Field == FieldDescription {
			name = descName
		}
		out = append(out, QueryParam{name, c.Value})
	}
	return out
}
