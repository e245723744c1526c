package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/auth"
)

// Cookie names. Every cookie is HttpOnly and SameSite=Strict, limited to
// Prefix, and Secure when the public URL is https or the request came over
// TLS (directly or, as a trusted proxy says, through it).
const (
	sessionCookie = "dynamo_session" // proof of the admin token, from /ui/login
	csrfCookie    = "dynamo_csrf"    // the browser's nonce that form tokens are bound to
	flashCookie   = "dynamo_flash"   // the outcome of the last action, shown once
)

// sessionTTL is how long a login lasts.
const sessionTTL = 12 * time.Hour

// authView tells a template whether to offer actions, and if not, why.
type authView struct {
	Authorized bool // actions will be accepted
	Token      bool // an admin token is configured (so logging in helps)
	Session    bool // logged in with the token
}

func (h *Server) authView(r *http.Request) authView {
	return authView{
		Authorized: h.authorized(r),
		Token:      h.cfg.AdminToken != "",
		Session:    h.cfg.AdminToken != "" && h.validSession(r),
	}
}

// authorized applies the admin API's rule (auth.Access): with a token
// configured, the request must prove it, here also with the login cookie
// or a "token" form field; without one, it must be local.
func (h *Server) authorized(r *http.Request) bool {
	return h.access.Authorized(r, h.validSession, h.formProof)
}

// check is authorized for an action, with the limit on guesses applied to
// a bearer token or a "token" form field (auth.Access.Check): a positive
// wait means the client must wait before its token is compared again.
func (h *Server) check(r *http.Request) (bool, time.Duration) {
	formToken := r.PostFormValue("token") != "" && h.cfg.AdminToken != ""
	if formToken {
		if wait := h.access.Throttled(r); wait > 0 {
			return false, wait
		}
	}
	ok, wait := h.access.Check(r, h.validSession, h.formProof)
	if !ok && wait == 0 && formToken && !auth.Matches(h.cfg.AdminToken, r.PostFormValue("token")) {
		h.access.Failed(r, "form token")
	}
	return ok, wait
}

// formProof reports whether a posted form carries the admin token.
func (h *Server) formProof(r *http.Request) bool {
	return r.Method == http.MethodPost && auth.Matches(h.cfg.AdminToken, r.PostFormValue("token"))
}

// Operator reports whether r comes from an operator, by the rule of
// authorized less the form field (reading it would consume the body): the
// process reads such a request's state from the primary (read-your-writes,
// dynamo.WithLatestReads).
func (h *Server) Operator(r *http.Request) bool {
	return h.access.Authorized(r, h.validSession)
}

// bearer reports whether the request carries the admin token in its header:
// such a request is not a browser's ambient credential, so it needs no
// anti-forgery token.
func (h *Server) bearer(r *http.Request) bool { return h.access.HasBearer(r) }

// sessionValue is "expiry.id.mac", id random and the mac keyed by the
// admin token: every process that shares the token accepts it, changing
// the token ends every session, and logging out revokes its id in the
// store (revokedPrefix), for every process. It reveals nothing of the
// token.
func (h *Server) sessionValue(expires time.Time) string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	exp, id := strconv.FormatInt(expires.Unix(), 10), hex.EncodeToString(b)
	return exp + "." + id + "." + h.mac([]byte(h.cfg.AdminToken), "session|"+exp+"|"+id)
}

// revokedPrefix keys the store's settings that revoke a session id: one
// per logout, its value the session's expiry.
const revokedPrefix = "web.session.revoked."

// session reads the request's session cookie: its id and expiry when it is
// well formed, signed with the admin token and not expired. It does not
// look at revocations (validSession does).
func (h *Server) session(r *http.Request) (id, exp string, ok bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || h.cfg.AdminToken == "" {
		return "", "", false
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 || len(parts[1]) != 32 {
		return "", "", false
	}
	unix, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || expired(unix, time.Now()) {
		return "", "", false
	}
	want := h.mac([]byte(h.cfg.AdminToken), "session|"+parts[0]+"|"+parts[1])
	return parts[1], parts[0], hmac.Equal([]byte(parts[2]), []byte(want))
}

// expired reports whether a session that ends at unix (seconds) has ended
// by now: its cookie is refused, and its revocation is no longer needed.
func expired(unix int64, now time.Time) bool { return now.Unix() > unix }

// pruneRevocations deletes the revocations of sessions that have ended,
// whose cookies session refuses for their expiry alone. It runs at every
// login and logout, so the revocations kept are about those of the logouts
// of the last sessionTTL. A revocation whose expiry does not read is kept;
// a failure is logged, and the next login or logout tries again.
func (h *Server) pruneRevocations(ctx context.Context) {
	revoked, err := h.cfg.Store.SettingsWithPrefix(ctx, revokedPrefix)
	if err != nil {
		h.log.Warn("web: ended sessions' revocations not deleted", "err", err)
		return
	}
	now := time.Now()
	for key, exp := range revoked {
		unix, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || !expired(unix, now) {
			continue
		}
		if err := h.cfg.Store.DeleteSetting(ctx, key); err != nil {
			h.log.Warn("web: an ended session's revocation not deleted", "key", key, "err", err)
			return
		}
	}
}

// validSession reports whether the request's session cookie is valid and
// not revoked. A store that does not answer counts as revoked.
func (h *Server) validSession(r *http.Request) bool {
	id, _, ok := h.session(r)
	if !ok {
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	_, err := h.cfg.Store.Setting(ctx, revokedPrefix+id)
	if errors.Is(err, dynamo.ErrNotFound) {
		return true
	}
	if err != nil {
		h.log.Warn("web: session revocation unreadable; the session is refused", "err", err)
	}
	return false
}

func (h *Server) mac(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// csrfKey derives the forms' signing key from the admin token, or nil when
// there is none (New then draws a random key for the process).
func csrfKey(adminToken string) []byte {
	if adminToken == "" {
		return nil
	}
	k := sha256.Sum256([]byte("dynamo web csrf|" + adminToken))
	return k[:]
}

// csrfToken returns the token for the page's forms: a mac of the browser's
// nonce cookie, which is set here when missing. A forged form on another
// site can neither read the cookie nor compute the mac.
func (h *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	nonce := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 32 {
		nonce = c.Value
	} else if !strings.HasPrefix(r.URL.Path, Prefix) {
		// The cookie is not sent outside Prefix: minting one for a page
		// there (a 404 for /favicon.ico) would replace the browser's.
		return ""
	} else {
		b := make([]byte, 16)
		rand.Read(b) // never fails (crypto/rand)
		nonce = hex.EncodeToString(b)
		h.setCookie(w, r, csrfCookie, nonce, 0)
		// The form posted with this page must match the nonce now
		// sent, not the missing one.
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: nonce})
	}
	return h.mac(h.csrfKey, "csrf|"+nonce)
}

// checkCSRF reports whether a posted form carries the token of the
// browser's nonce.
func (h *Server) checkCSRF(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) != 32 {
		return false
	}
	want := h.mac(h.csrfKey, "csrf|"+c.Value)
	return hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(want))
}

// setCookie sets one of the interface's cookies; maxAge 0 makes a session
// cookie and a negative one deletes it.
func (h *Server) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     Prefix,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   h.access.SecureCookies(r),
		SameSite: http.SameSiteStrictMode,
	})
}

// setFlash keeps a message for the next page the browser loads.
func (h *Server) setFlash(w http.ResponseWriter, r *http.Request, msg string) {
	h.setCookie(w, r, flashCookie, base64.RawURLEncoding.EncodeToString([]byte(msg)), 60)
}

// takeFlash returns the message kept for this page and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	msg, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(msg) > 1024 {
		return ""
	}
	return string(msg)
}

// loginPage offers the admin token form.
func (h *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "login.html", view{Title: "Log in", Section: "login", Data: loginData{}})
}

type loginData struct {
	Error string
}

// loginSubmit checks the token and, when it is right, sets the session
// cookie that authorizes this browser's actions.
func (h *Server) loginSubmit(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if !h.checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, csrfMessage)
		return
	}
	if h.cfg.AdminToken == "" {
		h.render(w, r, http.StatusBadRequest, "login.html", view{Title: "Log in", Section: "login", Data: loginData{
			Error: "No admin token is configured, so there is nothing to log in with: actions are accepted from loopback clients only.",
		}})
		return
	}
	if wait := h.access.Throttled(r); wait > 0 {
		auth.RetryAfter(w, wait)
		h.render(w, r, http.StatusTooManyRequests, "login.html", view{Title: "Log in", Section: "login", Data: loginData{
			Error: fmt.Sprintf("Too many wrong tokens from this address: wait %s before trying again.", wait.Round(time.Second)),
		}})
		return
	}
	if !auth.Matches(h.cfg.AdminToken, r.PostFormValue("token")) {
		h.access.Failed(r, "login")
		h.render(w, r, http.StatusUnauthorized, "login.html", view{Title: "Log in", Section: "login", Data: loginData{
			Error: "That is not the admin token (DYNAMO_ADMIN_TOKEN).",
		}})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	h.pruneRevocations(ctx)
	h.setCookie(w, r, sessionCookie, h.sessionValue(time.Now().Add(sessionTTL)), int(sessionTTL/time.Second))
	h.setFlash(w, r, "Logged in: actions are enabled for 12 hours in this browser.")
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// logout revokes the session in the store, so that its cookie, replayed,
// no longer acts in any process, and deletes the cookie.
func (h *Server) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if !h.checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, csrfMessage)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if id, exp, ok := h.session(r); ok {
		if err := h.cfg.Store.PutSetting(ctx, revokedPrefix+id, exp); err != nil {
			h.storeFailed(w, r, "revoking the session", err)
			return
		}
	}
	h.pruneRevocations(ctx)
	h.setCookie(w, r, sessionCookie, "", -1)
	h.setFlash(w, r, "Logged out.")
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

const csrfMessage = "This form has expired or was sent from another site. Reload the page and try again."

// maxFormBytes bounds the forms of actions and login.
const maxFormBytes = 64 << 10
