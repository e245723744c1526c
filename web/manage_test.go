package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo"
)

// rssFeed is an RSS 2.0 feed with the given item titles.
func rssFeed(title string, items ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title><link>http://example.org/</link><description>d</description>`, title)
	for i, it := range items {
		fmt.Fprintf(&b, `<item><title>%s</title><link>http://example.org/%d</link><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate></item>`, it, i)
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}

// formValues reads the fields of the form posting to action as a browser
// would send them: inputs, and each menu's selected option.
func formValues(t *testing.T, page, action string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for f := range doc.Descendants() {
		if f.Type != html.ElementNode || f.Data != "form" || attr(f, "action") != action {
			continue
		}
		vals := url.Values{}
		for n := range f.Descendants() {
			if n.Type != html.ElementNode || attr(n, "name") == "" {
				continue
			}
			switch n.Data {
			case "input":
				vals.Add(attr(n, "name"), attr(n, "value"))
			case "select":
				chosen := ""
				for o := range n.Descendants() {
					if o.Type == html.ElementNode && o.Data == "option" {
						if _, sel := attrOK(o, "selected"); sel {
							chosen = attr(o, "value")
						}
					}
				}
				vals.Add(attr(n, "name"), chosen)
			}
		}
		return vals
	}
	t.Fatalf("no form posting to %s", action)
	return nil
}

func attrOK(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// TestAddByURLPreviewsBeforeSaving previews three URLs (a site whose feed
// discovery finds, a feed, an annotated page), saving nothing, then adds
// the previewed site as the preview filled the form.
func TestAddByURLPreviewsBeforeSaving(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	e.site.mu.Lock()
	e.site.pages["/wp/"] = sitePage{[]byte(`<html><head><meta name="generator" content="WordPress 6.5"><title>A blog</title></head><body>hello</body></html>`), "text/html"}
	e.site.pages["/wp/feed/"] = sitePage{rssFeed("The blog", "First post", "Second post"), "application/rss+xml"}
	e.site.pages["/wire.rss"] = sitePage{rssFeed("Wire", "Flash"), "application/rss+xml"}
	e.site.mu.Unlock()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/add")
	checkSafe(t, page)
	token := formToken(t, page)

	for _, tc := range []struct {
		path, kind, polls string
		mentions          []string
	}{
		{"/wp/", "feed", "/wp/feed/", []string{"recognized as <strong>wordpress</strong>", "platform-path:wordpress", "chosen", "First post", "Second post"}},
		{"/wire.rss", "feed", "/wire.rss", []string{"Flash", "The first 1 of 1 item"}},
		{"/news/index.html", "html", "/news/index.html", []string{"a page with annotations", "The first 5 of"}},
	} {
		resp, body := post(t, c, e.srv.URL+"/ui/add", url.Values{"csrf": {token}, "url": {e.site.URL + tc.path}, "kind": {"auto"}, "interval": {"1h"}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("preview %s: %d\n%.800s", tc.path, resp.StatusCode, body)
		}
		checkSafe(t, body)
		for _, m := range tc.mentions {
			if !strings.Contains(body, m) {
				t.Errorf("the preview of %s does not say %q", tc.path, m)
			}
		}
		form := formValues(t, body, "/ui/sources")
		if form.Get("url") != e.site.URL+tc.polls || form.Get("kind") != tc.kind {
			t.Errorf("after the preview of %s the form holds %s %s, want %s %s", tc.path, form.Get("kind"), form.Get("url"), tc.kind, tc.polls)
		}
	}
	if list, _ := e.store.Sources(ctx); len(list) != 0 {
		t.Fatalf("previews saved %d sources", len(list))
	}

	_, body := post(t, c, e.srv.URL+"/ui/add", url.Values{"csrf": {token}, "url": {e.site.URL + "/wp/"}, "kind": {"auto"}, "interval": {"1h"}})
	form := formValues(t, body, "/ui/sources")
	resp, _ := post(t, c, e.srv.URL+"/ui/sources", form)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the previewed source: %d", resp.StatusCode)
	}
	src, err := e.store.Source(ctx, form.Get("id"))
	if err != nil || src.URL != e.site.URL+"/wp/feed/" || src.Kind != dynamo.KindFeed {
		t.Fatalf("added %+v, %v; want the feed discovery found", src, err)
	}
}

// TestFormFailuresNextToTheirFields checks that a refused form comes back
// as filled, its reason next to the field it concerns.
func TestFormFailuresNextToTheirFields(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seed(t, "news", "/news.html", false, "")
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/add")
	token := formToken(t, page)
	for _, tc := range []struct {
		path   string
		form   url.Values
		status int
		field  string // the id of the field the error is next to
		says   string
	}{
		{"/ui/sources", url.Values{"url": {"http://example.org/"}, "interval": {"1s"}}, 400, "new-interval", "interval 1s must be from 10s to 30d"},
		{"/ui/sources", url.Values{"url": {"ftp://example.org/"}}, 400, "new-url", "must be an absolute http or https URL"},
		{"/ui/sources", url.Values{"url": {"http://example.org/"}, "subscribers": {"many"}}, 400, "new-subscribers", "is not a whole number"},
		{"/ui/sources", url.Values{"id": {"news"}, "url": {"http://example.org/"}, "kind": {"feed"}}, 409, "new-id", "exists"},
		{"/ui/sources", url.Values{"url": {"http://example.org/"}, "timezone": {"Mars/Olympus"}}, 400, "new-timezone", "not an IANA time zone"},
		{"/ui/add", url.Values{"url": {e.site.URL + "/nothing-here"}, "kind": {"auto"}}, 400, "new-url", "cannot read"},
		{"/ui/sources", url.Values{"url": {"http://example.org/"}, "kind": {"selectors"}}, 400, "new-item_selector", "item_selector is required"},
		{"/ui/sources/news/settings", url.Values{"interval": {"1s"}}, 400, "set-interval", "interval 1s must be"},
		{"/ui/sources/news/settings", url.Values{"url": {"nope"}}, 400, "set-url", "must be an absolute http or https URL"},
	} {
		tc.form.Set("csrf", token)
		resp, body := post(t, c, e.srv.URL+tc.path, tc.form)
		if resp.StatusCode != tc.status {
			t.Errorf("%s %v: %d, want %d\n%.600s", tc.path, tc.form, resp.StatusCode, tc.status, body)
			continue
		}
		errs := texts(t, body, "span", "field-error")
		if len(errs) != 1 || !strings.Contains(errs[0], tc.says) || !strings.Contains(body, `id="`+tc.field+`-error"`) ||
			!strings.Contains(body, `aria-describedby="`+tc.field+`-error `+tc.field+`-hint" aria-invalid="true"`) {
			t.Errorf("%s %v: errors %q; want one next to %s saying %q", tc.path, tc.form, errs, tc.field, tc.says)
		}
		for name, v := range tc.form {
			if name != "csrf" && !strings.Contains(body, `value="`+html.EscapeString(v[0])+`"`) && name != "kind" {
				t.Errorf("%s: the refused form lost %s=%q", tc.path, name, v[0])
			}
		}
	}
}

// TestDeleteKeepsOrPurges deletes one source keeping its archive and
// another purging it.
func TestDeleteKeepsOrPurges(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/sources/news")
	if !strings.Contains(page, `action="/ui/sources/news/delete"`) {
		t.Fatal("the source page has no delete form")
	}
	token := formToken(t, page)
	for _, tc := range []struct {
		id    string
		purge string
		kept  bool
	}{{"news", "false", true}, {"blog", "true", false}} {
		resp, _ := post(t, c, e.srv.URL+"/ui/sources/"+tc.id+"/delete", url.Values{"csrf": {token}, "purge": {tc.purge}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete %s: %d", tc.id, resp.StatusCode)
		}
		if active, _ := e.store.Sources(ctx); containsID(active, tc.id) {
			t.Errorf("%s is still active", tc.id)
		}
		kept, _ := e.store.Collections(ctx)
		if containsID(kept, tc.id) != tc.kept {
			t.Errorf("%s deleted with purge=%s: archive kept %v, want %v", tc.id, tc.purge, !tc.kept, tc.kept)
		}
		_, err := e.store.Source(ctx, tc.id)
		if tc.kept != (err == nil) || (!tc.kept && !errors.Is(err, dynamo.ErrNotFound)) {
			t.Errorf("%s after delete: %v", tc.id, err)
		}
	}
	_, list := get(t, c, e.srv.URL+"/ui/")
	if !strings.Contains(list, "Deleted blog and purged its archive") {
		t.Error("the list does not say what was deleted")
	}
	if resp, _ := post(t, c, e.srv.URL+"/ui/sources/hostile/delete", url.Values{"csrf": {token}, "purge": {"maybe"}}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("purge=maybe: %d, want 400", resp.StatusCode)
	}
}

func containsID(list []dynamo.Source, id string) bool {
	for _, s := range list {
		if s.ID == id {
			return true
		}
	}
	return false
}

// upload posts a file in a multipart form, as the import form sends it.
func upload(t *testing.T, c *http.Client, u, token, name string, file []byte) (*http.Response, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("csrf", token)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(file)
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, u, &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	return resp, body.String()
}

// TestOPMLImportReport uploads an OPML file and reads the report of each
// entry; a second import skips everything, a broken file registers
// nothing and says why next to the file field.
func TestOPMLImportReport(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/opml")
	checkSafe(t, page)
	if !strings.Contains(page, `href="/api/sources.opml"`) {
		t.Error("the OPML page does not offer the export")
	}
	token := formToken(t, page)
	file := []byte(`<?xml version="1.0"?><opml version="2.0" xmlns:dynamo="https://github.com/dynamo-feeds/dynamo/ns/opml"><body>
<outline text="Tech"><outline text="Go &lt;script&gt;" type="rss" xmlUrl="http://go.example/feed.atom"/>
<outline text="Go again" type="rss" xmlUrl="http://go.example/feed.atom"/></outline>
<outline text="Bad" type="rss" xmlUrl="http://bad.example/a" dynamo:interval="1s"/>
</body></opml>`)
	resp, body := upload(t, c, e.srv.URL+"/ui/opml", token, "mine.opml", file)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("import: %d\n%.800s", resp.StatusCode, body)
	}
	checkSafe(t, body)
	if !strings.Contains(body, "mine.opml: 1 registered, 1 skipped, 1 failed") {
		t.Errorf("the report's summary is missing:\n%.2000s", body)
	}
	rows := texts(t, body, "tr", "")
	if len(rows) != 4 || !strings.Contains(rows[1], "Go <script>") || !strings.Contains(rows[1], "registered") ||
		!strings.Contains(rows[2], "skipped") || !strings.Contains(rows[2], "duplicate") ||
		!strings.Contains(rows[3], "failed") || !strings.Contains(rows[3], "interval 1s must be") {
		t.Errorf("report rows %q", rows)
	}
	src, err := e.store.Source(ctx, "go.example-feed.atom")
	if err != nil || src.Category != "Tech" || src.Kind != dynamo.KindFeed {
		t.Errorf("registered %+v, %v", src, err)
	}
	_, body = upload(t, c, e.srv.URL+"/ui/opml", token, "mine.opml", file)
	if !strings.Contains(body, "0 registered, 2 skipped, 1 failed") {
		t.Errorf("a second import is not all skipped")
	}
	resp, body = upload(t, c, e.srv.URL+"/ui/opml", token, "broken.opml", []byte(`<opml><body><outline xmlUrl="http://x.example/"`))
	if errs := texts(t, body, "span", "field-error"); resp.StatusCode != http.StatusBadRequest || len(errs) != 1 || !strings.Contains(errs[0], "nothing was registered") {
		t.Errorf("a broken file: %d, %q", resp.StatusCode, errs)
	}
	if list, _ := e.store.Sources(ctx); len(list) != 1 {
		t.Errorf("%d sources after the imports, want 1", len(list))
	}
}

// TestCategoryView groups sources by category, each with its aggregate
// feed, and narrows the list to one; hostile category names stay text.
func TestCategoryView(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	for _, s := range []struct{ id, category string }{{"a", "town"}, {"b", "town"}, {"c", `<script>alert(1)</script>&x=1`}, {"d", ""}} {
		if err := e.store.CreateSource(ctx, &dynamo.Source{ID: s.id, URL: "http://example.org/" + s.id, Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval, Category: s.category}); err != nil {
			t.Fatal(err)
		}
	}
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/categories")
	checkSafe(t, page)
	heads := texts(t, page, "h2", "")
	if len(heads) != 3 || !strings.HasPrefix(heads[0], "<script>alert(1)</script>&x=1") || !strings.HasPrefix(heads[1], "town 2 sources") || !strings.HasPrefix(heads[2], "No category") {
		t.Errorf("category headings %q", heads)
	}
	if !strings.Contains(page, `href="/aggregate?category=town&amp;max=50&amp;type=atom"`) ||
		!strings.Contains(page, `href="/aggregate?category=%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x%3D1&amp;max=50&amp;type=rss2"`) {
		t.Error("the categories' aggregate feeds are not linked, escaped")
	}
	_, list := get(t, c, e.srv.URL+"/ui/?category=town")
	checkSafe(t, list)
	if rows := texts(t, list, "tr", ""); len(rows) != 3 || !strings.HasPrefix(rows[1], "a") || !strings.HasPrefix(rows[2], "b") {
		t.Errorf("the town list has rows %q", rows)
	}
	if h := texts(t, list, "h1", ""); len(h) != 1 || h[0] != "Category town" {
		t.Errorf("the town list is headed %q", h)
	}
}

// TestFormsRefuseForgery sends each form issue 20 added without its
// anti-forgery token, with a forged one, and with a valid one from
// another site: every one is refused with 403 and changes nothing.
func TestFormsRefuseForgery(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	e.site.mu.Lock()
	e.site.pages["/wire.rss"] = sitePage{rssFeed("Wire", "Flash"), "application/rss+xml"}
	e.site.mu.Unlock()
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/add")
	token := formToken(t, page)
	file := []byte(`<opml version="2.0"><body><outline text="x" type="rss" xmlUrl="http://x.example/feed"/></body></opml>`)
	forms := []struct {
		path string
		form url.Values // nil: the OPML upload
	}{
		{"/ui/add", url.Values{"url": {e.site.URL + "/wire.rss"}, "kind": {"auto"}}},
		{"/ui/sources", url.Values{"url": {e.site.URL + "/wire.rss"}, "kind": {"feed"}}},
		{"/ui/sources/news/settings", url.Values{"url": {e.site.URL + "/wire.rss"}, "kind": {"feed"}, "interval": {"2h"}}},
		{"/ui/sources/news/pause", url.Values{"paused": {"true"}}},
		{"/ui/sources/news/delete", url.Values{"purge": {"true"}}},
		{"/ui/opml", nil},
		{"/ui/timezone", url.Values{"tz": {"Asia/Tokyo"}}},
	}
	for _, f := range forms {
		for _, how := range []string{"no token", "a forged token", "another site"} {
			var body bytes.Buffer
			contentType := "application/x-www-form-urlencoded"
			tok := map[string]string{"no token": "", "a forged token": "forged", "another site": token}[how]
			if f.form == nil {
				mw := multipart.NewWriter(&body)
				if tok != "" {
					mw.WriteField("csrf", tok)
				}
				fw, _ := mw.CreateFormFile("file", "x.opml")
				fw.Write(file)
				mw.Close()
				contentType = mw.FormDataContentType()
			} else {
				v := url.Values{}
				for k, vs := range f.form {
					v[k] = vs
				}
				if tok != "" {
					v.Set("csrf", tok)
				}
				body.WriteString(v.Encode())
			}
			req, err := http.NewRequest(http.MethodPost, e.srv.URL+f.path, &body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", contentType)
			if how == "another site" {
				req.Header.Set("Sec-Fetch-Site", "cross-site")
				req.Header.Set("Origin", "https://evil.example")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s with %s: %d, want 403", f.path, how, resp.StatusCode)
			}
			for _, ck := range resp.Cookies() {
				if ck.Name == "dynamo_tz" {
					t.Errorf("POST %s with %s set the zone cookie", f.path, how)
				}
			}
		}
	}
	list, err := e.store.Sources(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("after the forged forms: %d sources, %v; want the 3 seeded", len(list), err)
	}
	if news, err := e.store.Source(ctx, "news"); err != nil || news.Paused || news.Interval != dynamo.Duration(time.Hour) || news.URL != e.site.URL+"/news/index.html" {
		t.Errorf("news after the forged forms: %+v, %v", news, err)
	}
	// The same forms with the token are accepted: the refusals were the token's.
	resp, _ := post(t, c, e.srv.URL+"/ui/timezone", url.Values{"csrf": {token}, "tz": {"Asia/Tokyo"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the zone with its token: %d", resp.StatusCode)
	}
	if resp, _ := upload(t, c, e.srv.URL+"/ui/opml", token, "x.opml", file); resp.StatusCode != http.StatusOK {
		t.Errorf("the import with its token: %d", resp.StatusCode)
	}
}

// TestManagingNeedsTheToken checks, with an admin token configured, that
// the pages that manage sources offer no form before logging in and say
// how to log in, that each of their forms (preview, add, settings, delete,
// OPML import) is refused with 403 and changes nothing, and that after
// logging in each is accepted.
func TestManagingNeedsTheToken(t *testing.T) {
	const secret = "s3cret-token"
	e := newEnv(t, envOptions{token: secret})
	e.seedExamples(t)
	e.site.mu.Lock()
	e.site.pages["/wire.rss"] = sitePage{rssFeed("Wire", "Flash"), "application/rss+xml"}
	e.site.mu.Unlock()
	ctx := context.Background()
	c := client(t)
	for _, p := range []string{"/ui/add", "/ui/opml", "/ui/sources/news/edit", "/ui/sources/news"} {
		_, page := get(t, c, e.srv.URL+p)
		if strings.Contains(page, `action="/ui/sources"`) || strings.Contains(page, `action="/ui/opml"`) ||
			strings.Contains(page, `/settings"`) || strings.Contains(page, `/delete"`) || !strings.Contains(page, `href="/ui/login"`) {
			t.Errorf("%s before logging in offers a form, or not the login", p)
		}
	}
	_, page := get(t, c, e.srv.URL+"/ui/login")
	token := formToken(t, page)
	file := []byte(`<opml version="2.0"><body><outline text="x" type="rss" xmlUrl="` + e.site.URL + `/wire.rss"/></body></opml>`)
	forms := []struct {
		path   string
		form   url.Values // nil: the OPML upload
		status int        // after logging in
	}{
		{"/ui/add", url.Values{"url": {e.site.URL + "/wire.rss"}, "kind": {"auto"}}, http.StatusOK},
		{"/ui/sources", url.Values{"url": {e.site.URL + "/wire.rss"}, "kind": {"feed"}, "id": {"wire"}}, http.StatusSeeOther},
		{"/ui/sources/news/settings", url.Values{"url": {e.site.URL + "/news/index.html"}, "kind": {"html"}, "interval": {"2h"}}, http.StatusSeeOther},
		{"/ui/sources/blog/delete", url.Values{"purge": {"true"}}, http.StatusSeeOther},
		{"/ui/opml", nil, http.StatusOK},
	}
	send := func(path string, form url.Values) int {
		t.Helper()
		var resp *http.Response
		if form == nil {
			resp, _ = upload(t, c, e.srv.URL+path, token, "x.opml", file)
		} else {
			v := url.Values{"csrf": {token}}
			for k, vs := range form {
				v[k] = vs
			}
			resp, _ = post(t, c, e.srv.URL+path, v)
		}
		return resp.StatusCode
	}
	for _, f := range forms {
		if status := send(f.path, f.form); status != http.StatusForbidden {
			t.Errorf("POST %s before logging in: %d, want 403", f.path, status)
		}
	}
	list, _ := e.store.Sources(ctx)
	news, _ := e.store.Source(ctx, "news")
	if len(list) != 3 || news.Interval != dynamo.Duration(time.Hour) {
		t.Fatalf("the refused forms changed the store: %d sources, news every %s", len(list), news.Interval)
	}
	if resp, _ := post(t, c, e.srv.URL+"/ui/login", url.Values{"csrf": {token}, "token": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	for _, f := range forms {
		if status := send(f.path, f.form); status != f.status {
			t.Errorf("POST %s after logging in: %d, want %d", f.path, status, f.status)
		}
	}
	if _, err := e.store.Source(ctx, "wire"); err != nil {
		t.Errorf("the source added after logging in: %v", err)
	}
	if news, _ := e.store.Source(ctx, "news"); news.Interval != dynamo.Duration(2*time.Hour) {
		t.Errorf("news after the settings form: every %s", news.Interval)
	}
	if _, err := e.store.Source(ctx, "blog"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("blog after deleting it: %v", err)
	}
}
