package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/web"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

func TestRootRedirectsToTheInterface(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, err := client(t).Get(e.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("GET / = %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestPagesAreSafeAndSelfContained(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	c := client(t)
	for _, path := range []string{
		"/ui/", "/ui/sources/news", "/ui/sources/blog", "/ui/sources/hostile",
		"/ui/playground", "/ui/playground?example=sloppy.html", "/ui/search",
		"/ui/search?id=hostile&title=script", "/ui/login", "/ui/nowhere",
	} {
		t.Run(path, func(t *testing.T) {
			resp, err := c.Get(e.srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
				t.Errorf("Content-Security-Policy %q must allow no script", csp)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			_, body := get(t, c, e.srv.URL+path)
			checkSafe(t, body)
		})
	}
}

func TestSourcesPageListsEverySourceWithItsState(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := context.Background()
	if err := e.store.DeleteSource(ctx, "blog", false); err != nil {
		t.Fatal(err)
	}
	status, body := get(t, client(t), e.srv.URL+"/ui/")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	rows := texts(t, body, "tr", "")[1:] // after the heading row
	want := []struct{ id, status, versions string }{
		{"blog", "removed", "1"},
		{"hostile", "active", "1"},
		{"news", "active", "2"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(rows), len(want), rows)
	}
	for i, w := range want {
		if !strings.HasPrefix(rows[i], w.id) || !strings.Contains(rows[i], w.status) {
			t.Errorf("row %d = %q, want source %s, status %s", i, rows[i], w.id, w.status)
		}
	}
	if !strings.Contains(rows[2], "smart (global)") {
		t.Errorf("news row %q does not say it follows the global smart policy", rows[2])
	}
	// A loopback client without a configured token may act: poll now,
	// pause and change the policy, in each row.
	for _, action := range []string{"poll", "pause", "policy"} {
		if !strings.Contains(body, `action="/ui/sources/news/`+action+`"`) || strings.Contains(body, `action="/ui/sources/blog/`+action+`"`) {
			t.Errorf("the %s action should be offered for active sources only", action)
		}
	}
	if !strings.Contains(body, `<label for="policy-news" class="vh">Policy of news</label>`) {
		t.Error("the row's policy menu has no label")
	}
}

// TestSourcesListPagesAndSearches: the sources list shows 100 sources a
// page, ordered by id, with previous and next links and the count; ?q=
// narrows it to the sources whose id, title or URL contains the words
// (ignoring case), and the links keep the search and the status.
func TestSourcesListPagesAndSearches(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	for i := range 250 {
		src := &dynamo.Source{ID: fmt.Sprintf("src-%03d", i), URL: fmt.Sprintf("%s/p/%d.html", e.site.URL, i),
			Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour), Paused: i%100 == 3}
		if i%50 == 7 {
			src.Title = "Harbour report"
		}
		if err := e.store.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	c := client(t)
	for _, tc := range []struct {
		query       string
		rows        int
		first, last string // ids of the first and last rows
		pager       string // the pager's text, "" for none
		prev, next  string // the pager's links
		text        string // in the page
	}{
		{"", 100, "src-000", "src-099", "Sources 1–100 of 250, page 1 of 3", "", "/ui/?page=2", "250 collections, 1–100 shown."},
		{"?page=2", 100, "src-100", "src-199", "Sources 101–200 of 250, page 2 of 3", "/ui/", "/ui/?page=3", ""},
		{"?page=3", 50, "src-200", "src-249", "Sources 201–250 of 250, page 3 of 3", "/ui/?page=2", "", ""},
		{"?page=0", 100, "src-000", "src-099", "Sources 1–100 of 250, page 1 of 3", "", "/ui/?page=2", ""},
		{"?page=x", 100, "src-000", "src-099", "Sources 1–100 of 250, page 1 of 3", "", "/ui/?page=2", ""},
		{"?q=harbour", 5, "src-007", "src-207", "", "", "", "5 collections matching “harbour”."},
		{"?q=%2FP%2F12", 11, "src-012", "src-129", "", "", "", "11 collections matching “/P/12”."},
		{"?q=SRC-1", 100, "src-100", "src-199", "", "", "", `>paused (1)</a>`},
		{"?q=src&page=2", 100, "src-100", "src-199", "Sources 101–200 of 250, page 2 of 3", "/ui/?q=src", "/ui/?page=3&q=src", `value="src"`},
		{"?status=paused&q=src-1", 1, "src-103", "src-103", "", "", "", `<input type="hidden" name="status" value="paused">`},
		{"?status=paused", 3, "src-003", "src-203", "", "", "", "3 paused collections."},
		{"?page=7", 0, "", "", "", "", "", `There is no page 7: the list has 3 pages. <a href="/ui/?page=3">Go to the last page</a>.`},
		{"?q=nothing+like+this", 0, "", "", "", "", "", "No source matches “nothing like this”."},
	} {
		t.Run(tc.query, func(t *testing.T) {
			status, body := get(t, c, e.srv.URL+"/ui/"+tc.query)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			checkSafe(t, body)
			rows := texts(t, body, "tr", "")
			if tc.rows == 0 {
				if len(rows) != 0 {
					t.Errorf("%d rows, want none", len(rows))
				}
			} else if rows = rows[1:]; len(rows) != tc.rows || !strings.HasPrefix(rows[0], tc.first) || !strings.HasPrefix(rows[len(rows)-1], tc.last) {
				t.Errorf("%d rows, want %d from %s to %s", len(rows), tc.rows, tc.first, tc.last)
			}
			pagers := texts(t, body, "nav", "pager")
			if tc.pager == "" && len(pagers) != 0 || tc.pager != "" && (len(pagers) != 2 || !strings.Contains(pagers[0], tc.pager)) {
				t.Errorf("the pagers read %q, want twice %q", pagers, tc.pager)
			}
			for rel, want := range map[string]string{"prev": tc.prev, "next": tc.next} {
				if got := relLink(t, body, rel); got != want {
					t.Errorf("the %s link is %q, want %q", rel, got, want)
				}
			}
			if !strings.Contains(body, tc.text) {
				t.Errorf("the page does not say %s", tc.text)
			}
		})
	}
	// The status links count the sources the search matches, and keep it.
	_, body := get(t, c, e.srv.URL+"/ui/?q=SRC-1")
	if !strings.Contains(body, `<a href="/ui/?q=SRC-1&amp;status=paused">paused (1)</a>`) || !strings.Contains(body, `>all (100)</a>`) {
		t.Error("the status links do not keep the search or count its sources")
	}
}

// relLink is the href of the first link with rel on a page, "" if none.
func relLink(t *testing.T, page, rel string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "a" && attr(n, "rel") == rel {
			return attr(n, "href")
		}
	}
	return ""
}

func TestAFailingSourceShowsItsLastError(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	src := &dynamo.Source{ID: "gone", URL: e.site.URL + "/gone.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
	if err := e.store.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	out, err := e.poller.PollNow(ctx, "gone")
	if err != nil || out.Status != dynamo.StatusError {
		t.Fatalf("polling a missing page: %+v, %v", out, err)
	}
	_, body := get(t, client(t), e.srv.URL+"/ui/")
	rows := texts(t, body, "tr", "")
	if len(rows) != 2 || !strings.Contains(rows[1], "failing") || !strings.Contains(rows[1], "Last error: ") || !strings.Contains(rows[1], "404") {
		t.Errorf("the failing source's row reads %q", rows)
	}
	_, body = get(t, client(t), e.srv.URL+"/ui/sources/gone")
	box := texts(t, body, "p", "error-box")
	if len(box) != 1 || !strings.HasPrefix(box[0], "Last error:") || !strings.Contains(box[0], "404") {
		t.Errorf("the source's page shows the error as %q", box)
	}
	if !strings.Contains(body, "<title>error: 1</title>") {
		t.Error("the polls chart does not count the failed poll")
	}
}

// TestPollHistoryAndFailingFilter checks a failing source's last polls
// (outcome, HTTP status, bytes, error), its failure streak with the next
// retry, and the sources list narrowed to failing sources.
func TestPollHistoryAndFailingFilter(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	e.seed(t, "news", "/news.html", false, "")
	src := &dynamo.Source{ID: "flaky", URL: e.site.URL + "/flaky.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
	if err := e.store.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	page := []byte(`<html><body><!-- <item:title index="1"> -->Up<!-- </item:title> --></body></html>`)
	e.site.mu.Lock()
	e.site.pages["/flaky.html"] = sitePage{page, "text/html"}
	e.site.mu.Unlock()
	for i := range 3 {
		if i == 1 {
			e.site.mu.Lock()
			delete(e.site.pages, "/flaky.html")
			e.site.mu.Unlock()
		}
		if _, err := e.poller.PollNow(ctx, "flaky"); err != nil {
			t.Fatal(err)
		}
	}
	c := client(t)
	_, body := get(t, c, e.srv.URL+"/ui/sources/flaky")
	checkSafe(t, body)
	rows := texts(t, body, "tr", "poll-error")
	if len(rows) != 2 {
		t.Fatalf("%d failed polls listed, want 2: %q", len(rows), rows)
	}
	for _, r := range rows {
		if !strings.Contains(r, "error") || !strings.Contains(r, "404") || !strings.Contains(r, "Not Found") {
			t.Errorf("a failed poll reads %q; want its outcome, status and error", r)
		}
	}
	ok := texts(t, body, "tr", "poll-changed")
	if len(ok) != 1 || !strings.Contains(ok[0], "200") || !strings.Contains(ok[0], fmt.Sprintf("%d B", len(page))) {
		t.Errorf("the first poll reads %q; want 200 and %d B", ok, len(page))
	}
	streak := texts(t, body, "p", "streak")
	if len(streak) != 1 || !strings.Contains(streak[0], "Failing: 2 polls in a row, since") || !strings.Contains(streak[0], "Next retry") {
		t.Errorf("the streak reads %q", streak)
	}

	_, body = get(t, c, e.srv.URL+"/ui/?status=failing")
	if listed := texts(t, body, "tr", ""); len(listed) != 2 || !strings.HasPrefix(listed[1], "flaky") {
		t.Errorf("the failing filter lists %q, want flaky only", listed)
	}
	if !strings.Contains(body, `aria-current="page">failing (1)</a>`) || !strings.Contains(body, `>all (2)</a>`) {
		t.Errorf("the filter links do not show the counts")
	}
	_, body = get(t, c, e.srv.URL+"/ui/?status=paused")
	if !strings.Contains(body, "No source is paused.") {
		t.Errorf("an empty filter does not say so")
	}
}

func TestTimelineNamesTheItemsOfTheNewestVersionsOnly(t *testing.T) {
	e := newEnv(t, envOptions{})
	// Fourteen versions: version n carries the stories n and n+1, so each
	// after the first adds one story and drops one.
	var pages []string
	for n := 1; n <= 14; n++ {
		pages = append(pages, fmt.Sprintf(`<html><body>
<!-- <item:title index="1"> -->Story %d<!-- </item:title> --><!-- <item:link index="1"> -->/s/%d<!-- </item:link> -->
<!-- <item:title index="2"> -->Story %d<!-- </item:title> --><!-- <item:link index="2"> -->/s/%d<!-- </item:link> -->
</body></html>`, n+1, n+1, n, n))
	}
	e.seed(t, "busy", "/busy.html", false, pages...)
	_, body := get(t, client(t), e.srv.URL+"/ui/sources/busy")
	added, removed := texts(t, body, "li", "delta-added"), texts(t, body, "li", "delta-removed")
	if len(added) != 10 || len(removed) != 10 {
		t.Fatalf("%d added and %d removed items named, want the 10 newest versions' one each", len(added), len(removed))
	}
	if added[0] != "+added: Story 15" || removed[0] != "−removed: Story 13" || added[9] != "+added: Story 6" {
		t.Errorf("the newest version adds %q and removes %q; the tenth adds %q", added[0], removed[0], added[9])
	}
}

func TestSourcePageShowsTimelineItemsSubscriptionsAndCharts(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	status, body := get(t, client(t), e.srv.URL+"/ui/sources/news")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	timeline := texts(t, body, "ol", "timeline")
	if len(timeline) != 1 || !strings.Contains(timeline[0], "Version 2") || !strings.Contains(timeline[0], "+1 added −1 removed") || !strings.Contains(timeline[0], "first version") {
		t.Errorf("timeline = %q, want version 2 adding one item and removing one, then the first version", timeline)
	}
	// Version 2 names the story it added and the one it dropped.
	added, removed := texts(t, body, "li", "delta-added"), texts(t, body, "li", "delta-removed")
	if !slices.Equal(added, []string{"+added: Extra Edition: Snow Day Declared"}) || !slices.Equal(removed, []string{"−removed: Council Approves 2006 Budget After Late-Night Session"}) {
		t.Errorf("version 2 lists added %q and removed %q", added, removed)
	}
	items := texts(t, body, "h3", "")
	if len(items) != 10 || items[0] != "Extra Edition: Snow Day Declared" {
		t.Errorf("archive = %q, want 10 items, the newest first", items)
	}
	for _, f := range []string{"rss1", "rss2", "atom", "json"} {
		for _, q := range []string{"max=50&amp;", "index=1&amp;", ""} {
			if link := `href="/resources/news?` + q + `type=` + f + `"`; !strings.Contains(body, link) {
				t.Errorf("no subscribe link %s", link)
			}
		}
	}
	svgs := strings.Count(body, "<svg")
	if svgs != 3 {
		t.Errorf("%d charts, want the rate, the polls by outcome and the poll strip", svgs)
	}
	captions := texts(t, body, "figcaption", "")
	if len(captions) < 2 || !strings.Contains(captions[0], "as the scheduler learnt them over 2 polls") {
		t.Errorf("rate chart caption %q should come from the learnt state", captions)
	}
	if n := strings.Count(body, `class="rate"`); n != 24 {
		t.Errorf("%d hourly bars, want 24", n)
	}
	if !strings.Contains(body, "<title>changed: 2</title>") {
		t.Error("the polls chart should count the two polls that changed the content")
	}

	// Without a learnt state, the rate comes from the items' dates.
	_, body = get(t, client(t), e.srv.URL+"/ui/sources/blog")
	captions = texts(t, body, "figcaption", "")
	if len(captions) == 0 || !strings.Contains(captions[0], "Items posted by hour of day") {
		t.Errorf("blog's rate chart %q should count its items", captions)
	}
}

func TestSourcePageOfUnknownSourceIs404(t *testing.T) {
	e := newEnv(t, envOptions{})
	status, body := get(t, client(t), e.srv.URL+"/ui/sources/nope")
	if status != http.StatusNotFound || !strings.Contains(body, `There is no source &#34;nope&#34;.`) {
		t.Errorf("status %d, body %s", status, body)
	}
}

func TestHostileContentIsShownAsText(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	c := client(t)
	_, body := get(t, c, e.srv.URL+"/ui/sources/hostile")
	checkSafe(t, body)
	titles := texts(t, body, "h3", "")
	if !slices.Contains(titles, `<script>alert(1)</script> Evil "title"`) {
		t.Errorf("item titles %q should show the hostile title as text", titles)
	}
	if !strings.Contains(body, "&lt;img src=x onerror=alert(2)&gt;") {
		t.Error("the hostile description should be shown as escaped text")
	}
	_, body = get(t, c, e.srv.URL+"/ui/")
	checkSafe(t, body)
	if !strings.Contains(body, "&lt;script&gt;alert(&#39;channel&#39;)&lt;/script&gt;") {
		t.Error("the hostile channel title should be shown as escaped text on the sources page")
	}

	// The timeline names items added and removed: hostile ones too.
	e.seed(t, "hostile2", "/hostile2.html", false, "<html><body><!-- <item:title index=\"1\"> -->calm<!-- </item:title> --></body></html>", hostilePage)
	_, body = get(t, c, e.srv.URL+"/ui/sources/hostile2")
	checkSafe(t, body)
	if added := texts(t, body, "li", "delta-added"); !slices.Contains(added, `+added: <script>alert(1)</script> Evil "title"`) {
		t.Errorf("the timeline names the added items %q", added)
	}
}

func TestPlaygroundShowsAnExamplesWarningsAndFeeds(t *testing.T) {
	e := newEnv(t, envOptions{})
	status, body := get(t, client(t), e.srv.URL+"/ui/playground?example=sloppy.html")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	page, err := examples.Read("sloppy.html")
	if err != nil {
		t.Fatal(err)
	}
	want := wrapper.Wrap(page, wrapper.Options{URL: "https://www.example.org/club/news.htm", ContentType: "text/html"})
	listed := texts(t, body, "ul", "warnings")
	if len(listed) != 1 {
		t.Fatalf("want one list of warnings, got %q", listed)
	}
	inline := texts(t, body, "div", "warn-inline")
	if len(inline) != len(want.Warnings) {
		t.Errorf("%d warnings next to their lines, want %d", len(inline), len(want.Warnings))
	}
	for _, w := range want.Warnings {
		if !strings.Contains(listed[0], w.Message) {
			t.Errorf("warning %q is not listed", w)
		}
		if !strings.Contains(body, `<a href="#L`+itoa(w.Line)+`">line `+itoa(w.Line)+`</a>`) {
			t.Errorf("warning %q does not link to its line", w)
		}
	}
	for _, id := range []string{"feed-rss1", "feed-rss2", "feed-atom", "feed-json"} {
		if !strings.Contains(body, `id="`+id+`"`) {
			t.Errorf("no %s", id)
		}
	}
	if !strings.Contains(body, "&lt;resource url=&#34;https://www.example.org/club/news.htm&#34;") {
		t.Error("the XMLData document is not shown")
	}
	marks := texts(t, body, "span", "hl-open")
	if len(marks) < 2 { // one in the legend, at least one in the page
		t.Error("the never-closed annotation is not highlighted")
	}
	if n := strings.Count(body, `class="hl-tag hl-item"`); n == 0 {
		t.Error("no item annotation is highlighted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPlaygroundPasteEscapesThePage(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := post(t, client(t), e.srv.URL+"/ui/playground", url.Values{"page": {hostilePage}, "url": {"https://town.example/news/"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	checkSafe(t, body)
	area := texts(t, body, "textarea", "")
	if len(area) != 1 || !strings.Contains(area[0], `<script>alert(5)</script>`) {
		t.Errorf("the text box should hold the pasted page as text, got %q", area)
	}
	if !strings.Contains(body, "Found <strong>5</strong> annotations, <strong>2</strong> items") {
		t.Error("the summary does not count the pasted page's annotations and items")
	}
}

func TestPlaygroundRefusesBadInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := client(t)
	cases := []struct {
		name string
		form url.Values
		want string
	}{
		{"empty", url.Values{"page": {"  "}}, "paste a page"},
		{"bad url", url.Values{"page": {"<p>x</p>"}, "url": {"ftp://x"}}, "not an absolute http or https URL"},
		{"bad zone", url.Values{"page": {"<p>x</p>"}, "tz": {"Mars/Olympus"}}, "is not an IANA name"},
		{"fetch bad url", url.Values{"action": {"fetch"}, "fetch_url": {"javascript:alert(1)"}}, "not an absolute http or https URL"},
		{"fetch refused", url.Values{"action": {"fetch"}, "fetch_url": {"http://192.0.2.1/"}}, "fetching http://192.0.2.1/ failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, c, e.srv.URL+"/ui/playground", tc.form)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) {
				t.Errorf("status %d, want 400 saying %q", resp.StatusCode, tc.want)
			}
			checkSafe(t, body)
		})
	}
	// The form of url.Values{"page": {x…}}, written out: encoding 61 MiB
	// that need no escaping would only cost CPU (most of the test's under
	// the race detector).
	resp, _ := postEncoded(t, c, e.srv.URL+"/ui/playground", "page="+strings.Repeat("x", 3*dynamo.MaxAnnotatedPageBytes+1<<20))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized page: status %d, want 413", resp.StatusCode)
	}
	status, _ := get(t, c, e.srv.URL+"/ui/playground?example=../../etc/passwd")
	if status != http.StatusNotFound {
		t.Errorf("an unknown example: status %d, want 404", status)
	}
}

func TestPlaygroundFetchesAPage(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := post(t, client(t), e.srv.URL+"/ui/playground", url.Values{"action": {"fetch"}, "fetch_url": {e.site.URL + "/gazeta/novosti.html"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !strings.Contains(body, "decoded from <strong>KOI8-R</strong> (meta)") && !strings.Contains(body, "decoded from <strong>koi8-r</strong> (meta)") {
		t.Error("the fetched page's charset is not reported as read from its meta")
	}
	if !strings.Contains(body, "fetched from "+e.site.URL+"/gazeta/novosti.html") {
		t.Error("the page does not say where it was fetched from")
	}
}

func TestSearchMatchesTheReferenceSemantics(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	c := client(t)
	conds := []dynamo.Condition{
		{Field: dynamo.FieldTitle, Value: "bridge"},
		{Or: true, Field: dynamo.FieldDescription, Value: "overnight"},
		{Field: dynamo.FieldLink, Value: "2005"},
	}
	all, err := e.store.Items(context.Background(), dynamo.ItemQuery{SourceID: "news"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, it := range all {
		if dynamo.Match(conds, &it.Item) {
			want = append(want, it.Item.Title)
		}
	}
	if len(want) < 2 || len(want) == len(all) {
		t.Fatalf("the test's conditions should select some items but not all: %q", want)
	}
	query := "id=news&title=bridge&op=or&desc=overnight&op=and&link=2005"
	status, body := get(t, c, e.srv.URL+"/ui/search?"+query)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	got := texts(t, body, "h3", "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
	rest := "/resources/news?title=bridge&amp;op=or&amp;desc=overnight&amp;op=and&amp;link=2005&amp;max=100&amp;type=rss2"
	if !strings.Contains(body, `href="`+rest+`"`) {
		t.Errorf("the equivalent REST URL %s is not shown", rest)
	}

	// The form's rows redirect to the same search in the REST form.
	form := "id=news&field=title&value=bridge&op=or&field=description&value=overnight&op=and&field=link&value=2005&op=and&field=title&value=&max=100"
	resp, err := c.Get(e.srv.URL + "/ui/search?" + form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/ui/search?"+query {
		t.Errorf("form search: %d to %q, want 303 to /ui/search?%s", resp.StatusCode, loc, query)
	}
}

func TestSearchReportsBadQueries(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	cases := []struct {
		query  string
		status int
		want   string
	}{
		{"id=news&title=a&op=xor&title=b", 400, "op must be and or or"},
		{"id=news&title=a&op=or", 400, "followed by no condition"},
		{"id=news&max=0", 400, "max must be an integer from 1 to 10000"},
		{"id=news&xpath=//item", 400, "has no meaning here"},
		{"id=nope&title=a", 404, "There is no collection"},
		{"id=news&title=%zz", 400, "malformed escape"},
	}
	for _, tc := range cases {
		status, body := get(t, client(t), e.srv.URL+"/ui/search?"+tc.query)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: status %d, want %d saying %q", tc.query, status, tc.status, tc.want)
		}
	}
}

func TestStaticAssetsAreEmbedded(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, err := http.Get(e.srv.URL + "/ui/static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("style.css: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestNewNeedsAStore(t *testing.T) {
	if _, err := web.New(web.Config{}); err == nil {
		t.Error("New without a store should fail")
	}
}

// TestActionsFromLoopback drives every action as an operator on the
// machine itself, with no token configured: the real poller polls the
// loopback origin.
func TestActionsFromLoopback(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/sources/news")
	token := formToken(t, page)
	// A browser asks for /favicon.ico, outside the cookie's path: that must
	// not replace the nonce the token is bound to.
	if status, _ := get(t, c, e.srv.URL+"/favicon.ico"); status != http.StatusNotFound {
		t.Errorf("/favicon.ico: status %d", status)
	}

	// The origin still serves the first version, so polling changes it.
	resp, _ := post(t, c, e.srv.URL+"/ui/sources/news/poll", url.Values{"csrf": {token}, "back": {"source"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/sources/news" {
		t.Fatalf("poll: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page = get(t, c, e.srv.URL+"/ui/sources/news")
	flash := texts(t, page, "p", "flash")
	if len(flash) != 1 || !strings.HasPrefix(flash[0], "Polled news: changed, stored version 3") {
		t.Errorf("after polling, the page says %q", flash)
	}
	if vs, _ := e.store.Versions(ctx, "news"); len(vs) != 3 {
		t.Errorf("%d versions after polling, want 3", len(vs))
	}
	_, page = get(t, c, e.srv.URL+"/ui/sources/news")
	if len(texts(t, page, "p", "flash")) != 0 {
		t.Error("the message should be shown once")
	}

	steps := []struct {
		path  string
		form  url.Values
		check func(*dynamo.Source) bool
	}{
		{"/ui/sources/news/pause", url.Values{"paused": {"true"}}, func(s *dynamo.Source) bool { return s.Paused }},
		{"/ui/sources/news/pause", url.Values{"paused": {"false"}}, func(s *dynamo.Source) bool { return !s.Paused }},
		{"/ui/sources/news/policy", url.Values{"policy": {"weekday"}}, func(s *dynamo.Source) bool { return s.Policy == "weekday" }},
		{"/ui/sources/news/policy", url.Values{"policy": {""}}, func(s *dynamo.Source) bool { return s.Policy == "" }},
	}
	for _, s := range steps {
		s.form.Set("csrf", token)
		resp, body := post(t, c, e.srv.URL+s.path, s.form)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s %v: status %d: %s", s.path, s.form, resp.StatusCode, body)
		}
		src, err := e.store.Source(ctx, "news")
		if err != nil {
			t.Fatal(err)
		}
		if !s.check(src) {
			t.Errorf("%s %v did not change the source: %+v", s.path, s.form, src)
		}
	}
	resp, _ = post(t, c, e.srv.URL+"/ui/policy", url.Values{"csrf": {token}, "policy": {"flat"}})
	if resp.StatusCode != http.StatusSeeOther || e.poller.Policy() != "flat" {
		t.Errorf("global policy: status %d, poller follows %s", resp.StatusCode, e.poller.Policy())
	}

	bad := []struct {
		path   string
		form   url.Values
		status int
	}{
		{"/ui/sources/news/pause", url.Values{"paused": {"true"}}, http.StatusForbidden},                       // no token
		{"/ui/sources/news/pause", url.Values{"paused": {"true"}, "csrf": {"forged"}}, http.StatusForbidden},   // wrong token
		{"/ui/sources/news/policy", url.Values{"policy": {"psychic"}, "csrf": {token}}, http.StatusBadRequest}, // unknown policy
		{"/ui/sources/news/pause", url.Values{"paused": {"maybe"}, "csrf": {token}}, http.StatusBadRequest},    // not a bool
		{"/ui/sources/ghost/pause", url.Values{"paused": {"true"}, "csrf": {token}}, http.StatusNotFound},      // no such source
		{"/ui/sources/ghost/poll", url.Values{"csrf": {token}}, http.StatusNotFound},                           // no such source
		{"/ui/policy", url.Values{"policy": {"psychic"}, "csrf": {token}}, http.StatusBadRequest},              // unknown policy
	}
	for _, b := range bad {
		resp, _ := post(t, c, e.srv.URL+b.path, b.form)
		if resp.StatusCode != b.status {
			t.Errorf("%s %v: status %d, want %d", b.path, b.form, resp.StatusCode, b.status)
		}
	}
	if src, _ := e.store.Source(ctx, "news"); src.Paused {
		t.Error("a refused action changed the source")
	}
}

func TestCrossSiteFormsAreRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/")
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/ui/sources/news/pause", strings.NewReader(url.Values{"csrf": {formToken(t, page)}, "paused": {"true"}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site post: status %d, want 403", resp.StatusCode)
	}
}

func TestActionsNeedTheTokenWhenOneIsConfigured(t *testing.T) {
	const secret = "s3cret-token"
	e := newEnv(t, envOptions{token: secret})
	e.seedExamples(t)
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/")
	if strings.Contains(page, `action="/ui/sources/news/pause"`) || !strings.Contains(page, `href="/ui/login"`) {
		t.Error("before logging in, the page should offer the login, not actions")
	}
	_, page = get(t, c, e.srv.URL+"/ui/login")
	token := formToken(t, page)
	resp, _ := post(t, c, e.srv.URL+"/ui/sources/news/pause", url.Values{"csrf": {token}, "paused": {"true"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an action before logging in: status %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/ui/login", url.Values{"csrf": {token}, "token": {"guess"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: status %d, want 401", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/ui/login", url.Values{"csrf": {token}, "token": {secret}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: status %d", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/ui/sources/news/pause", url.Values{"csrf": {token}, "paused": {"true"}})
	if src, _ := e.store.Source(ctx, "news"); resp.StatusCode != http.StatusSeeOther || !src.Paused {
		t.Errorf("an action after logging in: status %d, paused %v", resp.StatusCode, src.Paused)
	}
	// A token in a form field still needs the browser's anti-forgery cookie.
	resp, _ = post(t, client(t), e.srv.URL+"/ui/sources/blog/pause", url.Values{"csrf": {token}, "paused": {"true"}, "token": {secret}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a form token without this browser's anti-forgery cookie: status %d, want 403", resp.StatusCode)
	}
	// A script with the bearer token needs no form token.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/ui/sources/blog/pause", strings.NewReader("paused=true"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+secret)
	r2, err := client(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if src, _ := e.store.Source(ctx, "blog"); r2.StatusCode != http.StatusSeeOther || !src.Paused {
		t.Errorf("a bearer action: status %d, paused %v", r2.StatusCode, src.Paused)
	}
	_, page = get(t, c, e.srv.URL+"/ui/")
	resp, _ = post(t, c, e.srv.URL+"/ui/logout", url.Values{"csrf": {formToken(t, page)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: status %d", resp.StatusCode)
	}
	resp, _ = post(t, c, e.srv.URL+"/ui/sources/news/pause", url.Values{"csrf": {token}, "paused": {"false"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an action after logging out: status %d, want 403", resp.StatusCode)
	}
	// The token in a form field authorizes the one action.
	resp, _ = post(t, c, e.srv.URL+"/ui/sources/news/pause", url.Values{"csrf": {token}, "paused": {"false"}, "token": {secret}})
	if src, _ := e.store.Source(ctx, "news"); resp.StatusCode != http.StatusSeeOther || src.Paused {
		t.Errorf("an action with the token in the form: status %d, paused %v", resp.StatusCode, src.Paused)
	}
}

func TestActionsFromElsewhereNeedAToken(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	h, err := web.New(web.Config{Store: e.store})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/ui/sources/news/pause", strings.NewReader("paused=true"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = "192.0.2.7:40000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "loopback clients") {
		t.Errorf("an action from a remote client without a token: status %d", rec.Code)
	}
}

func TestATypedNilPollerIsNoPoller(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	var none *poller.Poller // as a process without a poller would pass it
	h, err := web.New(web.Config{Store: e.store, Poller: none})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := client(t)
	status, page := get(t, c, srv.URL+"/ui/")
	if status != http.StatusOK || !strings.Contains(page, "No poller runs in this process") {
		t.Errorf("sources page without a poller: status %d", status)
	}
	resp, body := post(t, c, srv.URL+"/ui/sources/news/poll", url.Values{"csrf": {formToken(t, page)}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "no poller runs here") {
		t.Errorf("poll with a nil poller: status %d", resp.StatusCode)
	}
}

func TestPlaygroundFetchesThroughThePollersFetcher(t *testing.T) {
	e := newEnv(t, envOptions{})
	h, err := web.New(web.Config{Store: e.store, Fetch: web.FetchFrom(fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1}))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, body := post(t, client(t), srv.URL+"/ui/playground", url.Values{"action": {"fetch"}, "fetch_url": {e.site.URL + "/news/index.html"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<strong>9</strong> items") {
		t.Errorf("status %d; the news page's 9 items are not reported", resp.StatusCode)
	}
	// The guard of a fetcher that refuses private addresses holds.
	h, err = web.New(web.Config{Store: e.store, Fetch: web.FetchFrom(fetch.New(fetch.Options{HostGap: -1}))})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(h)
	defer srv2.Close()
	resp, body = post(t, client(t), srv2.URL+"/ui/playground", url.Values{"action": {"fetch"}, "fetch_url": {e.site.URL + "/news/index.html"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "failed") {
		t.Errorf("a loopback URL through the guarded fetcher: status %d", resp.StatusCode)
	}
}

func TestPollNowWithoutAPollerSaysSo(t *testing.T) {
	e := newEnv(t, envOptions{noPoller: true})
	e.seedExamples(t)
	c := client(t)
	// The global policy is the one the pollers share through the store.
	_, page := get(t, c, e.srv.URL+"/ui/")
	if !strings.Contains(page, "the pollers poll on schedule") || strings.Contains(page, "(global)") {
		t.Error("without a poller nor a stored policy, the page should say no more than that it does not poll")
	}
	if err := e.store.PutSetting(context.Background(), poller.PolicySetting, "weekday"); err != nil {
		t.Fatal(err)
	}
	_, page = get(t, c, e.srv.URL+"/ui/")
	if rows := texts(t, page, "tr", ""); len(rows) < 2 || !strings.Contains(rows[1], "weekday (global)") || !strings.Contains(page, "They follow the <strong>weekday</strong> policy") {
		t.Errorf("the stored global policy is not shown: %q", rows)
	}
	_, page = get(t, c, e.srv.URL+"/ui/sources/news")
	resp, body := post(t, c, e.srv.URL+"/ui/sources/news/poll", url.Values{"csrf": {formToken(t, page)}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "no poller runs here") {
		t.Errorf("poll without a poller: status %d", resp.StatusCode)
	}
}

// A source page says, for each item that is a copy of another source's
// story, where the story was first seen and the rule and score of the
// decision, and which copy it was decided against when not the primary.
func TestSourcePageShowsTheDecisionOnCopies(t *testing.T) {
	e := newEnv(t, envOptions{stories: true})
	ctx := context.Background()
	desc := "An explosion on a crowded minibus in Nairobi's central business district killed at least five people on Monday evening, police said. The cause of the blast was not immediately known."
	page := func(title, desc string) []byte {
		return []byte(`<html><body><h1><!-- <channel:title> -->News<!-- </channel:title> --></h1>
<p><!-- <item:title> -->` + title + `<!-- </item:title> --></p><p><!-- <item:description> -->` + desc + `<!-- </item:description> --></p></body></html>`)
	}
	e.site.mu.Lock()
	e.site.pages["/wire.html"] = sitePage{page("Explosion on bus in Kenya capital kills at least 5", desc), "text/html"}
	e.site.pages["/reuters.html"] = sitePage{page("Reuters: Explosion on bus in Kenya capital kills at least five",
		strings.Replace(desc, "police said", "police officials said", 1)), "text/html"}
	e.site.pages["/ap.html"] = sitePage{page("Explosion on bus in Kenya capital kills at least 5 (AP)", desc), "text/html"}
	e.site.mu.Unlock()
	for _, src := range []struct{ id, prefix string }{{"wire", ""}, {"reuters", "Reuters:"}, {"ap", ""}} {
		s := &dynamo.Source{ID: src.id, URL: e.site.URL + "/" + src.id + ".html", Kind: dynamo.KindHTML,
			Interval: dynamo.Duration(time.Hour), TitlePrefix: src.prefix}
		if err := e.store.CreateSource(ctx, s); err != nil {
			t.Fatal(err)
		}
		if out, err := e.poller.PollNow(ctx, src.id); err != nil || out.Status != dynamo.StatusChanged {
			t.Fatalf("poll %s: %+v, %v", src.id, out, err)
		}
	}
	_, body := get(t, client(t), e.srv.URL+"/ui/sources/reuters")
	meta := strings.Join(texts(t, body, "p", "meta"), " | ")
	if !strings.Contains(meta, "a copy of a story first seen in wire") || !strings.Contains(meta, "(rule text, score 0.9") {
		t.Errorf("reuters' page says %q, want its copy of wire's story with the rule and score", meta)
	}
	_, body = get(t, client(t), e.srv.URL+"/ui/sources/wire")
	if meta := strings.Join(texts(t, body, "p", "meta"), " | "); strings.Contains(meta, "a copy") {
		t.Errorf("the primary's page says %q", meta)
	}
	// ap's copy names the primary, whichever copy it was decided against.
	_, body = get(t, client(t), e.srv.URL+"/ui/sources/ap")
	if meta := strings.Join(texts(t, body, "p", "meta"), " | "); !strings.Contains(meta, "a copy of a story first seen in wire") {
		t.Errorf("ap's page says %q", meta)
	}
}

// The playground shows an item's enclosures (a podcast's audio, declared
// with item:enclosure or dynamo:enclosure), with the link resolved, and
// the type and length the annotation gives.
func TestPlaygroundShowsEnclosures(t *testing.T) {
	e := newEnv(t, envOptions{})
	page := `<!-- <item:title index="1"> -->Episode 1<!-- </item:title> -->` +
		`<!-- <item:extension index="1" uri="https://dynamo-feeds.github.io/ns/1.0" prefix="dynamo" localName="enclosure"> -->audio/1.mp3<!-- </item:extension> -->` +
		`<!-- <item:enclosure index="1" type="audio/ogg" length="4096"> --><a href="audio/1.ogg">Ogg</a><!-- </item:enclosure> -->`
	resp, body := post(t, client(t), e.srv.URL+"/ui/playground", url.Values{"page": {page}, "url": {"https://pod.example/episodes/"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	checkSafe(t, body)
	if !strings.Contains(body, `enclosure <a href="https://pod.example/episodes/audio/1.mp3"`) {
		t.Errorf("the item's enclosure is not shown:\n%s", body)
	}
	if !strings.Contains(body, `enclosure <a href="https://pod.example/episodes/audio/1.ogg" rel="nofollow noopener noreferrer">https://pod.example/episodes/audio/1.ogg</a> (audio/ogg) 4096 bytes`) {
		t.Errorf("the item:enclosure, its type and length are not shown:\n%s", body)
	}
}
