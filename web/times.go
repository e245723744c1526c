package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// zoneCookie keeps the time zone a viewer chose for the pages' times.
const zoneCookie = "dynamo_tz"

// zone is the time zone the pages show times in for this viewer: the one
// chosen (the cookie), else the server's display zone.
func (h *Server) zone(r *http.Request) *time.Location {
	if c, err := r.Cookie(zoneCookie); err == nil {
		if loc, err := loadZone(c.Value); err == nil {
			return loc
		}
	}
	return h.displayZone
}

// loadZone reads an IANA zone name; "Local" is refused, since it names
// the server's zone, not one the viewer can know.
func loadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, errBadZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, errBadZone
	}
	return loc, nil
}

var errBadZone = &zoneError{}

type zoneError struct{}

func (*zoneError) Error() string { return "not an IANA time zone name such as Europe/Paris or UTC" }

// zoneAction keeps the viewer's zone in a cookie for a year, or forgets
// it (an empty zone), and sends the browser back where it was. It is a
// preference, not an action on Dynamo: it needs no authorization, but its
// form carries the anti-forgery token like every form, so that another
// site cannot change a viewer's zone either.
func (h *Server) zoneAction(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	if !h.checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, csrfMessage)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("tz"))
	switch {
	case name == "":
		h.setCookie(w, r, zoneCookie, "", -1)
		h.setFlash(w, r, "Times are shown in the server's zone, "+h.displayZone.String()+".")
	default:
		loc, err := loadZone(name)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, "Time zone "+quote(name)+" is "+err.Error()+".")
			return
		}
		h.setCookie(w, r, zoneCookie, loc.String(), 365*24*3600)
		h.setFlash(w, r, "Times are now shown in "+loc.String()+".")
	}
	http.Redirect(w, r, backTo(r.PostFormValue("back")), http.StatusSeeOther)
}

// backTo is a page of the interface to return to: the path given when it
// is one (never another site), else the sources list.
func backTo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, Prefix) || strings.HasPrefix(raw, "//") {
		return Prefix
	}
	return u.RequestURI()
}

func quote(s string) string { return "\u201c" + s + "\u201d" }

// timeView is a time as the pages show it: in the viewer's zone, with
// the UTC time on hover and, where it helps, how long ago.
type timeView struct {
	T        time.Time
	Zone     *time.Location
	Relative bool
}

// local writes t for people in zone, to the minute, naming the zone.
func local(t time.Time, zone *time.Location) string {
	if t.IsZero() {
		return "never"
	}
	if zone == nil {
		zone = time.UTC
	}
	lt := t.In(zone)
	if zone == time.UTC {
		return lt.Format("2006-01-02 15:04 UTC")
	}
	return lt.Format("2006-01-02 15:04 MST")
}

// commonZones are offered in the zone form's list; any IANA name is
// accepted.
var commonZones = []string{"UTC", "America/Los_Angeles", "America/New_York", "America/Sao_Paulo", "Europe/London",
	"Europe/Paris", "Europe/Berlin", "Europe/Moscow", "Africa/Lagos", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney"}
