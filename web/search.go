package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// searchSyntax is what a search takes: the REST interface's grammar
// (dynamo.QuerySyntax, with its limits), for its conditions and max.
var searchSyntax = dynamo.QuerySyntax{Name: "a search", Params: []string{"title", "link", "description", "desc", "op", "since", "until", "max"}}

// searchQuery is a search as the page's URL states it.
type searchQuery struct {
	ID         string // one collection; "" searches every source
	Category   string // with no ID: the sources of one category; "" for all
	Conditions []dynamo.Condition
	Max        int
	// Since and Until bound when the items were first seen, as given (a
	// date or an RFC 3339 time, read by the grammar); "" for none.
	Since, Until string
	since, until time.Time
	// fromForm is set when the query came from the search form's rows
	// (field=…&value=…), which the page answers by redirecting to the
	// same search written as the REST interface writes it.
	fromForm bool
}

// parseSearch reads a search from a raw query string: the collection's id
// and the REST interface's parameters (title, link, description or desc,
// op, max), read by its grammar, or the form's rows (an optional op, then
// field and value, repeated), which stand for the same conditions.
func parseSearch(raw string) (searchQuery, error) {
	q := searchQuery{Max: dynamo.DefaultItems}
	params, err := dynamo.SplitQuery(raw)
	if err != nil {
		return q, err
	}
	rest := params[:0]
	field := string(dynamo.FieldTitle)
	for _, p := range params {
		switch p.Name {
		case "id":
			q.ID = p.Value
		case "category":
			q.Category = p.Value
		case "since", "until":
			if v := strings.TrimSpace(p.Value); v != "" { // a form's empty date is no bound
				rest = append(rest, dynamo.QueryParam{Name: p.Name, Value: v})
				if p.Name == "since" {
					q.Since = v
				} else {
					q.Until = v
				}
			}
		case "field":
			f, err := dynamo.ParseField(p.Value)
			if err != nil {
				return q, fmt.Errorf("field must be title, link or description (got %q)", p.Value)
			}
			field, q.fromForm = string(f), true
		case "value":
			rest, q.fromForm = append(rest, dynamo.QueryParam{Name: field, Value: p.Value}), true
		default:
			rest = append(rest, p)
		}
	}
	parsed, err := searchSyntax.ParseParams(rest)
	if err != nil {
		return q, err
	}
	q.Conditions, q.Max = parsed.Conditions, parsed.Limit()
	q.since, q.until = parsed.Since, parsed.Until
	if q.ID != "" {
		q.Category = "" // one collection is one collection, whatever its category
	}
	return q, nil
}

// conditionQuery writes the conditions as the REST interface reads them,
// with an op only where the join changes.
func (q *searchQuery) conditionQuery() string {
	params := dynamo.ConditionParams(q.Conditions, "desc")
	if q.Since != "" {
		params = append(params, dynamo.QueryParam{Name: "since", Value: q.Since})
	}
	if q.Until != "" {
		params = append(params, dynamo.QueryParam{Name: "until", Value: q.Until})
	}
	return dynamo.EncodeQuery(params)
}

// pageURL is the search page's own URL for q.
func (q *searchQuery) pageURL() string {
	parts := []string{}
	switch {
	case q.ID != "":
		parts = append(parts, "id="+url.QueryEscape(q.ID))
	case q.Category != "":
		parts = append(parts, "category="+url.QueryEscape(q.Category))
	}
	if c := q.conditionQuery(); c != "" {
		parts = append(parts, c)
	}
	if q.Max != dynamo.DefaultItems {
		parts = append(parts, "max="+strconv.Itoa(q.Max))
	}
	if len(parts) == 0 {
		parts = append(parts, "max="+strconv.Itoa(q.Max))
	}
	return Prefix + "search?" + strings.Join(parts, "&")
}

// restURL is the feed URL that answers the same search in format typ: the
// collection's archive, or the aggregate of every source (of a category).
func (q *searchQuery) restURL(typ string) string {
	s := "/aggregate?"
	if q.ID != "" {
		s = "/resources/" + url.PathEscape(q.ID) + "?"
	} else if q.Category != "" {
		s += "category=" + url.QueryEscape(q.Category) + "&"
	}
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
	Categories  []string
	Query       searchQuery
	Rows        []conditionRow
	Searched    bool
	Error       string
	Results     []dynamo.ArchivedItem
	Everywhere  bool // the search ran across sources
	REST        string
	Feeds       []subscribeLink
}

// searchPage shows the search form and, for a collection and conditions,
// the matching archive items and the feed URL that answers the same.
func (h *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	cols, err := h.cfg.Store.Collections(ctx)
	if err != nil {
		h.storeFailed(w, r, "list collections", err)
		return
	}
	d := searchData{Collections: cols, Categories: categoriesOf(cols)}
	q, err := parseSearch(r.URL.RawQuery)
	d.Query = q
	status := http.StatusOK
	var alternates []alternate
	switch {
	case err != nil:
		d.Error, status = err.Error(), http.StatusBadRequest
	case q.fromForm:
		http.Redirect(w, r, q.pageURL(), http.StatusSeeOther)
		return
	case r.URL.RawQuery != "":
		release, busy := h.cfg.Heavy.Enter(ctx)
		if busy != nil {
			w.Header().Set("Retry-After", strconv.Itoa(h.cfg.Heavy.RetryAfter()))
			h.fail(w, r, http.StatusServiceUnavailable, "Too many searches and other expensive reads are running: try again in a moment.")
			return
		}
		d.Searched = true
		if q.ID != "" {
			d.Results, err = h.cfg.Store.Items(ctx, dynamo.ItemQuery{SourceID: q.ID, Conditions: q.Conditions, Max: q.Max, Since: q.since, Until: q.until})
		} else {
			d.Everywhere = true
			var found []dynamo.AggregatedItem
			found, err = h.cfg.Store.Aggregate(ctx, dynamo.AggregateQuery{Category: q.Category, Conditions: q.Conditions, Max: q.Max, Since: q.since, Until: q.until})
			for _, it := range found {
				d.Results = append(d.Results, it.ArchivedItem)
			}
		}
		release() // the slot is the query's, not the page's writing
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
			alternates = feedAlternates("This search", q.restURL)
		}
	}
	d.Rows = formRows(q.Conditions)
	h.render(w, r, status, "search.html", view{Title: "Search", Section: "search", Data: d, Alternates: alternates})
}

// categoriesOf lists the collections' categories, sorted, once each.
func categoriesOf(cols []dynamo.Source) []string {
	var out []string
	for _, c := range cols {
		if c.Category != "" && !slices.Contains(out, c.Category) {
			out = append(out, c.Category)
		}
	}
	slices.Sort(out)
	return out
}

// formRows fills the form with the search's conditions and two empty rows
// for more (there is no script to add rows; searching adds two more).
func formRows(conds []dynamo.Condition) []conditionRow {
	var rows []conditionRow
	for i, c := range conds {
		rows = append(rows, conditionRow{N: i + 1, Or: c.Or, Field: string(c.Field), Value: c.Value})
	}
	for (len(rows) < len(conds)+2 || len(rows) < 3) && len(rows) < dynamo.MaxConditions {
		rows = append(rows, conditionRow{N: len(rows) + 1, Field: string(dynamo.FieldTitle)})
	}
	return rows
}
