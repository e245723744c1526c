package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// TestSettingsForms adds a source with the sources page's form and changes
// it with its page's settings form; refusals are the domain's, shown with
// a 400 and changing nothing.
func TestSettingsForms(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := context.Background()
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/")
	for _, name := range dynamo.ConfigFields() {
		if !strings.Contains(page, `name="`+name+`"`) {
			t.Errorf("the form to add a source has no field %s", name)
		}
	}
	token := formToken(t, page)
	seeded, _ := e.store.Sources(ctx)
	add := url.Values{"csrf": {token}, "id": {"copy"}, "url": {e.site.URL + "/news/index.html"}, "kind": {"html"},
		"interval": {"15m"}, "policy": {"flat"}, "category": {"town"}, "title_prefix": {"NEWS: "},
		"subscribers": {"3"}, "timezone": {"Europe/Paris"}, "paused": {"true"}}
	resp, body := post(t, c, e.srv.URL+"/ui/sources", add)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/sources/copy" {
		t.Fatalf("add: %d to %q\n%.1000s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	want := dynamo.Source{ID: "copy", URL: e.site.URL + "/news/index.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(15 * time.Minute),
		Policy: "flat", Category: "town", TitlePrefix: "NEWS: ", Subscribers: 3, Timezone: "Europe/Paris", Paused: true}
	src, err := e.store.Source(ctx, "copy")
	if err != nil {
		t.Fatal(err)
	}
	if got := configOf(src); !reflect.DeepEqual(got, want) {
		t.Errorf("added %+v, want %+v", got, want)
	}
	if _, page := get(t, c, e.srv.URL+"/ui/sources/copy"); !strings.Contains(page, `action="/ui/sources/copy/settings"`) || !strings.Contains(page, `value="NEWS: "`) {
		t.Error("the source's page has no settings form showing its settings")
	}

	// Without an id, one is derived from the URL, as the API derives it.
	resp, _ = post(t, c, e.srv.URL+"/ui/sources", url.Values{"csrf": {token}, "url": {e.site.URL + "/blog/index.html"}, "kind": {"html"}, "interval": {"1h"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/sources/127.0.0.1-blog-index.html" {
		t.Errorf("add without an id: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	change := url.Values{"csrf": {token}, "interval": {"2h"}, "policy": {""}, "paused": {"false"}, "back": {"source"}}
	resp, body = post(t, c, e.srv.URL+"/ui/sources/copy/settings", change)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/sources/copy" {
		t.Fatalf("change: %d to %q\n%.1000s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	want.Interval, want.Policy, want.Paused = dynamo.Duration(2*time.Hour), "", false
	if src, _ := e.store.Source(ctx, "copy"); !reflect.DeepEqual(configOf(src), want) {
		t.Errorf("changed %+v, want %+v", configOf(src), want)
	}

	for _, tc := range []struct {
		path    string
		form    url.Values
		status  int
		mention string
	}{
		{"/ui/sources", url.Values{"id": {"a/../b"}, "url": {"http://example.org/"}}, 400, `id &#34;a/../b&#34; must be 1 to 64`},
		{"/ui/sources", url.Values{"url": {"ftp://example.org/feed"}}, 400, "must be an absolute http or https URL"},
		{"/ui/sources", url.Values{"id": {"x"}, "url": {"http://example.org/"}, "policy": {"bogus"}}, 400, `policy &#34;bogus&#34; is unknown`},
		{"/ui/sources", url.Values{"id": {"copy"}, "url": {"http://example.org/"}, "kind": {"feed"}}, 409, "exists"},
		{"/ui/sources", url.Values{"id": {"x"}, "url": {"http://example.org/"}, "subscribers": {"many"}}, 400, "is not a whole number"},
		{"/ui/sources/copy/settings", url.Values{"timezone": {"Mars/Olympus"}}, 400, `timezone &#34;Mars/Olympus&#34; is not an IANA time zone`},
		{"/ui/sources/copy/settings", url.Values{"interval": {"1s"}}, 400, "interval 1s must be from 10s to 30d"},
		{"/ui/sources/ghost/settings", url.Values{"interval": {"1h"}}, 404, "There is no active source"},
	} {
		tc.form.Set("csrf", token)
		resp, body := post(t, c, e.srv.URL+tc.path, tc.form)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.mention) {
			t.Errorf("%s %v: %d, want %d saying %q\n%.600s", tc.path, tc.form, resp.StatusCode, tc.status, tc.mention, body)
		}
	}
	if src, _ := e.store.Source(ctx, "copy"); !reflect.DeepEqual(configOf(src), want) {
		t.Errorf("a refused change changed the source: %+v", configOf(src))
	}
	if list, _ := e.store.Sources(ctx); len(list) != len(seeded)+2 {
		t.Errorf("%d sources, want the %d seeded and the two added", len(list), len(seeded))
	}
}

// configOf is a source's configuration alone.
func configOf(s *dynamo.Source) dynamo.Source {
	return dynamo.Source{ID: s.ID, URL: s.URL, Kind: s.Kind, Interval: s.Interval, Policy: s.Policy, Category: s.Category,
		TitlePrefix: s.TitlePrefix, Subscribers: s.Subscribers, Timezone: s.Timezone, Paused: s.Paused}
}
