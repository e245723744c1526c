package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/storage"
)

// badSources is the one table of sources that every entry point must
// refuse, each with the domain's reason (dynamo.Source.Validate). Each row
// is a JSON object of source fields; the entry points that read text (OPML
// attributes, form fields) get each value's text.
var badSources = []struct {
	name    string
	fields  map[string]any
	mention string
}{
	{"id with a path", map[string]any{"id": "a/../b"}, `id "a/../b" must be 1 to 64 letters`},
	{"ftp URL", map[string]any{"url": "ftp://example.org/feed"}, `url "ftp://example.org/feed" must be an absolute http or https URL`},
	{"interval of a second", map[string]any{"interval": "1s"}, "interval 1s must be from 10s to 30d"},
	{"unknown policy", map[string]any{"policy": "bogus"}, `policy "bogus" is unknown: want one of flat, smart`},
	{"time zone on Mars", map[string]any{"timezone": "Mars/Olympus"}, `timezone "Mars/Olympus" is not an IANA time zone name`},
	{"negative subscribers", map[string]any{"subscribers": -5}, "subscribers must be 0 or more, not -5"},
	{"unknown kind", map[string]any{"kind": "rss"}, `kind "rss" is unknown: want auto, html, feed or selectors`},
	{"unparsable selector", map[string]any{"kind": "selectors", "item_selector": "li[", "title_selector": "a"}, `item selector "li[" is not a CSS selector`},
	{"selectors on a feed", map[string]any{"kind": "feed", "item_selector": "li"}, "selectors are set but kind is feed"},
	{"long category", map[string]any{"category": strings.Repeat("c", 300)}, "category and title_prefix must be at most 256 bytes"},
	// What polling would refuse is refused at registration, with polling's
	// message, whatever the kind.
	{"loopback destination", map[string]any{"url": "http://127.0.0.1:9/feed.xml"}, "fetch http://127.0.0.1:9/feed.xml: refused: 127.0.0.1 is loopback; private destinations are refused unless allowed (--allow-private)"},
	{"zoned mapped loopback", map[string]any{"url": "http://[::ffff:127.0.0.1%25lo]/feed.xml", "kind": "html"}, "refused: ::ffff:127.0.0.1 is loopback"},
	{"metadata service", map[string]any{"url": "http://169.254.169.254/latest/", "kind": "selectors", "item_selector": "li", "title_selector": "a"}, "169.254.169.254 is link-local"},
}

// badSource is row's source: a valid feed (so that nothing is fetched)
// with the row's fields over it.
func badSource(fields map[string]any) map[string]any {
	src := map[string]any{"id": "bad", "url": "http://feeds.example.org/feed.xml", "kind": "feed", "interval": "1h"}
	for k, v := range fields {
		src[k] = v
	}
	return src
}

// editSource is the source the entry points that change sources change:
// valid, with a URL of its own (imports skip a URL a source polls).
func editSource() map[string]any {
	return badSource(map[string]any{"id": "edit", "url": "http://feeds.example.org/edit.xml"})
}

// TestBadSourcesAreRefusedByEveryEntryPoint feeds each bad source through
// every entry point that registers or changes sources — the admin API with
// and without a poller in the process (POST, PATCH), the web interface's
// forms (add, settings, OPML import), the sources file of `dynamo serve`,
// an OPML import over the API and `dynamo sources import` — and expects
// the same refusal from each, with nothing stored or changed. A valid
// source naming a policy is accepted by each, so that the refusals are the
// rule's and not the process's. The entry points that change a source
// keep its id, so the row of a bad id is not theirs: an id is never
// changed (sources.Service.Change).
func TestBadSourcesAreRefusedByEveryEntryPoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bases := map[string]string{
		"all": startServe(t, serveConfig{db: sqlitetest.Path(t, dir, "all.db"), role: "all"}),
		"api": startServe(t, serveConfig{db: sqlitetest.Path(t, dir, "api.db"), role: "api"}),
	}
	good := badSource(map[string]any{"id": "good", "policy": "flat"})
	// The source the entry points that change sources change.
	if _, stored := postSource(t, bases["api"], editSource(), false); !stored {
		t.Fatal("the source to change was refused")
	}
	entryPoints := []struct {
		name    string
		changes bool // changes the source "edit" rather than registering one
		submit  func(t *testing.T, src map[string]any) (refusal string, stored bool)
	}{
		{"POST /api/sources (poller in the process)", false, func(t *testing.T, src map[string]any) (string, bool) {
			return postSource(t, bases["all"], src, true)
		}},
		{"POST /api/sources (--role api)", false, func(t *testing.T, src map[string]any) (string, bool) {
			return postSource(t, bases["api"], src, true)
		}},
		{"PATCH /api/sources/{id} (--role api)", true, func(t *testing.T, src map[string]any) (string, bool) {
			return patchSource(t, bases["api"], src)
		}},
		{"web form (--role api)", false, func(t *testing.T, src map[string]any) (string, bool) {
			return postSourceForm(t, bases["api"], src)
		}},
		{"web settings form (--role api)", true, func(t *testing.T, src map[string]any) (string, bool) {
			return postSettingsForm(t, bases["api"], src)
		}},
		{"POST /api/sources/import (--role api)", false, func(t *testing.T, src map[string]any) (string, bool) {
			return importOverAPI(t, bases["api"], src)
		}},
		{"web OPML import form (--role api)", false, func(t *testing.T, src map[string]any) (string, bool) {
			return importWithForm(t, bases["api"], src)
		}},
		{"dynamo serve --sources", false, func(t *testing.T, src map[string]any) (string, bool) {
			return serveSourcesFile(t, src)
		}},
		{"dynamo sources import", false, func(t *testing.T, src map[string]any) (string, bool) {
			return importWithCLI(t, src)
		}},
	}
	for _, ep := range entryPoints {
		t.Run(ep.name, func(t *testing.T) {
			for _, row := range badSources {
				if _, id := row.fields["id"]; id && ep.changes {
					continue
				}
				refusal, stored := ep.submit(t, badSource(row.fields))
				if stored || !strings.Contains(refusal, row.mention) {
					t.Errorf("%s: stored %v, refusal %q; want it refused saying %q", row.name, stored, refusal, row.mention)
				}
			}
			if refusal, stored := ep.submit(t, good); !stored {
				t.Errorf("a valid source naming the policy flat was refused: %q", refusal)
			}
		})
	}
	for role, base := range bases {
		var list struct{ Sources []struct{ ID string } }
		getJSON(t, base+"/api/sources", &list)
		for _, s := range list.Sources {
			if !strings.HasPrefix(s.ID, "good") && s.ID != "edit" {
				t.Errorf("role %s stored %q", role, s.ID)
			}
		}
	}
}

// postSource registers src with POST /api/sources, then, if remove, removes
// it when it was stored, so that the next row may use its id.
func postSource(t *testing.T, base string, src map[string]any, remove bool) (string, bool) {
	body, _ := json.Marshal(src)
	resp, err := http.Post(base+"/api/sources", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&ans)
	if resp.StatusCode == http.StatusCreated {
		if remove {
			removeSource(t, base, src["id"].(string))
		}
		return "", true
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST %s: status %d, want 400", body, resp.StatusCode)
	}
	return ans.Error, false
}

// patchSource changes the source "edit" to src's fields but its id with
// PATCH /api/sources/edit; a change made is undone.
func patchSource(t *testing.T, base string, src map[string]any) (string, bool) {
	fields := map[string]any{}
	for k, v := range src {
		if k != "id" {
			fields[k] = v
		}
	}
	body, _ := json.Marshal(fields)
	req, _ := http.NewRequest(http.MethodPatch, base+"/api/sources/edit", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&ans)
	if resp.StatusCode == http.StatusOK {
		undoChange(t, base)
		return "", true
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("PATCH %s: status %d, want 400", body, resp.StatusCode)
	}
	return ans.Error, false
}

// undoChange puts the source "edit" back as it was registered.
func undoChange(t *testing.T, base string) {
	body, _ := json.Marshal(editSource())
	req, _ := http.NewRequest(http.MethodPut, base+"/api/sources/edit", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT the source back: status %d", resp.StatusCode)
	}
}

func removeSource(t *testing.T, base, id string) {
	req, _ := http.NewRequest(http.MethodDelete, base+"/api/sources/"+url.PathEscape(id)+"?purge=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// text is a field's value as a form field or an OPML attribute writes it.
func text(v any) string { return fmt.Sprint(v) }

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// postSourceForm registers src with the web interface's form, as a
// browser on the machine does (no admin token is configured).
func postSourceForm(t *testing.T, base string, src map[string]any) (string, bool) {
	status, body := submitForm(t, base+"/ui/", base+"/ui/sources", src)
	if status == http.StatusSeeOther {
		removeSource(t, base, src["id"].(string))
		return "", true
	}
	if status != http.StatusBadRequest {
		t.Errorf("form %v: status %d, want 400", src, status)
	}
	return body, false
}

// postSettingsForm changes the source "edit" to src's fields but its id
// with the web interface's settings form; a change made is undone.
func postSettingsForm(t *testing.T, base string, src map[string]any) (string, bool) {
	fields := map[string]any{}
	for k, v := range src {
		if k != "id" {
			fields[k] = v
		}
	}
	status, body := submitForm(t, base+"/ui/sources/edit/edit", base+"/ui/sources/edit/settings", fields)
	if status == http.StatusSeeOther {
		undoChange(t, base)
		return "", true
	}
	if status != http.StatusBadRequest {
		t.Errorf("settings form %v: status %d, want 400", fields, status)
	}
	return body, false
}

// formSession opens page as a browser on the machine does (no admin token
// is configured) and returns its client and the page's anti-forgery token.
func formSession(t *testing.T, page string) (*http.Client, string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("%s offers no form", page)
	}
	return c, m[1]
}

// submitForm posts fields, as text, to action with the anti-forgery token
// of page, and returns the answer's status and text.
func submitForm(t *testing.T, page, action string, fields map[string]any) (int, string) {
	c, csrf := formSession(t, page)
	form := url.Values{"csrf": {csrf}}
	for k, v := range fields {
		form.Set(k, text(v))
	}
	resp, err := c.PostForm(action, form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, html.UnescapeString(string(body))
}

// importWithForm imports src's OPML entry with the web interface's import
// form.
func importWithForm(t *testing.T, base string, src map[string]any) (string, bool) {
	c, csrf := formSession(t, base+"/ui/opml")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", csrf)
	fw, _ := mw.CreateFormFile("file", "feeds.opml")
	io.WriteString(fw, opmlFile(t, src))
	mw.Close()
	resp, err := c.Post(base+"/ui/opml", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(page), `class="outcome-registered"`) {
		removeSource(t, base, src["id"].(string))
		return "", true
	}
	return html.UnescapeString(string(page)), false
}

// opmlFile writes src as the one entry of an OPML file.
func opmlFile(t *testing.T, src map[string]any) string {
	e := opml.Entry{Title: "Bad", XMLURL: text(src["url"]), Extra: map[string]string{}}
	for k, v := range src {
		if k != "url" {
			e.Extra[k] = text(v)
		}
	}
	var b strings.Builder
	if err := opml.Write(&b, []opml.Entry{e}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// importOverAPI imports src's OPML entry with POST /api/sources/import.
func importOverAPI(t *testing.T, base string, src map[string]any) (string, bool) {
	resp, err := http.Post(base+"/api/sources/import", "text/x-opml", strings.NewReader(opmlFile(t, src)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Entries []struct{ Outcome, Reason string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || len(ans.Entries) != 1 {
		t.Fatalf("import: %s, %v, %+v", resp.Status, err, ans)
	}
	if ans.Entries[0].Outcome == "registered" {
		removeSource(t, base, src["id"].(string))
		return "", true
	}
	return ans.Entries[0].Reason, false
}

// serveSourcesFile starts `dynamo serve --sources` with src as the file's
// one entry: serve must refuse to start, saying why.
func serveSourcesFile(t *testing.T, src map[string]any) (string, bool) {
	entry, _ := json.Marshal(src)
	file := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(file, []byte("sources:\n  - "+string(entry)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, serveConfig{addr: "127.0.0.1:0", db: db, sourcesFile: file, role: "api"}, slog.New(slog.DiscardHandler), ready)
	}()
	select {
	case <-ready:
		cancel()
		<-done
		return "", len(storedSources(t, db)) == 1
	case err := <-done:
		if err == nil {
			t.Fatal("serve ended without an error")
		}
		return err.Error(), len(storedSources(t, db)) > 0
	}
}

// importWithCLI imports src's OPML entry with `dynamo sources import`.
func importWithCLI(t *testing.T, src map[string]any) (string, bool) {
	file := filepath.Join(t.TempDir(), "feeds.opml")
	if err := os.WriteFile(file, []byte(opmlFile(t, src)), 0o644); err != nil {
		t.Fatal(err)
	}
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	code, stdout, stderr := run(t, "", "sources", "import", "--db", db, file)
	st, err := storage.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Sources(context.Background())
	if code == 0 {
		return "", len(list) == 1
	}
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	sort.Strings(ids)
	return stdout + stderr + strings.Join(ids, ","), len(list) > 0
}

// TestBadURLWithoutIDNamesTheURL: a source given without an id derives it
// from its URL, so a URL that is not one (a javascript: link, "http://")
// derives none. The refusal must name the URL the user wrote, not an empty
// id the user never gave (it said `id "" must be 1 to 64 letters…`):
// through the API and an OPML import over the API (a sources file
// requires ids).
func TestBadURLWithoutIDNamesTheURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := startServe(t, serveConfig{db: sqlitetest.Path(t, dir, "dynamo.db")})
	for _, raw := range []string{"javascript:alert(1)", "http://", "mailto:news@example.org"} {
		want := fmt.Sprintf("url %q must be an absolute http or https URL", raw)
		body, _ := json.Marshal(map[string]string{"url": raw})
		resp, err := http.Post(base+"/api/sources", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var refusal struct{ Error string }
		err = json.NewDecoder(resp.Body).Decode(&refusal)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(refusal.Error, want) {
			t.Errorf("POST /api/sources %s: %s %q (%v), want 400 saying %s", body, resp.Status, refusal.Error, err, want)
		}

		doc := fmt.Sprintf(`<opml version="2.0"><body><outline type="rss" text="x" xmlUrl=%q/></body></opml>`, html.EscapeString(raw))
		resp, err = http.Post(base+"/api/sources/import", "text/x-opml", strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		var report struct {
			Failed  int `json:"failed"`
			Entries []struct {
				Reason string `json:"reason"`
			} `json:"entries"`
		}
		err = json.NewDecoder(resp.Body).Decode(&report)
		resp.Body.Close()
		if err != nil || report.Failed != 1 || len(report.Entries) != 1 || !strings.Contains(report.Entries[0].Reason, want) {
			t.Errorf("OPML import of xmlUrl %q: %+v (%v), want one failed entry saying %s", raw, report, err, want)
		}
	}
}
