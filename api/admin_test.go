package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/transform"
)

func TestCreateSourceValidation(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		e.addSource("taken", "/taken.html")
		cases := []struct {
			name, body string
			status     int
			mention    string
		}{
			{"not JSON", `{"url":`, 400, "not a valid JSON object"},
			{"an array", `[]`, 400, "not a valid JSON object"},
			{"two objects", `{"url":"http://example.org/"} {}`, 400, "one JSON object"},
			{"unknown field", `{"url":"http://example.org/","intervall":"1h"}`, 400, `unknown field "intervall"`},
			{"read-only field", `{"url":"http://example.org/","state":{}}`, 400, `unknown field "state"`},
			{"no url", `{"id":"x"}`, 400, "url is required"},
			{"relative url", `{"url":"/news.html"}`, 400, "absolute http or https URL"},
			{"ftp url", `{"url":"ftp://example.org/x"}`, 400, "absolute http or https URL"},
			{"unknown kind", `{"url":"http://example.org/","kind":"rss"}`, 400, `kind "rss" is unknown: want auto, html, feed or selectors`},
			{"bad interval", `{"url":"http://example.org/","interval":"soon"}`, 400, "want e.g. 90s, 15m, 2h"},
			{"interval too short", `{"url":"http://example.org/","interval":"1s"}`, 400, "interval 1s must be from 10s to 30d"},
			{"interval too long", `{"url":"http://example.org/","interval":"90d"}`, 400, "must be from 10s to 30d"},
			{"bad timezone", `{"url":"http://example.org/","timezone":"Mars/Olympus"}`, 400, `timezone "Mars/Olympus" is not an IANA time zone`},
			{"unknown policy", `{"url":"http://example.org/","policy":"fastest"}`, 400, `policy "fastest" is unknown: want one of flat, smart`},
			{"negative subscribers", `{"url":"http://example.org/","subscribers":-1}`, 400, "subscribers must be 0 or more"},
			{"bad id", `{"id":"../etc","url":"http://example.org/"}`, 400, `id "../etc" must be 1 to 64`},
			{"wrong type", `{"url":42}`, 400, "not a valid JSON object"},
			{"duplicate id", `{"id":"taken","url":"http://example.org/"}`, 409, `a source with id "taken" exists`},
			{"huge body", `{"url":"http://example.org/","category":"` + strings.Repeat("c", 70000) + `"}`, 400, "at most 65536 bytes"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/api/sources", []byte(tc.body)).must(t, tc.status, tc.body[:min(len(tc.body), 60)])
				var body struct{ Error string }
				if err := json.Unmarshal(r.body, &body); err != nil || !strings.Contains(body.Error, tc.mention) {
					t.Errorf("error %s (%v), want one saying %q", r.body, err, tc.mention)
				}
			})
		}
		// A body another site's page could send without a CORS preflight.
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			r := e.do(http.MethodPost, "/api/sources", []byte(`{"url":"http://example.org/other"}`), "Content-Type", ct).must(t, 400, "Content-Type "+ct)
			if !strings.Contains(string(r.body), "Content-Type: application/json") {
				t.Errorf("Content-Type %q: %s, want an error naming the type to send", ct, r.body)
			}
		}
		var list struct{ Sources []dynamo.Source }
		e.getJSON("/api/sources", &list)
		if len(list.Sources) != 1 {
			t.Errorf("%d sources after the refused requests, want the one created", len(list.Sources))
		}
	})
}

func TestSourceLifecycle(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		// Only url is required: the id comes from it, the rest defaults.
		r := e.do(http.MethodPost, "/api/sources", []byte(`{"url":"https://www.example.org/Town/News.html"}`)).must(t, 201, "minimal create")
		var created dynamo.Source
		json.Unmarshal(r.body, &created)
		if created.ID != "example.org-town-news.html" || created.Kind != dynamo.KindAuto || created.Interval.String() != "1h" {
			t.Errorf("minimal source %+v, want id example.org-town-news.html, kind auto, interval 1h", created)
		}
		if loc := r.header.Get("Location"); loc != "/api/sources/example.org-town-news.html" {
			t.Errorf("Location %q", loc)
		}

		var got struct {
			dynamo.Source
			Schedule policy.Summary        `json:"schedule"`
			Polls    []dynamo.PollLogEntry `json:"polls"`
		}
		e.getJSON("/api/sources/news", &got)
		if got.Summary.Versions != 2 || len(got.Polls) != 3 || got.Category != "local" {
			t.Errorf("news: %d versions, %d polls, category %q; want 2, 3, local", got.Summary.Versions, len(got.Polls), got.Category)
		}
		// This test records polls without the poller, so nothing was learnt:
		// smart's τ is still the source's interval (the default hour).
		if got.Schedule.Tau != 3600 || got.Schedule.Polls != 0 {
			t.Errorf("news schedule %+v: want the fresh state's τ of 3600 s and no poll learnt from", got.Schedule)
		}

		_, entries := parseFeed(t, e.get("/aggregate?category=town").must(t, 200, "aggregate").body, transform.RSS2)
		if len(entries) != 0 {
			t.Fatalf("category town has %d items before any source is in it", len(entries))
		}
		r = e.do(http.MethodPatch, "/api/sources/news", []byte(`{"interval":"15m","category":"town","paused":true}`)).must(t, 200, "patch")
		_, entries = parseFeed(t, e.get("/aggregate?category=town").must(t, 200, "aggregate").body, transform.RSS2)
		if len(entries) != 4 {
			t.Errorf("category town has %d items after news moved in, want 4", len(entries))
		}
		var patched dynamo.Source
		json.Unmarshal(r.body, &patched)
		if patched.Interval.String() != "15m" || patched.Category != "town" || !patched.Paused || patched.URL != e.origin.URL+"/news.html" {
			t.Errorf("patched %+v: want interval 15m, category town, paused, URL kept", patched)
		}
		e.do(http.MethodPatch, "/api/sources/news", []byte(`{"id":"other"}`)).must(t, 400, "patch id")
		e.do(http.MethodPatch, "/api/sources/news", []byte(`{"kind":"nope"}`)).must(t, 400, "patch kind")
		e.do(http.MethodPatch, "/api/sources/nope", []byte(`{"paused":true}`)).must(t, 404, "patch unknown")
		e.do(http.MethodPut, "/api/sources/news", []byte(`{"category":"x"}`)).must(t, 400, "put without url")
		r = e.do(http.MethodPut, "/api/sources/news", []byte(`{"url":"`+e.origin.URL+`/news.html","kind":"html"}`)).must(t, 200, "put")
		var put dynamo.Source
		json.Unmarshal(r.body, &put)
		if put.Category != "" || put.Paused || put.Interval.String() != "1h" {
			t.Errorf("PUT kept fields it should reset: %+v", put)
		}
		// Answers built from the configuration see a change at once.
		_, entries = parseFeed(t, e.get("/aggregate?category=town").must(t, 200, "aggregate").body, transform.RSS2)
		if len(entries) != 0 {
			t.Errorf("the aggregate of the category the source left still shows %d items", len(entries))
		}

		e.do(http.MethodDelete, "/api/sources/news?purge=maybe", nil).must(t, 400, "bad purge")
		e.do(http.MethodDelete, "/api/sources/news", nil).must(t, 204, "delete")
		e.get("/api/sources/news").must(t, 200, "a removed source with its archive is still readable")
		var list struct{ Sources []dynamo.Source }
		e.getJSON("/api/sources", &list)
		for _, s := range list.Sources {
			if s.ID == "news" {
				t.Error("the removed source is still listed as active")
			}
		}
		_, entries = parseFeed(t, e.get("/resources/news?max=10").must(t, 200, "archive after delete").body, transform.RSS2)
		if len(entries) != 4 {
			t.Errorf("the kept archive shows %d items, want 4", len(entries))
		}
		e.do(http.MethodPost, "/api/sources/news/poll", nil).must(t, 404, "poll a removed source")
		e.do(http.MethodDelete, "/api/sources/news?purge=true", nil).must(t, 204, "purge")
		e.get("/resources/news").must(t, 404, "purged archive")
		e.get("/api/sources/news").must(t, 404, "purged source")
		e.do(http.MethodDelete, "/api/sources/news", nil).must(t, 404, "delete again")
	})
}

func TestPollNowOutcomes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		e.addSource("gone", "/missing.html")
		out := e.poll("gone")
		if out.Status != dynamo.StatusError || !strings.Contains(out.Error, "404") {
			t.Errorf("polling a missing page: %+v, want status error naming the 404", out)
		}
		e.do(http.MethodPost, "/api/sources/nope/poll", nil).must(t, 404, "poll unknown")
		// Another poller holding the lease makes poll-now a conflict.
		if _, err := e.store.LeaseSource(t.Context(), "gone", "someone-else", time.Now(), 3*time.Minute); err != nil {
			t.Fatal(err)
		}
		e.do(http.MethodPost, "/api/sources/gone/poll", nil).must(t, 409, "poll a leased source")
	})
}

func TestPolicySwitch(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		var st struct {
			Policy   string
			Policies []string
		}
		e.getJSON("/api/poller", &st)
		if st.Policy != "flat" || len(st.Policies) != 2 {
			t.Fatalf("poller %+v", st)
		}
		r := e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"smart"}`)).must(t, 200, "switch")
		json.Unmarshal(r.body, &st)
		if st.Policy != "smart" || e.poller.Policy() != "smart" {
			t.Errorf("after the switch: answer %q, poller %q", st.Policy, e.poller.Policy())
		}
		if v, err := e.store.Setting(t.Context(), "poller.policy"); err != nil || v != "smart" {
			t.Errorf("the shared setting is %q (%v), want smart", v, err)
		}
		e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"fastest"}`)).must(t, 400, "unknown policy")
		e.do(http.MethodPut, "/api/poller", []byte(`{"budget":3}`)).must(t, 400, "unknown field")
		e.do(http.MethodPut, "/api/poller", []byte(`{}`)).must(t, 400, "no policy")
	})
}

func TestStats(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		var st struct {
			dynamo.Stats
			Cache struct {
				Enabled bool
				Entries int
			}
		}
		// PostgreSQL delivers the setup polls' change notifications
		// asynchronously: one that arrives after the fill rightly drops the
		// entry, so the fill is repeated until the notifications are in.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			e.get("/resources/news?max=2").must(t, 200, "fill the cache")
			e.getJSON("/api/stats", &st)
			if st.Cache.Enabled && st.Cache.Entries == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("cache %+v, want enabled with one entry", st.Cache)
				break
			}
		}
		if st.Sources != 1 || st.Versions != 2 || st.Items != 4 || st.Polls["changed"] != 2 || st.Polls["unchanged"] != 1 {
			t.Errorf("stats %+v, want 1 source, 2 versions, 4 items, 2 changed and 1 unchanged polls", st.Stats)
		}
	})
}

func TestWrapPlayground(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	page, err := examples.Read("sloppy.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range transform.Formats() {
		t.Run(string(f), func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/wrap?base=http://example.org/club/news.htm&type="+string(f)+"&timezone=America/Chicago", page,
				"Content-Type", "text/html").must(t, 200, "wrap")
			var ans struct {
				XMLData     string           `json:"xmldata"`
				Feed        string           `json:"feed"`
				ContentType string           `json:"content_type"`
				Warnings    []dynamo.Warning `json:"warnings"`
				Annotations []struct {
					Name string `json:"name"`
					Line int    `json:"line"`
				} `json:"annotations"`
				Items int `json:"items"`
			}
			if err := json.Unmarshal(r.body, &ans); err != nil {
				t.Fatal(err)
			}
			verify.XMLData(t, []byte(ans.XMLData))
			if _, entries := parseFeed(t, []byte(ans.Feed), f); len(entries) != ans.Items || ans.Items == 0 {
				t.Errorf("feed has %d entries, answer says %d items", len(entries), ans.Items)
			}
			if len(ans.Warnings) == 0 || len(ans.Annotations) == 0 || ans.ContentType != f.ContentType() {
				t.Errorf("sloppy page: %d warnings, %d annotations, content type %q", len(ans.Warnings), len(ans.Annotations), ans.ContentType)
			}
		})
	}
	for _, tc := range []struct{ query, mention string }{
		{"type=pdf", "type must be one of"},
		{"base=javascript:alert(1)", "base"},
		{"timezone=Nowhere", "timezone"},
		{"colour=red", "unknown parameter"},
	} {
		r := e.do(http.MethodPost, "/api/wrap?"+tc.query, page, "Content-Type", "text/html").must(t, 400, tc.query)
		if !strings.Contains(string(r.body), tc.mention) {
			t.Errorf("%s: %s, want a message about %s", tc.query, r.body, tc.mention)
		}
	}
	e.do(http.MethodPost, "/api/wrap", bytes.Repeat([]byte("x"), dynamo.MaxAnnotatedPageBytes+1), "Content-Type", "text/html").must(t, 400, "huge page")
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	store := stores[0].open(t)
	t.Run("token", func(t *testing.T) {
		e := newEnv(t, store, withToken("s3cret"))
		body := []byte(`{"id":"a","url":"http://example.org/a"}`)
		for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}, {"Authorization", "Basic s3cret"}} {
			r := e.do(http.MethodPost, "/api/sources", body, h...).must(t, http.StatusUnauthorized, "create with "+strings.Join(h, ": "))
			if r.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		}
		e.do(http.MethodPost, "/api/sources", body, "Authorization", "Bearer s3cret").must(t, http.StatusCreated, "create with the token")
		e.do(http.MethodDelete, "/api/sources/a", nil).must(t, http.StatusUnauthorized, "delete without the token")
		e.do(http.MethodPut, "/api/poller", []byte(`{"policy":"smart"}`)).must(t, http.StatusUnauthorized, "switch policy without the token")
		// Reads stay public.
		e.get("/api/sources/a").must(t, http.StatusOK, "read without the token")
		e.get("/resources/a").must(t, http.StatusOK, "feed without the token")
	})
	// Local clients are accepted over real loopback: access_test.go.
	t.Run("remote clients refused", func(t *testing.T) {
		srv, err := api.New(api.Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			remote, forwarded string
			status            int
		}{
			{"203.0.113.7:5000", "", http.StatusForbidden},
			{"127.0.0.1:5000", "203.0.113.7", http.StatusForbidden},
			{"203.0.113.7:5000", "127.0.0.1", http.StatusForbidden},
			{"[2001:db8::1]:5000", "", http.StatusForbidden},
		} {
			store.CreateSource(t.Context(), &dynamo.Source{ID: "b", URL: "http://example.org/b", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval})
			req := httptest.NewRequest(http.MethodDelete, "/api/sources/b", nil)
			req.RemoteAddr = tc.remote
			if tc.forwarded != "" {
				req.Header.Set("X-Forwarded-For", tc.forwarded)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("DELETE from %s (forwarded for %q): %d, want %d", tc.remote, tc.forwarded, rec.Code, tc.status)
			}
		}
	})
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	r := e.get("/healthz").must(t, 200, "healthz")
	if want := "ok\ndynamo " + buildinfo.Read().String() + "\n"; string(r.body) != want {
		t.Errorf("healthz says %q, want %q", r.body, want)
	}
	e.get("/resources/news?max=1").must(t, 200, "read")
	e.get("/resources/news?max=1").must(t, 200, "read again")
	e.get("/resources/news?max=x").must(t, 400, "bad read")
	body := string(e.get("/metrics").must(t, 200, "metrics").body)
	for _, want := range []string{
		`dynamo_polls_total{status="changed"} 2`,
		`dynamo_polls_total{status="unchanged"} 1`,
		`dynamo_versions_stored_total 2`,
		`dynamo_http_requests_total{code="200",route="/resources/{rssId}"} 2`,
		`dynamo_http_requests_total{code="400",route="/resources/{rssId}"} 1`,
		`dynamo_cache_lookups_total{result="hit"} 1`,
		`dynamo_poll_duration_seconds_count{status="changed"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	e.store.Close()
	e.get("/healthz").must(t, http.StatusServiceUnavailable, "healthz with the store closed")
}

// GET /api/sources/{id} says the warnings of the page read last, with
// their lines.
func TestSourceWarnings(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		ctx := context.Background()
		src := &dynamo.Source{ID: "w", URL: "http://127.0.0.1/w", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}
		if err := e.store.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Warnings []dynamo.Warning `json:"warnings"`
		}
		e.getJSON("/api/sources/w", &got)
		if got.Warnings == nil || len(got.Warnings) != 0 {
			t.Errorf("warnings of a source never polled: %v, want []", got.Warnings)
		}
		now := time.Now()
		if _, err := e.store.LeaseSource(ctx, "w", "p", now, time.Minute); err != nil {
			t.Fatal(err)
		}
		want := []dynamo.Warning{{Line: 7, Message: "unknown annotation <item:titel> ignored; did you mean <item:title>?"}}
		_, err := e.store.RecordPoll(ctx, dynamo.PollRecord{SourceID: "w", Owner: "p", At: now}, func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: now, NextPoll: now.Add(time.Hour), LastStatus: dynamo.StatusUnchanged, Warnings: want},
				Log: dynamo.PollLogEntry{At: now, Status: dynamo.StatusUnchanged}}
		})
		if err != nil {
			t.Fatal(err)
		}
		e.getJSON("/api/sources/w", &got)
		if !reflect.DeepEqual(got.Warnings, want) {
			t.Errorf("warnings %v, want %v", got.Warnings, want)
		}
	})
}
