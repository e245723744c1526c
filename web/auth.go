package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo/auth"
)

// Cookie names. Every cookie is HttpOnly and SameSite=Strict, limited to
// Prefix, and Secure when the request came over TLS.
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

// authorized applies the admin API's rule (package auth): with a token
// configured, the request must prove it, here also with the login cookie
// or a "token" form field; without one, it must come from a loopback
// client.
func (h *Server) authorized(r *http.Request) bool {
	return auth.Authorized(r, h.cfg.AdminToken, h.validSession, func(r *http.Request) bool {
		return r.Method == http.MethodPost && auth.Matches(h.cfg.AdminToken, r.PostFormValue("token"))
	})
}

// bearer reports whether the request carries the admin token in its header:
// such a request is not a browser's ambient credential, so it needs no
// anti-forgery token.
func (h *Server) bearer(r *http.Request) bool { return auth.HasBearer(r, h.cfg.AdminToken) }

// sessionValue is "expiry.mac", the mac keyed by the admin token: every
// process that shares the token accepts it, and changing the token ends
// every session. It reveals nothing of the token.
func (h *Server) sessionValue(expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return exp + "." + h.mac([]byte(h.cfg.AdminToken), "session|"+exp)
}

func (h *Server) validSession(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil || h.cfg.AdminToken == "" {
		return false
	}
	exp, mac, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || time.Now().Unix() > unix {
		return false
	}
	want := h.mac([]byte(h.cfg.AdminToken), "session|"+exp)
	return hmac.Equal([]byte(mac), []byte(want))
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
		Secure:   r.TLS != nil,
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
	if !auth.Matches(h.cfg.AdminToken, r.PostFormValue("token")) {
		h.render(w, r, http.StatusUnauthorized, "login.html", view{Title: "Log in", Section: "login", Data: loginData{
			Error: "That is not the admin token (DYNAMO_ADMIN_TOKEN).",
		}})
		return
	}
	h.setCookie(w, r, sessionCookie, h.sessionValue(time.Now().Add(sessionTTL)), int(sessionTTL/time.Second))
	h.setFlash(w, r, "Logged in: actions are enabled for 12 hours in this browser.")
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// logout forgets the session.
func (h *Server) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if !h.checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, csrfMessage)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	h.setFlash(w, r, "Logged out.")
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

const csrfMessage = "This form has expired or was sent from another site. Reload the page and try again."

// maxFormBytes bounds the forms of actions and login.
const maxFormBytes = 64 << 10
