package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// maxPlaygroundForm bounds the playground's form: the page, up to
// dynamo.MaxAnnotatedPageBytes (docs/WRAPPER.md, "Size cap"), takes up to
// three bytes a byte once URL-encoded (%XX), and the other fields are
// short.
const maxPlaygroundForm = 3*dynamo.MaxAnnotatedPageBytes + maxFormBytes

// exampleHost is where the playground pretends the example pages live, so
// that their relative links resolve as they would on a real site.
const exampleHost = "https://www.example.org"

type playgroundData struct {
	Page     string // the page as the textarea shows it
	Original string // the page as pasted, when the textarea shows it annotated
	URL      string // the page's URL, for resolving its links
	FetchURL string
	TimeZone string
	CanFetch bool
	Error    string
	Result   *playResult
	Suggest  *suggestView // what "Suggest annotations" found
	Guide    []guideExample
}

// playResult is everything the playground shows about one page.
type playResult struct {
	Source       string // where the page came from, in words
	Charset      string
	CharsetFrom  string
	Resource     *dynamo.Resource
	Items        []itemView // the items, with the indexes they were written with
	Warnings     []dynamo.Warning
	PageWarnings []dynamo.Warning // those with no line of their own
	Annotations  []annotationRow
	Lines        []lineView
	// The page has TotalLines lines, of which Lines are shown, and
	// AnnotationCount annotations and WarningCount warnings, of which
	// Annotations and Warnings are listed: each list stops at a bound
	// (maxShownLines, maxShownBytes, maxShownRows) so that a page of
	// millions of lines or annotations is answered in bounded work.
	TotalLines      int
	LinesCut        bool // Lines stop before the end of the page
	AnnotationCount int
	WarningCount    int
	ItemsCut        bool // Items are the first maxShownRows
	XMLData         string
	Feeds           []feedView
	pageText        string // the page decoded, for the text box
}

// itemView is an item with the index its annotations were written with,
// which is what the webmaster looks for ("index 6"), not its position.
type itemView struct {
	dynamo.Item
	Written string
}

type annotationRow struct {
	Line   int
	Name   string
	Index  string
	Item   int
	Value  string
	Closed bool
}

type feedView struct {
	Label string
	Type  string
	Body  string
}

// playgroundPage shows the form and, when a page was given (pasted,
// fetched, a source's, or one of the examples), what Dynamo makes of it:
// what the wrapper extracts, or, asked to, the annotations Dynamo
// suggests and the selectors that would follow the page as it is.
func (h *Server) playgroundPage(w http.ResponseWriter, r *http.Request) {
	d := playgroundData{CanFetch: h.cfg.Fetch != nil, Guide: guide}
	status := http.StatusOK
	var (
		page   []byte
		opts   wrapper.Options
		source string
		err    error
		follow *dynamo.Source // a selectors source to read the page through
	)
	do := "show"
	q := r.URL.Query()
	if r.Method == http.MethodPost || q.Get("example") != "" || q.Get("source") != "" {
		// A page of up to 20 MiB (60 MiB of form) is read, wrapped or
		// annotated, which takes several times its size: page work shares
		// the slots of the expensive reads (api.Config.Heavy), taken before
		// the form is read, so that concurrent big pages cannot take the
		// memory past --heavy-reads of them (docs/RELIABILITY.md,
		// "Security", issue 23).
		release, busy := h.cfg.Heavy.Enter(r.Context())
		if busy != nil {
			w.Header().Set("Retry-After", strconv.Itoa(h.cfg.Heavy.RetryAfter()))
			h.fail(w, r, http.StatusServiceUnavailable, "Too many pages and other expensive reads are being worked on: try again in a moment.")
			return
		}
		defer release()
	}
	switch {
	case r.Method == http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxPlaygroundForm)
		if err := r.ParseForm(); err != nil {
			d.Error = fmt.Sprintf("The form could not be read (a page may have at most %d bytes, %d MiB).", dynamo.MaxAnnotatedPageBytes, dynamo.MaxAnnotatedPageBytes>>20)
			h.render(w, r, http.StatusRequestEntityTooLarge, "playground.html", view{Title: "Annotation playground", Section: "playground", Data: d})
			return
		}
		if v := r.PostFormValue("do"); v != "" {
			do = v
		}
		if r.PostFormValue("action") == "fetch" {
			page, opts, source, err = h.fetchPage(r.Context(), r.PostFormValue("fetch_url"), &d)
		} else {
			page, opts, source, err = pastedPage(r, &d)
		}
		status = http.StatusBadRequest
	case q.Get("example") != "":
		page, opts, source, err = examplePage(q.Get("example"), &d)
		status = http.StatusNotFound
	case q.Get("source") != "":
		page, opts, source, follow, err = h.sourceInput(r.Context(), q.Get("source"), &d)
		status = http.StatusBadRequest
	}
	if err != nil {
		d.Error = err.Error()
	} else {
		status = http.StatusOK
	}
	if page != nil && d.Error == "" {
		switch do {
		case "download":
			err := h.download(w, page, opts)
			if err == nil {
				return
			}
			d.Error = "There is no annotated page to download: " + err.Error() + "."
		case "suggest":
			h.suggest(page, opts, source, &d)
		default:
			if follow != nil {
				h.followSource(page, opts, source, follow, &d)
			} else {
				d.Result = play(page, opts, source, nil)
				d.Page = d.Result.pageText
			}
		}
	}
	h.render(w, r, status, "playground.html", view{Title: "Annotation playground", Section: "playground", Data: d})
}

// pastedPage reads the paste form. The text arrives as UTF-8 whatever the
// page declares, so it is wrapped as UTF-8.
func pastedPage(r *http.Request, d *playgroundData) ([]byte, wrapper.Options, string, error) {
	d.Page = r.PostFormValue("page")
	d.URL = strings.TrimSpace(r.PostFormValue("url"))
	d.TimeZone = strings.TrimSpace(r.PostFormValue("tz"))
	opts := wrapper.Options{ContentType: "text/html; charset=utf-8", RSSID: "playground"}
	if strings.TrimSpace(d.Page) == "" {
		return nil, opts, "", fmt.Errorf("paste a page into the text box first")
	}
	if len(d.Page) > dynamo.MaxAnnotatedPageBytes {
		return nil, opts, "", fmt.Errorf("the page has %d bytes; Dynamo reads pages of at most %d (%d MiB, a page of %d MiB with its annotations)",
			len(d.Page), dynamo.MaxAnnotatedPageBytes, dynamo.MaxAnnotatedPageBytes>>20, dynamo.MaxPageBytes>>20)
	}
	opts.URL = exampleHost + "/"
	if d.URL != "" {
		if err := checkHTTPURL(d.URL); err != nil {
			return nil, opts, "", fmt.Errorf("page URL: %w", err)
		}
		opts.URL = d.URL
	}
	if d.TimeZone != "" {
		loc, err := time.LoadLocation(d.TimeZone)
		if err != nil || d.TimeZone == "Local" {
			return nil, opts, "", fmt.Errorf("time zone %q is not an IANA name such as Europe/Paris or UTC", d.TimeZone)
		}
		opts.Location = loc
	}
	return []byte(d.Page), opts, "the pasted page, read as at " + opts.URL, nil
}

// fetchPage reads a page from the web through the guarded fetcher.
func (h *Server) fetchPage(ctx context.Context, raw string, d *playgroundData) ([]byte, wrapper.Options, string, error) {
	d.FetchURL = strings.TrimSpace(raw)
	opts := wrapper.Options{RSSID: "playground"}
	if h.cfg.Fetch == nil {
		return nil, opts, "", fmt.Errorf("this server does not fetch pages for the playground; paste the page instead")
	}
	if err := checkHTTPURL(d.FetchURL); err != nil {
		return nil, opts, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, contentType, final, err := h.cfg.Fetch(ctx, d.FetchURL)
	if err != nil {
		return nil, opts, "", fmt.Errorf("fetching %s failed: %v", d.FetchURL, err)
	}
	if final == "" {
		final = d.FetchURL
	}
	opts.URL, opts.ContentType = final, contentType
	d.URL = final
	return body, opts, "fetched from " + final, nil
}

// examplePage loads one of the embedded example pages, as a server would
// send it (in its own charset, with its Content-Type).
func examplePage(name string, d *playgroundData) ([]byte, wrapper.Options, string, error) {
	for _, p := range examples.List {
		if p.File != name {
			continue
		}
		body, err := examples.Read(p.File)
		if err != nil {
			return nil, wrapper.Options{}, "", fmt.Errorf("example %s: %w", name, err)
		}
		loc, err := time.LoadLocation(p.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		d.URL, d.TimeZone = exampleHost+p.Path, p.TimeZone
		opts := wrapper.Options{URL: d.URL, RSSID: "playground", ContentType: p.ContentType, Location: loc}
		return body, opts, fmt.Sprintf("the example page %s, served as %s from %s", p.File, p.ContentType, d.URL), nil
	}
	return nil, wrapper.Options{}, "", fmt.Errorf("there is no example page %q", name)
}

func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 2048 {
		return fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	return nil
}

// play runs the wrapper on a page and prepares what the page shows; extra
// are warnings found besides the wrapper's (a selector source's own).
func play(page []byte, opts wrapper.Options, source string, extra []dynamo.Warning) *playResult {
	res := wrapper.Wrap(page, opts)
	warnings := res.Warnings
	if len(extra) > 0 {
		warnings = append(append([]dynamo.Warning(nil), extra...), warnings...)
		sort.SliceStable(warnings, func(i, j int) bool { return warnings[i].Line < warnings[j].Line })
	}
	shown := shownPrefix(res.Text)
	out := &playResult{
		Source:          source,
		Charset:         res.Charset,
		CharsetFrom:     res.CharsetFrom,
		Resource:        res.Resource,
		Warnings:        warnings[:min(len(warnings), maxShownRows)],
		Lines:           highlight(res.Text[:shown], res.Annotations, warnings),
		TotalLines:      strings.Count(res.Text, "\n") + 1,
		LinesCut:        shown < len(res.Text),
		AnnotationCount: len(res.Annotations),
		WarningCount:    len(warnings),
		ItemsCut:        len(res.Resource.Items) > maxShownRows,
		pageText:        res.Text,
	}
	for i, it := range res.Resource.Items[:min(len(res.Resource.Items), maxShownRows)] {
		out.Items = append(out.Items, itemView{Item: it, Written: res.Indexes[i]})
	}
	for _, w := range out.Warnings {
		if w.Line <= 0 || w.Line > out.TotalLines {
			out.PageWarnings = append(out.PageWarnings, w)
		}
	}
	for _, a := range res.Annotations[:min(len(res.Annotations), maxShownRows)] {
		idx := ""
		if a.Index > 0 {
			idx = fmt.Sprint(a.Index)
		} else if v, ok := a.Attr("index"); ok {
			idx = v
		}
		out.Annotations = append(out.Annotations, annotationRow{Line: a.Line, Name: a.Name, Index: idx, Item: a.Item, Value: a.Value, Closed: a.Closed})
	}
	var buf bytes.Buffer
	for _, f := range transform.Formats() {
		buf.Reset()
		if err := transform.Render(&buf, res.Resource, f); err != nil {
			// Render fails only on a bad writer or format; show why.
			buf.WriteString("rendering failed: " + err.Error())
		}
		if f == transform.XMLData {
			out.XMLData = buf.String()
			continue
		}
		out.Feeds = append(out.Feeds, feedView{Label: formatLabel(f), Type: string(f), Body: buf.String()})
	}
	return out
}

// What the playground lists of one page: the page's first maxShownLines
// lines, at most maxShownBytes of it, and the first maxShownRows
// annotations, items, warnings and changed lines. Drawing a row costs
// per row: a 20 MiB page of ten million empty lines took 89 s to draw
// whole. The download of the annotated page and the feeds are whole.
const (
	maxShownLines = 5000
	maxShownBytes = 1 << 20
	maxShownRows  = 2000
)

// shownPrefix is the length of the start of text that the line view
// shows: maxShownLines lines, cut at maxShownBytes (on a rune's start).
func shownPrefix(text string) int {
	end, lines := 0, 0
	for end < len(text) && lines < maxShownLines {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			end = len(text)
			break
		}
		end += i + 1
		lines++
	}
	if lines == maxShownLines {
		end-- // the line view ends with line maxShownLines, not an empty one after it
	}
	if end > maxShownBytes {
		end = maxShownBytes
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	return end
}

// lineView is one line of the page, cut into runs that are plain text or
// part of an annotation, with the warnings about it.
type lineView struct {
	N        int
	Runs     []run
	Warnings []string
}

// run is a stretch of one line with one highlighting.
type run struct {
	Text  string
	Class string // "" for page text outside annotations
	Title string // the annotation it belongs to, for the tooltip
}

// highlight cuts text into lines and runs: each run lies in no annotation,
// or in the markup or content of the innermost annotation around it.
func highlight(text string, anns []wrapper.Annotation, warnings []dynamo.Warning) []lineView {
	cuts := []int{0, len(text)}
	for _, a := range anns {
		cuts = append(cuts, a.Start, a.ContentStart, a.ContentEnd, a.End)
	}
	for i, c := range cuts {
		cuts[i] = min(max(c, 0), len(text))
	}
	sort.Ints(cuts)
	byStart := make([]int, len(anns))
	for i := range byStart {
		byStart[i] = i
	}
	sort.SliceStable(byStart, func(i, j int) bool { return anns[byStart[i]].Start < anns[byStart[j]].Start })

	lines := []lineView{{N: 1}}
	var active []int // annotations around the current position
	next := 0        // the next annotation, in byStart, not yet active
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], cuts[i+1]
		if from == to {
			continue
		}
		for next < len(byStart) && anns[byStart[next]].Start <= from {
			active = append(active, byStart[next])
			next++
		}
		active = pruneEnded(active, anns, from)
		class, title := classify(anns, active, from)
		lines = appendRun(lines, text[from:to], class, title)
	}
	for _, w := range warnings {
		if w.Line >= 1 && w.Line <= len(lines) {
			lines[w.Line-1].Warnings = append(lines[w.Line-1].Warnings, w.Message)
		}
	}
	return lines
}

// pruneEnded drops the annotations that end at or before pos.
func pruneEnded(active []int, anns []wrapper.Annotation, pos int) []int {
	kept := active[:0]
	for _, i := range active {
		if anns[i].End > pos {
			kept = append(kept, i)
		}
	}
	return kept
}

// classify names the highlighting at pos: that of the innermost (latest
// started) annotation around it, its content or its markup.
func classify(anns []wrapper.Annotation, active []int, pos int) (class, title string) {
	inner := -1
	for _, i := range active {
		if inner < 0 || anns[i].Start >= anns[inner].Start {
			inner = i
		}
	}
	if inner < 0 {
		return "", ""
	}
	a := anns[inner]
	kind := "item"
	if strings.HasPrefix(a.Name, "channel:") {
		kind = "channel"
	}
	part := "tag"
	if pos >= a.ContentStart && pos < a.ContentEnd {
		part = "content"
	}
	class = "hl-" + part + " hl-" + kind
	if !a.Closed {
		class += " hl-open"
	}
	title = a.Name
	if a.Item > 0 {
		title += fmt.Sprintf(" (item %d)", a.Item)
	}
	if !a.Closed {
		title += ", never closed"
	}
	return class, title
}

// appendRun adds text to the lines, starting a new line at each newline.
func appendRun(lines []lineView, text, class, title string) []lineView {
	for {
		part, rest, more := strings.Cut(text, "\n")
		if more {
			part = strings.TrimSuffix(part, "\r") // CRLF ends a line too
		}
		if part != "" {
			last := &lines[len(lines)-1]
			last.Runs = append(last.Runs, run{Text: part, Class: class, Title: title})
		}
		if !more {
			return lines
		}
		lines = append(lines, lineView{N: len(lines) + 1})
		text = rest
	}
}

// guideExample is one example page offered in the guide, with an excerpt
// of its annotations.
type guideExample struct {
	File     string
	Title    string
	Excerpt  string
	Items    int
	Warnings int
}

// guide is built once from the embedded examples.
var guide = buildGuide()

func buildGuide() []guideExample {
	var out []guideExample
	for _, p := range examples.List {
		body, err := examples.Read(p.File)
		if err != nil {
			continue // every listed page is embedded; examples' tests say so
		}
		res := wrapper.Wrap(body, wrapper.Options{URL: exampleHost + p.Path, ContentType: p.ContentType})
		out = append(out, guideExample{
			File:     p.File,
			Title:    p.Title,
			Excerpt:  firstItemExcerpt(res),
			Items:    len(res.Resource.Items),
			Warnings: len(res.Warnings),
		})
	}
	return out
}

// firstItemExcerpt returns the lines that hold the first item's
// annotations, at most a dozen.
func firstItemExcerpt(res *wrapper.Result) string {
	first, last := -1, -1
	for _, a := range res.Annotations {
		if a.Item != 1 {
			continue
		}
		if first < 0 || a.Start < first {
			first = a.Start
		}
		last = max(last, a.End)
	}
	if first < 0 {
		return ""
	}
	start := strings.LastIndexByte(res.Text[:first], '\n') + 1
	end := last
	if i := strings.IndexByte(res.Text[last:], '\n'); i >= 0 {
		end = last + i
	}
	lines := strings.Split(res.Text[start:end], "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], "…")
	}
	return strings.Join(lines, "\n")
}
