package api

import (
	"strconv"
	"strings"

	"github.com/antchfx/xpath"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
	"time"
)

// The read endpoints and the parameters each accepts. The grammar and its
// limits are the domain's (dynamo.QuerySyntax), shared with the web search
// and `dynamo query`; docs/API.md lists them.
var (
	collectionsEndpoint = dynamo.QuerySyntax{Name: "/resources", Params: []string{"type"}}
	resourceEndpoint    = dynamo.QuerySyntax{Name: "/resources/{rssId}", Params: []string{"index", "max", "title", "link", "description", "desc", "op", "since", "until", "xpath", "page", "type"}}
	aggregateEndpoint   = dynamo.QuerySyntax{Name: "/aggregate", Params: []string{"max", "category", "title", "link", "description", "desc", "op", "since", "until", "dups", "page", "type"}}
)

// badParam is a client error in the query string, naming the parameter.
var badParam = dynamo.BadParam

// readQuery is a read request's query string as the grammar reads it, with
// the output format and the XPath expression it names checked.
type readQuery struct {
	dynamo.Query
	Format transform.Format
	expr   *xpath.Expr // XPath compiled
}

// itemQuery reports whether the request asks for items rather than the
// list of a collection's versions.
func (q *readQuery) itemQuery() bool {
	return q.Index > 0 || q.Max > 0 || len(q.Conditions) > 0 || q.XPath != "" || q.ranged() || q.Page != 0
}

// ranged reports whether the query bounds when items were first seen.
func (q *readQuery) ranged() bool { return !q.Since.IsZero() || !q.Until.IsZero() }

// parseQuery reads a raw query string for endpoint e.
func parseQuery(raw string, e dynamo.QuerySyntax) (*readQuery, error) {
	dq, err := e.Parse(raw)
	if err != nil {
		return nil, err
	}
	q := &readQuery{Query: *dq}
	if q.Page != 0 && (q.Index > 0 || q.Max > 0 || q.ranged()) {
		return nil, badParam("page", "page reads a document of the archived feed: it goes with title, link, description, op, xpath, category, dups and type, not with index, max, since or until")
	}
	if q.Format, err = transform.ParseFormat(q.Type); err != nil {
		return nil, badParam("type", "type must be one of %s (got %q)", formatList(), q.Type)
	}
	if q.XPath != "" {
		if q.expr, err = compileXPath(q.XPath); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// compileXPath compiles an expression. The library is not written for
// hostile input, so a panic while compiling is a bad expression like any
// other.
func compileXPath(value string) (expr *xpath.Expr, err error) {
	defer func() {
		if p := recover(); p != nil {
			expr, err = nil, badParam("xpath", "xpath is not a valid XPath 1.0 expression: %v", p)
		}
	}()
	if err := xpathBrackets(value); err != nil {
		return nil, err
	}
	expr, err = xpath.Compile(value)
	if err != nil {
		msg := err.Error()
		if msg == xpathNoStepMessage {
			msg = "a step has no name, * or node test (such as //item/title), or an operator has nothing after it"
		}
		return nil, badParam("xpath", "xpath is not a valid XPath 1.0 expression: %s", msg)
	}
	return expr, nil
}

// xpathNoStepMessage is what the XPath library says of any token it meets
// where a location step should be, a message that misleads when the
// expression is merely cut short ("///", "//item[title=").
const xpathNoStepMessage = "expression must evaluate to a node-set"

// xpathBrackets refuses an expression whose brackets, parentheses or
// string literals do not pair up. The XPath library stops at a token it
// does not expect and compiles what came before it, so "//item[1]]" would
// run silently as "//item[1]", and an expression cut short gets the
// library's message about node-sets; this names the character instead.
func xpathBrackets(expr string) error {
	var open []int // byte offsets of the unclosed '[' and '('
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; c {
		case '\'', '"':
			end := strings.IndexByte(expr[i+1:], c)
			if end < 0 {
				return badParam("xpath", "xpath is not a valid XPath 1.0 expression: the string opened by %c at byte %d is never closed", c, i+1)
			}
			i += end + 1
		case '[', '(':
			open = append(open, i)
		case ']', ')':
			want := byte('[')
			if c == ')' {
				want = '('
			}
			if len(open) == 0 || expr[open[len(open)-1]] != want {
				return badParam("xpath", "xpath is not a valid XPath 1.0 expression: the %c at byte %d closes no %c", c, i+1, want)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		at := open[len(open)-1]
		return badParam("xpath", "xpath is not a valid XPath 1.0 expression: the %c at byte %d is never closed", expr[at], at+1)
	}
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
	var params []dynamo.QueryParam
	add := func(name, value string) { params = append(params, dynamo.QueryParam{Name: name, Value: value}) }
	if q.Index > 0 {
		add("index", strconv.Itoa(q.Index))
	}
	if q.Max > 0 {
		add("max", strconv.Itoa(q.Max))
	}
	if q.Page != 0 {
		add("page", pageParam(q.Page))
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
	if !q.Since.IsZero() {
		add("since", q.Since.UTC().Format(time.RFC3339))
	}
	if !q.Until.IsZero() {
		add("until", q.Until.UTC().Format(time.RFC3339))
	}
	params = append(params, dynamo.ConditionParams(q.Conditions, "description")...)
	if q.Format != transform.RSS2 {
		add("type", string(q.Format))
	}
	return dynamo.EncodeQuery(params)
}
