package web_test

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/web"
)

// A page on evil.example, its name rebound to 127.0.0.1, posts the global
// policy form as a same-origin request. Without an admin token, the page
// it reads must offer no action, and its post must be refused even with a
// valid form token (here lent from the operator's own tab); the same form
// from 127.0.0.1 passes.
func TestUIDNSRebindingIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	addr := e.srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr) // evil.example resolves to Dynamo
		}}}
	own, evil := "http://127.0.0.1:"+port, "http://evil.example:"+port
	_, page := get(t, c, own+"/ui/")
	token := formToken(t, page)
	ownURL, _ := url.Parse(own + "/ui/")
	evilURL, _ := url.Parse(evil + "/ui/")
	jar.SetCookies(evilURL, jar.Cookies(ownURL))
	if _, page := get(t, c, evil+"/ui/"); strings.Contains(page, `action="/ui/policy"`) {
		t.Error("the rebinding page is offered the policy form")
	}
	for _, origin := range []string{evil, own} {
		form := url.Values{"csrf": {token}, "policy": {"flat"}}
		req, _ := http.NewRequest(http.MethodPost, origin+"/ui/policy", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := http.StatusSeeOther
		if origin == evil {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Errorf("POST /ui/policy from %s: %d, want %d\n%s", origin, resp.StatusCode, want, body)
		}
		if got := e.poller.Policy(); (got == "flat") != (want == http.StatusSeeOther) {
			t.Errorf("after POST /ui/policy from %s the policy is %s", origin, got)
		}
	}
}

// login logs c in with the token and returns the session cookie's value.
func login(t *testing.T, c *http.Client, base, token string) *http.Response {
	t.Helper()
	_, page := get(t, c, base+"/ui/login")
	resp, _ := post(t, c, base+"/ui/login", url.Values{"csrf": {formToken(t, page)}, "token": {token}})
	return resp
}

// Logging out revokes the session on the server: the cookie, replayed
// afterwards (as a thief who copied it would), no longer acts.
func TestLogoutRevokesTheSession(t *testing.T) {
	const secret = "s3cret-s3cret-s3cret"
	e := newEnv(t, envOptions{token: secret})
	e.seedExamples(t)
	c := client(t)
	if resp := login(t, c, e.srv.URL, secret); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	base, _ := url.Parse(e.srv.URL + "/ui/")
	stolen := c.Jar.Cookies(base) // the session and the anti-forgery nonce
	_, page := get(t, c, e.srv.URL+"/ui/")
	token := formToken(t, page)
	if resp, _ := post(t, c, e.srv.URL+"/ui/logout", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	thief := client(t)
	thief.Jar.SetCookies(base, stolen)
	resp, body := post(t, thief, e.srv.URL+"/ui/sources/news/pause", url.Values{"csrf": {token}, "paused": {"true"}})
	if src, _ := e.store.Source(t.Context(), "news"); resp.StatusCode != http.StatusForbidden || src.Paused {
		t.Errorf("the session cookie replayed after logout: %d, paused %v\n%s", resp.StatusCode, src.Paused, body)
	}
	// A new login works again, and another web server on the same store
	// (another process) also refuses the revoked cookie.
	if resp := login(t, c, e.srv.URL, secret); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login again: %d", resp.StatusCode)
	}
	// Revocations of sessions that have ended are deleted at a login or a
	// logout; those of live sessions stay.
	revoked, err := e.store.SettingsWithPrefix(t.Context(), "web.session.revoked.")
	if err != nil || len(revoked) != 1 {
		t.Fatalf("revocations after one logout: %v, %v; want 1", revoked, err)
	}
	ended := strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)
	for _, key := range []string{"web.session.revoked.ended1", "web.session.revoked.ended2"} {
		if err := e.store.PutSetting(t.Context(), key, ended); err != nil {
			t.Fatal(err)
		}
	}
	if resp := login(t, c, e.srv.URL, secret); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login a third time: %d", resp.StatusCode)
	}
	after, err := e.store.SettingsWithPrefix(t.Context(), "web.session.revoked.")
	if err != nil || !maps.Equal(after, revoked) {
		t.Errorf("revocations after a login = %v, %v; want the live one only, %v", after, err, revoked)
	}
	other, err := web.New(web.Config{Store: e.store, AdminToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(other)
	defer srv.Close()
	base2, _ := url.Parse(srv.URL + "/ui/")
	thief2 := client(t)
	thief2.Jar.SetCookies(base2, stolen)
	if _, page := get(t, thief2, srv.URL+"/ui/"); strings.Contains(page, `action="/ui/sources/news/pause"`) {
		t.Error("another process accepts the revoked session")
	}
}

// The session cookie is Secure when the public URL is https or a trusted
// proxy says the browser spoke https, and not for a forged header.
func TestSessionCookieSecure(t *testing.T) {
	const secret = "s3cret-s3cret-s3cret"
	for _, tc := range []struct {
		name   string
		opts   envOptions
		header string
		secure bool
	}{
		{"plain http", envOptions{token: secret}, "", false},
		{"https public URL", envOptions{token: secret, publicURL: "https://feeds.example.org"}, "", true},
		{"trusted proxy says https", envOptions{token: secret, proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, "https", true},
		{"untrusted header says https", envOptions{token: secret}, "https", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{token: tc.opts.token, publicURL: tc.opts.publicURL, proxies: tc.opts.proxies})
			c := client(t)
			_, page := get(t, c, e.srv.URL+"/ui/login")
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/ui/login", strings.NewReader(url.Values{"csrf": {formToken(t, page)}, "token": {secret}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.header != "" {
				req.Header.Set("X-Forwarded-Proto", tc.header)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var session *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == "dynamo_session" {
					session = ck
				}
			}
			if session == nil {
				t.Fatalf("no session cookie (status %d)", resp.StatusCode)
			}
			if session.Secure != tc.secure {
				t.Errorf("Secure = %v, want %v", session.Secure, tc.secure)
			}
		})
	}
}

// Guessing the token on the login form: after ten wrong tokens the client
// is answered 429 with Retry-After, even with the right one.
func TestLoginGuessesAreLimited(t *testing.T) {
	const secret = "s3cret-s3cret-s3cret"
	e := newEnv(t, envOptions{token: secret})
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/login")
	csrf := formToken(t, page)
	statuses := map[int]int{}
	for i := range 15 {
		resp, _ := post(t, c, e.srv.URL+"/ui/login", url.Values{"csrf": {csrf}, "token": {"guess-" + strconv.Itoa(i)}})
		statuses[resp.StatusCode]++
	}
	if statuses[http.StatusUnauthorized] != 10 || statuses[http.StatusTooManyRequests] != 5 {
		t.Errorf("15 wrong logins answered %v, want 10 × 401 then 5 × 429", statuses)
	}
	if resp := login(t, c, e.srv.URL, secret); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the right token while throttled: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
