package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// Bounds on a search, the same as the REST interface's (docs/API.md), so
// that the URL shown for a search is one the API accepts.
const (
	maxSearchQuery     = 4096
	maxSearchParams    = 64
	maxConditions      = 32
	maxConditionLength = 256
	defaultSearchMax   = 100
	maxSearchMax       = 10000
)

// searchQuery is a search as the page's URL states it.
type searchQuery struct {
	ID         string
	Conditions []dynamo.Condition
	Max        int
	// fromForm is set when the query came from the search form's rows
	// (field=…&value=…), which the page answers by redirecting to the
	// same search written as the REST interface writes it.
	fromForm bool
}

// parseSearch reads a search from a raw query string, keeping the order of
// its pairs: op joins the conditions that follow it to those before (SPEC
// §5). It takes the REST interface's parameters (title, link, description
// or desc, op, max) and the form's rows: an optional op, then field and
// value, repeated.
func parseSearch(raw string) (searchQuery, error) {
	q := searchQuery{Max: defaultSearchMax}
	if len(raw) > maxSearchQuery {
		return q, fmt.Errorf("the query must be at most %d bytes", maxSearchQuery)
	}
	pieces := strings.Split(raw, "&")
	if len(pieces) > maxSearchParams {
		return q, fmt.Errorf("the query must have at most %d parameters", maxSearchParams)
	}
	or, opPending, field := false, "", dynamo.FieldTitle
	for _, piece := range pieces {
		if piece == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(piece, "=")
		name, err1 := url.QueryUnescape(rawName)
		value, err2 := url.QueryUnescape(rawValue)
		if err := errors.Join(err1, err2); err != nil {
			return q, fmt.Errorf("the query has a malformed escape in %q", piece)
		}
		switch name {
		case "id":
			q.ID = value
		case "max":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > maxSearchMax {
				return q, fmt.Errorf("max must be an integer from 1 to %d", maxSearchMax)
			}
			q.Max = n
		case "op":
			switch strings.ToLower(value) {
			case "and":
				or = false
			case "or":
				or = true
			default:
				return q, fmt.Errorf("op must be and or or (got %q)", value)
			}
			opPending = value
		case "title", "link", "description", "desc":
			f, _ := dynamo.ParseField(name) // the names above are fields
			opPending = ""
			if err := q.add(f, value, or); err != nil {
				return q, err
			}
		case "field":
			f, err := dynamo.ParseField(value)
			if err != nil {
				return q, fmt.Errorf("field must be title, link or description (got %q)", value)
			}
			field, q.fromForm = f, true
		case "value":
			opPending, q.fromForm = "", true
			if err := q.add(field, value, or); err != nil {
				return q, err
			}
		default:
			return q, fmt.Errorf("unknown parameter %q: a search takes id, title, link, description (or desc), op and max", name)
		}
	}
	if opPending != "" && !q.fromForm {
		return q, fmt.Errorf("op=%s is followed by no condition: op joins the conditions after it to those before, as in title=a&op=or&title=b", opPending)
	}
	return q, nil
}

// add appends a condition; an empty value is left out, so that the form's
// empty rows do not match everything.
func (q *searchQuery) add(f dynamo.Field, value string, or bool) error {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil
	}
	if len(value) > maxConditionLength {
		return fmt.Errorf("a condition's words must be at most %d bytes", maxConditionLength)
	}
	if len(q.Conditions) == maxConditions {
		return fmt.Errorf("at most %d conditions may be given", maxConditions)
	}
	q.Conditions = append(q.Conditions, dynamo.Condition{Or: or && len(q.Conditions) > 0, Field: f, Value: value})
	return nil
}

// conditionQuery writes the conditions as the REST interface reads them,
// with an op only where the join changes.
func (q *searchQuery) conditionQuery() string {
	var b strings.Builder
	or := false
	for i, c := range q.Conditions {
		if i > 0 && c.Or != or {
			or = c.Or
			b.WriteString("&op=" + map[bool]string{true: "or", false: "and"}[or])
		}
		name := string(c.Field)
		if c.Field == dynamo.FieldDescription {
			name = "desc"
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name + "=" + url.QueryEscape(c.Value))
	}
	return b.String()
}

// pageURL is the search page's own URL for q.
func (q *searchQuery) pageURL() string {
	s := Prefix + "search?id=" + url.QueryEscape(q.ID)
	if c := q.conditionQuery(); c != "" {
		s += "&" + c
	}
	if q.Max != defaultSearchMax {
		s += "&max=" + strconv.Itoa(q.Max)
	}
	return s
}

// restURL is the feed URL that answers the same search in format typ.
func (q *searchQuery) restURL(typ string) string {
	s := "/resources/" + url.PathEscape(q.ID) + "?"
	if c := q.conditionQuery(); c != "" {
		s += c + "&"
	}
	return s + "max=" + strconv.Itoa(q.Max) + "&type=" + typ
}

// conditionRow is one row of the search form.
type conditionRow struct {
	N     int
	Or    bool
	Field string
	Value string
}

type searchData struct {
	Collections []dynamo.Source
	Query       searchQuery
	Rows        []conditionRow
	Searched    bool
	Error       string
	Results     []dynamo.ArchivedItem
	REST        string
	Feeds       []subscribeLink
}

// searchPage shows the search form and, for a collection and conditions,
// the matching archive items and the feed URL that answers the same.
func (h *handler) searchPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	cols, err := h.cfg.Store.Collections(ctx)
	if err != nil {
		h.storeFailed(w, r, "list collections", err)
		return
	}
	d := searchData{Collections: cols}
	q, err := parseSearch(r.URL.RawQuery)
	d.Query = q
	status := http.StatusOK
	switch {
	case err != nil:
		d.Error, status = err.Error(), http.StatusBadRequest
	case q.fromForm:
		http.Redirect(w, r, q.pageURL(), http.StatusSeeOther)
		return
	case q.ID != "":
		d.Searched = true
		d.Results, err = h.cfg.Store.Items(ctx, dynamo.ItemQuery{SourceID: q.ID, Conditions: q.Conditions, Max: q.Max})
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			d.Error, status = fmt.Sprintf("There is no collection %q.", q.ID), http.StatusNotFound
		case errors.Is(err, dynamo.ErrInvalid):
			d.Error, status = err.Error(), http.StatusBadRequest
		case err != nil:
			h.storeFailed(w, r, "search", err)
			return
		default:
			d.REST = q.restURL("rss2")
			for _, f := range feedFormats() {
				d.Feeds = append(d.Feeds, subscribeLink{Label: formatLabel(f), URL: q.restURL(string(f))})
			}
		}
	}
	d.Rows = formRows(q.Conditions)
	h.render(w, r, status, "search.html", view{Title: "Search", Section: "search", Data: d})
}

// formRows fills the form with the search's conditions and two empty rows
// for more (there is no script to add rows; searching adds two more).
func formRows(conds []dynamo.Condition) []conditionRow {
	var rows []conditionRow
	for i, c := range conds {
		rows = append(rows, conditionRow{N: i + 1, Or: c.Or, Field: string(c.Field), Value: c.Value})
	}
	for (len(rows) < len(conds)+2 || len(rows) < 3) && len(rows) < maxConditions {
		rows = append(rows, conditionRow{N: len(rows) + 1, Field: string(dynamo.FieldTitle)})
	}
	return rows
}
