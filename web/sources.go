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
	"github.com/dynamo-feeds/dynamo/auth"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/transform"
)

// sourceRow is one source as the pages show it.
type sourceRow struct {
	dynamo.Source
	Status string // active, paused, polling, failing or removed
	Policy string // the policy it follows, with "(global)" when inherited
}

// status names a source's state in one word.
func status(s *dynamo.Source, removed bool, now time.Time) string {
	switch {
	case removed:
		return "removed"
	case s.Paused:
		return "paused"
	case s.Summary.LeaseOwner != "" && s.Summary.LeaseExpires.After(now):
		return "polling"
	case s.State.LastStatus == dynamo.StatusError:
		return "failing"
	}
	return "active"
}

func (h *Server) row(s dynamo.Source, removed bool, now time.Time, global string) sourceRow {
	p := s.Policy
	if p == "" {
		p = "global"
		if global != "" {
			p = global + " (global)"
		}
	}
	return sourceRow{Source: s, Status: status(&s, removed, now), Policy: p}
}

// globalPolicy names the policy that sources without their own follow:
// this process's poller's, or in a process without one (--role api) the
// one the pollers share through the store; "" when none was ever set
// there (the pollers then follow their --policy flag, unknown here).
func (h *Server) globalPolicy(ctx context.Context) string {
	if h.cfg.Poller != nil {
		return h.cfg.Poller.Policy()
	}
	name, err := h.cfg.Store.Setting(ctx, dynamo.PolicySetting)
	if err != nil {
		if !errors.Is(err, dynamo.ErrNotFound) {
			h.log.Warn("web: read the global policy", "err", err)
		}
		return ""
	}
	return name
}

// policies lists the names a source may follow.
func (h *Server) policies() []string { return h.cfg.Policies }

type sourcesData struct {
	Sources []sourceRow    // the rows of the page shown
	Filter  string         // the status shown, "" for every source
	Filters []statusFilter // the links that narrow the list
	Total   int            // sources before filtering by status
	// Search narrows the list to the sources whose id, title or URL
	// contains it, ignoring case (?q=).
	Search     string
	Unsearched string // the list without the search
	// Category, when set, narrows the list to one category ("" for the
	// sources in none), whose aggregate feeds are CategoryFeeds.
	Category      *string
	CategoryFeeds []subscribeLink
	Pager         pager
	Polling       bool // a poller runs in this process
	GlobalPolicy  string
	Policies      []string
	NewSource     []settingField // the form to add a source
}

// pager is where the page shown sits in the list (docs/WEB.md "The
// sources list").
type pager struct {
	Listed      int    // sources listed, over every page
	Page, Pages int    // the page shown, from 1, and how many there are
	First, Last int    // the rows shown, numbered from 1 over the list; 0 when none
	Prev, Next  string // the pages before and after, "" for none
	LastURL     string // the last page, when the one asked for is past it
}

// statusFilter is one link of the sources list's filter.
type statusFilter struct {
	Status  string // "" for every source
	Count   int
	Current bool
	URL     string // the list so narrowed, in the category shown if any
}

// statusFilters are the statuses the sources list can be narrowed to
// (?status=failing), in the order its links show them.
var statusFilters = []string{"", "failing", "paused", "polling", "active", "removed"}

// pageSize is how many sources a page of the sources list shows: a page
// of 100,000 sources would be 171 MB of HTML.
const pageSize = 100

// listView is what the sources list shows: the sources narrowed by
// category, search and status, and the page of them.
type listView struct {
	status   string  // "" for every status
	category *string // nil for every category
	search   string  // "" for every source
	page     int     // from 1
}

// url is the list's address showing page.
func (l listView) url(page int) string {
	v := url.Values{}
	if l.status != "" {
		v.Set("status", l.status)
	}
	if l.category != nil {
		v.Set("category", *l.category)
	}
	if l.search != "" {
		v.Set("q", l.search)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return Prefix
	}
	return Prefix + "?" + v.Encode()
}

// matches reports whether a source is in the list's category and matches
// its search (lower-cased): its id, its title as shown or its URL
// contains it, ignoring case.
func (l listView) matches(row *sourceRow, search string) bool {
	if l.category != nil && row.Category != *l.category {
		return false
	}
	return search == "" || strings.Contains(strings.ToLower(row.ID), search) ||
		strings.Contains(strings.ToLower(row.DisplayTitle()), search) ||
		strings.Contains(strings.ToLower(row.URL), search)
}

// sourcesPage lists the collections, a page of pageSize at a time, ordered
// by id: active sources and removed ones whose archive is kept. ?status=
// narrows the list to one status, ?category= to one category, ?q= to the
// sources whose id, title or URL contains the words, and ?page= picks the
// page. The sources are walked, not held: the page costs its rows and
// the ids of the active sources, whatever their number. The walk is
// bounded by the request, as the API's listings are, not by a page's
// timeout: walking 100,000 sources twice takes longer than that on a
// loaded machine.
func (h *Server) sourcesPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	l := listView{status: q.Get("status"), search: strings.TrimSpace(q.Get("q")), page: 1}
	if !slices.Contains(statusFilters, l.status) {
		l.status = ""
	}
	if c, ok := q["category"]; ok {
		l.category = &c[0]
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 {
		l.page = n
	}
	d := sourcesData{Polling: h.cfg.Poller != nil, Policies: h.policies(), GlobalPolicy: h.globalPolicy(ctx),
		NewSource: h.settingFields(dynamo.NewSource("", ""), true), Filter: l.status, Search: l.search, Category: l.category}
	if l.category != nil {
		d.CategoryFeeds = categoryFeeds(*l.category)
	}
	search, skip := strings.ToLower(l.search), (l.page-1)*pageSize
	counts := map[string]int{}
	err := h.eachRow(ctx, d.GlobalPolicy, func(row sourceRow) error {
		if !l.matches(&row, search) {
			return nil
		}
		counts[row.Status]++
		counts[""]++
		if l.status != "" && row.Status != l.status {
			return nil
		}
		if n := counts[l.status]; n > skip && n <= skip+pageSize {
			d.Sources = append(d.Sources, row)
		}
		return nil
	})
	if err != nil {
		h.storeFailed(w, r, "list sources", err)
		return
	}
	d.Total = counts[""]
	d.Unsearched = listView{status: l.status, category: l.category}.url(1)
	for _, f := range statusFilters {
		if counts[f] > 0 || f == "" || f == l.status {
			d.Filters = append(d.Filters, statusFilter{Status: f, Count: counts[f], Current: f == l.status,
				URL: listView{status: f, category: l.category, search: l.search}.url(1)})
		}
	}
	p := pager{Listed: counts[l.status], Page: l.page, Pages: (counts[l.status] + pageSize - 1) / pageSize}
	if len(d.Sources) > 0 {
		p.First, p.Last = skip+1, skip+len(d.Sources)
	}
	if l.page > 1 && l.page <= p.Pages {
		p.Prev = l.url(l.page - 1)
	}
	if l.page < p.Pages {
		p.Next = l.url(l.page + 1)
	}
	if l.page > p.Pages && p.Pages > 0 {
		p.LastURL = l.url(p.Pages)
	}
	d.Pager = p
	v := view{Title: "Sources", Section: "sources", Data: d,
		Alternates: feedAlternates("Every source", func(typ string) string { return "/aggregate?max=50&type=" + typ })}
	if l.category != nil {
		c := *l.category
		v.Alternates = feedAlternates("Category "+c, func(typ string) string {
			return "/aggregate?" + url.Values{"category": {c}, "max": {"50"}, "type": {typ}}.Encode()
		})
	}
	h.render(w, r, http.StatusOK, "sources.html", v)
}

// eachRow hands fn every collection, ordered by id: the active sources and
// the removed ones whose archive is kept, read as it goes. It first walks
// the active sources for their ids (the rows do not say whether a source
// was removed), then every collection: a source created between the two
// walks is not taken for a removed one, as it was created after the first
// began.
func (h *Server) eachRow(ctx context.Context, global string, fn func(sourceRow) error) error {
	start := time.Now()
	active := map[string]struct{}{}
	err := h.cfg.Store.EachSource(ctx, false, func(s *dynamo.Source) error {
		active[s.ID] = struct{}{}
		return nil
	})
	if err != nil {
		return err
	}
	now := time.Now()
	return h.cfg.Store.EachSource(ctx, true, func(s *dynamo.Source) error {
		_, isActive := active[s.ID]
		return fn(h.row(*s, !isActive && s.CreatedAt.Before(start), now, global))
	})
}

// subscribeLink is one feed URL of a collection in one format.
type subscribeLink struct {
	Label string
	URL   string
}

// subscribeRow is one kind of feed of a collection, in every format.
type subscribeRow struct {
	What  string
	Links []subscribeLink
}

type sourceData struct {
	Source    sourceRow
	Subscribe []subscribeRow
	Versions  []versionView
	Items     []dynamo.ArchivedItem
	ItemsMax  int
	MoreItems bool // the archive holds more than ItemsMax items
	Rate      chart
	Polls     chart
	PollStrip strip
	History   []dynamo.PollLogEntry // the newest polls, for the table
	Streak    failureStreak
	Polling   bool
	Policies  []string
	Settings  []settingField // the form that changes the source
	// WebSub is the source's subscription to its hub, nil for none
	// (docs/WEBSUB.md).
	WebSub *dynamo.Subscription
}

// defaultItems and maxItems bound the archive shown on a source's page.
const (
	defaultItems = 50
	maxItems     = 1000
	pollsShown   = 100
	pollsListed  = 20 // polls in the history table
)

// failureStreak is the run of failed polls a source is in.
type failureStreak struct {
	Polls int       // failed polls in a row, the newest included; 0 when the last poll worked
	Since time.Time // when the first of them started, if the kept log reaches back that far
	Next  time.Time // the next attempt
}

// streak reads a source's current failure streak from its state (the count
// the poller's back-off uses) and its poll log (when the streak began).
func streak(src *dynamo.Source, polls []dynamo.PollLogEntry) failureStreak {
	s := failureStreak{Polls: src.State.Errors, Next: src.State.NextPoll}
	if s.Polls == 0 {
		return s
	}
	n := 0
	for _, p := range polls {
		if p.Status != dynamo.StatusError {
			break
		}
		n++
		if n == s.Polls {
			s.Since = p.At
			break
		}
	}
	return s
}

// sourcePage shows one collection: its state, how to subscribe, charts,
// the version timeline and the archive.
func (h *Server) sourcePage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	id := r.PathValue("id")
	src, err := h.cfg.Store.Source(ctx, id)
	if errors.Is(err, dynamo.ErrNotFound) {
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no source %q.", id))
		return
	}
	if err != nil {
		h.storeFailed(w, r, "read source", err)
		return
	}
	limit := defaultItems
	if n, err := strconv.Atoi(r.URL.Query().Get("items")); err == nil && n > 0 {
		limit = min(n, maxItems)
	}
	versions, err := h.cfg.Store.Versions(ctx, id)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		h.storeFailed(w, r, "list versions", err)
		return
	}
	// One item more than shown tells whether there are more.
	items, err := h.cfg.Store.Items(ctx, dynamo.ItemQuery{SourceID: id, Max: limit + 1})
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		h.storeFailed(w, r, "list items", err)
		return
	}
	polls, err := h.cfg.Store.Polls(ctx, id, pollsShown)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		h.storeFailed(w, r, "list polls", err)
		return
	}
	timeline, err := h.timeline(ctx, id, versions)
	if err != nil {
		h.storeFailed(w, r, "read the items of recent versions", err)
		return
	}
	rate, err := h.rateChart(ctx, src, versions)
	if err != nil {
		h.storeFailed(w, r, "read items for the rate chart", err)
		return
	}
	sub, err := h.cfg.Store.Subscription(ctx, id)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		h.storeFailed(w, r, "read the websub subscription", err)
		return
	}
	d := sourceData{
		WebSub:    sub,
		Source:    h.row(*src, false, time.Now(), h.globalPolicy(ctx)),
		Subscribe: subscribeLinks(id),
		Versions:  timeline,
		Items:     items[:min(len(items), limit)],
		ItemsMax:  limit,
		MoreItems: len(items) > limit,
		Rate:      rate,
		Polls:     pollsChart(polls),
		PollStrip: pollStrip(polls),
		History:   polls[:min(len(polls), pollsListed)],
		Streak:    streak(src, polls),
		Polling:   h.cfg.Poller != nil,
		Policies:  h.policies(),
		Settings:  h.settingFields(src, false),
	}
	title := src.DisplayTitle()
	h.render(w, r, http.StatusOK, "source.html", view{Title: title, Section: "sources", Data: d,
		Alternates: feedAlternates(title, func(typ string) string {
			return "/resources/" + url.PathEscape(id) + "?max=50&type=" + typ
		})})
}

// versionView is one version in the timeline, with the items it added and
// removed when they were looked up (for the newest versions only).
type versionView struct {
	dynamo.Version
	Delta        bool // AddedItems and RemovedItems were looked up
	AddedItems   []deltaItem
	RemovedItems []deltaItem
	MoreAdded    int // added items not listed
	MoreRemoved  int
}

// deltaItem is an item named in the timeline.
type deltaItem struct {
	Title, Link string
}

// Bounds of the timeline's detail: the newest changesShown versions list
// the items they added and removed (each costs one read of a version's
// items), at most deltaShown of each.
const (
	changesShown = 10
	deltaShown   = 8
)

// timeline lists the versions, newest first, and for the newest ones the
// items each added to and removed from the version before it.
func (h *Server) timeline(ctx context.Context, id string, versions []dynamo.Version) ([]versionView, error) {
	out := make([]versionView, len(versions))
	read := map[int][]dynamo.ArchivedItem{}
	itemsOf := func(index int) ([]dynamo.ArchivedItem, error) {
		if items, ok := read[index]; ok {
			return items, nil
		}
		items, err := h.cfg.Store.Items(ctx, dynamo.ItemQuery{SourceID: id, Version: index})
		if err != nil {
			return nil, fmt.Errorf("items of version %d of %s: %w", index, id, err)
		}
		read[index] = items
		return items, nil
	}
	for i, v := range versions {
		out[i] = versionView{Version: v}
		if i >= changesShown || i+1 >= len(versions) {
			continue
		}
		cur, err := itemsOf(v.Index)
		if err != nil {
			return nil, err
		}
		prev, err := itemsOf(versions[i+1].Index)
		if err != nil {
			return nil, err
		}
		out[i].Delta = true
		out[i].AddedItems, out[i].MoreAdded = missingFrom(cur, prev)
		out[i].RemovedItems, out[i].MoreRemoved = missingFrom(prev, cur)
	}
	return out, nil
}

// missingFrom names the items of a that b lacks, in a's order: at most
// deltaShown of them, and how many more there are.
func missingFrom(a, b []dynamo.ArchivedItem) ([]deltaItem, int) {
	in := make(map[string]bool, len(b))
	for _, it := range b {
		in[it.Item.ID] = true
	}
	var named []deltaItem
	more := 0
	for _, it := range a {
		if in[it.Item.ID] {
			continue
		}
		if len(named) == deltaShown {
			more++
			continue
		}
		title := it.Item.Title
		if title == "" {
			title = dynamo.TitleFromText(plain(it.Item))
		}
		if title == "" {
			title = "(untitled)"
		}
		named = append(named, deltaItem{Title: title, Link: it.Item.Link})
	}
	return named, more
}

// subscribeLinks are the collection's feeds (docs/API.md "Feeds") in every format.
func subscribeLinks(id string) []subscribeRow {
	kinds := []struct{ what, query string }{
		{"Archive: the newest items ever seen", "max=50&"},
		{"Latest version", "index=1&"},
		{"List of versions", ""},
	}
	var rows []subscribeRow
	for _, k := range kinds {
		row := subscribeRow{What: k.what}
		for _, f := range feedFormats() {
			row.Links = append(row.Links, subscribeLink{
				Label: formatLabel(f),
				URL:   "/resources/" + url.PathEscape(id) + "?" + k.query + "type=" + string(f),
			})
		}
		rows = append(rows, row)
	}
	return rows
}

// feedFormats are the formats offered to subscribe in: every one that
// Render writes but XMLData, which is no feed.
func feedFormats() []transform.Format {
	var out []transform.Format
	for _, f := range transform.Formats() {
		if f != transform.XMLData {
			out = append(out, f)
		}
	}
	return out
}

// formatLabel names a format for people.
func formatLabel(f transform.Format) string { return f.Label() }

// action wraps the handlers of the operator's forms: it bounds the form,
// checks authorization and the anti-forgery token, and reads the source.
func (h *Server) action(do func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return h.guard(maxFormBytes, (*http.Request).ParseForm, do)
}

// upload is action for a form that sends a file (multipart), of at most
// an OPML import's size.
func (h *Server) upload(do func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	const limit = sources.MaxImportBytes + maxFormBytes
	return h.guard(limit, func(r *http.Request) error { return r.ParseMultipartForm(limit) }, do)
}

// guard bounds and parses a form, then checks authorization and the
// anti-forgery token before do runs.
func (h *Server) guard(limit int64, parse func(*http.Request) error, do func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := parse(r); err != nil {
			status := http.StatusBadRequest
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				status = http.StatusRequestEntityTooLarge
			}
			h.fail(w, r, status, fmt.Sprintf("The form could not be read (at most %d bytes): %v", limit, err))
			return
		}
		ok, wait := h.check(r)
		if wait > 0 {
			auth.RetryAfter(w, wait)
			h.fail(w, r, http.StatusTooManyRequests, "Too many wrong admin tokens from this address: wait "+wait.Round(time.Second).String()+" before trying again.")
			return
		}
		if !ok {
			msg := "Actions need the admin token: log in at /ui/login first."
			if h.cfg.AdminToken == "" {
				msg = "No admin token is configured (DYNAMO_ADMIN_TOKEN), so actions are accepted only from this machine's loopback clients, " +
					"on a page opened at 127.0.0.1, [::1] or localhost with Dynamo's port."
			}
			h.fail(w, r, http.StatusForbidden, msg)
			return
		}
		if !h.bearer(r) && !h.checkCSRF(r) {
			h.fail(w, r, http.StatusForbidden, csrfMessage)
			return
		}
		// An operator's action (poll now) may take longer than the write
		// timeout meant for anonymous slow readers (serve --write-timeout).
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		do(w, r)
	}
}

// done sends the browser back to the page the form was on, with a message.
func (h *Server) done(w http.ResponseWriter, r *http.Request, msg string) {
	h.setFlash(w, r, msg)
	back := Prefix
	if id := r.PathValue("id"); id != "" && r.PostFormValue("back") == "source" {
		back = Prefix + "sources/" + url.PathEscape(id)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (h *Server) pollAction(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if h.cfg.Poller == nil {
		h.fail(w, r, http.StatusServiceUnavailable, "This process serves the HTTP interface only (--role api): no poller runs here, so it cannot poll now. The pollers will poll the source on schedule.")
		return
	}
	out, err := h.cfg.Poller.PollNow(r.Context(), id)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no active source %q to poll.", id))
		return
	case errors.Is(err, dynamo.ErrConflict), errors.Is(err, dynamo.ErrLeaseLost):
		h.fail(w, r, http.StatusConflict, fmt.Sprintf("Another poller is polling %q right now. Try again in a moment.", id))
		return
	case err != nil:
		h.log.Error("web: poll now", "source", id, "err", err)
		h.fail(w, r, http.StatusInternalServerError, fmt.Sprintf("Polling %q failed: the store did not answer.", id))
		return
	}
	h.done(w, r, describeOutcome(id, out))
}

// newItems says "1 new item" or "n new items".
func newItems(n int) string {
	if n == 1 {
		return "1 new item"
	}
	return fmt.Sprintf("%d new items", n)
}

// describeOutcome says what a poll found, in a sentence.
func describeOutcome(id string, out dynamo.PollOutcome) string {
	switch out.Status {
	case dynamo.StatusChanged:
		return fmt.Sprintf("Polled %s: changed, stored version %d with %s.", id, out.Version, newItems(out.NewItems))
	case dynamo.StatusUnchanged:
		return fmt.Sprintf("Polled %s: unchanged since the last version.", id)
	case dynamo.StatusNotModified:
		return fmt.Sprintf("Polled %s: not modified (the origin answered 304).", id)
	}
	return fmt.Sprintf("Polled %s: error: %s", id, out.Error)
}

func (h *Server) policyAction(w http.ResponseWriter, r *http.Request) {
	name := r.PostFormValue("policy")
	h.updateSource(w, r, func(s *dynamo.Source) string {
		s.Policy = name
		if name == "" {
			return fmt.Sprintf("%s now follows the global policy.", s.ID)
		}
		return fmt.Sprintf("%s now follows the %s policy.", s.ID, name)
	})
}

func (h *Server) pauseAction(w http.ResponseWriter, r *http.Request) {
	paused, err := strconv.ParseBool(r.PostFormValue("paused"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "paused must be true or false.")
		return
	}
	h.updateSource(w, r, func(s *dynamo.Source) string {
		s.Paused = paused
		if paused {
			return fmt.Sprintf("%s is paused: it will not be polled until resumed.", s.ID)
		}
		return fmt.Sprintf("%s is resumed.", s.ID)
	})
}

// updateSource reads a source, changes it and stores it back through the
// sources service, which checks the change as every entry point does.
func (h *Server) updateSource(w http.ResponseWriter, r *http.Request, change func(*dynamo.Source) string) {
	src, err := h.cfg.Store.Source(r.Context(), r.PathValue("id"))
	if err == nil {
		before := *src
		msg := change(src)
		if err = h.sources.Change(r.Context(), src, &before); err == nil {
			h.done(w, r, msg)
			return
		}
	}
	h.refused(w, r, "The source was not changed", err)
}

// refusal is a refused change's message for people: the domain's, without
// the "invalid: " its errors start with.
func refusal(err error) string {
	return strings.TrimPrefix(err.Error(), dynamo.ErrInvalid.Error()+": ")
}

func (h *Server) globalPolicyAction(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Poller == nil {
		h.fail(w, r, http.StatusServiceUnavailable, "This process serves the HTTP interface only: switch the global policy on a process that polls, or with PUT /api/poller there.")
		return
	}
	name := r.PostFormValue("policy")
	err := h.cfg.Poller.SetPolicy(r.Context(), name)
	switch {
	case errors.Is(err, dynamo.ErrInvalid):
		h.fail(w, r, http.StatusBadRequest, fmt.Sprintf("There is no policy %q.", name))
	case err != nil:
		h.log.Error("web: set policy", "policy", name, "err", err)
		h.fail(w, r, http.StatusInternalServerError, "The policy could not be switched: the store did not answer.")
	default:
		h.done(w, r, fmt.Sprintf("Every poller now follows the %s policy.", name))
	}
}
