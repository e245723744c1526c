package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/dynamo-feeds/dynamo"
)

// searchSyntax is what a search takes: the REST interface's grammar
// (dynamo.QuerySyntax, with its limits), for its conditions and max.
var searchSyntax = dynamo.QuerySyntax{Name: "a search", Params: []string{"title", "link", "description", "desc", "op", "max"}}

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
	return q, nil
}

// conditionQuery writes the conditions as the REST interface reads them,
// with an op only where the join changes.
func (q *searchQuery) conditionQuery() string {
	return dynamo.EncodeQuery(dynamo.ConditionParams(q.Conditions, "desc"))
}

// pageURL is the search page's own URL for q.
func (q *searchQuery) pageURL() string {
	s := Prefix + "search?id=" + url.QueryEscape(q.ID)
	if c := q.conditionQuery(); c != "" {
		s += "&" + c
	}
	if q.Max != dynamo.DefaultItems {
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
func (h *Server) searchPage(w http.ResponseWriter, r *http.Request) {
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
	for (len(rows) < len(conds)+2 || len(rows) < 3) && len(rows) < dynamo.MaxConditions {
		rows = append(rows, conditionRow{N: len(rows) + 1, Field: string(dynamo.FieldTitle)})
	}
	return rows
}
