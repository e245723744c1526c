package web

import (
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sanitize"
)

// parseTemplates builds one template set per page, each holding the shared
// layout and the page's own blocks.
func parseTemplates() (map[string]*template.Template, error) {
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: list templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		file := path.Base(name)
		if file == "layout.html" || file == "parts.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, name)
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", file, err)
		}
		pages[file] = t
	}
	return pages, nil
}

var funcs = template.FuncMap{
	"when":    when,
	"iso":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"ago":     ago,
	"excerpt": excerpt,
	"label":   formatLabel,
	"add":     func(a, b int) int { return a + b },
	"plain":   plain,
	"past":    func(t time.Time) bool { return !t.After(time.Now()) },
	"args":    args,
	"local":   local,
	"tv":      func(t time.Time, z *time.Location) timeView { return timeView{T: t, Zone: z} },
	"tvAgo":   func(t time.Time, z *time.Location) timeView { return timeView{T: t, Zone: z, Relative: true} },
	"deref":   func(s *string) string { return *s },
	// score and matchedCopy show the decision that made an item a copy of
	// another source's story (docs/DEDUP.md).
	"score":       func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"matchedCopy": matchedCopy,
	"bytes":       byteSize,
	// itemDate is an item's own publication date, zero when it has none.
	"itemDate": func(it dynamo.Item) time.Time {
		d, _ := it.Date()
		return d
	},
	"millis": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
}

// byteSize writes a size for people: "830 B", "12.4 kB", "3.1 MB".
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " kB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// matchedCopy is the copy an item was decided a copy against, when that
// is not its story's primary (and is still stored).
func matchedCopy(a dynamo.ArchivedItem) *dynamo.ItemKey {
	if m := a.DuplicateMatched; m != nil && a.DuplicateOf != nil && *m != *a.DuplicateOf {
		return m
	}
	return nil
}

// plain is an item's description as plain text: sources' markup is never
// shown as markup in the interface.
func plain(it dynamo.Item) string {
	if it.Text != "" {
		return it.Text
	}
	return sanitize.Text(it.Description)
}

// args builds a sub-template's arguments from name, value pairs.
func args(pairs ...any) (map[string]any, error) {
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("args wants name, value pairs, got %d values", len(pairs))
	}
	m := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			return nil, fmt.Errorf("args: name %v is not a string", pairs[i])
		}
		m[name] = pairs[i+1]
	}
	return m, nil
}

// when writes a time for people: UTC, to the minute; "never" for zero.
func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// ago says how long before (or after) now t is, roughly.
func ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Until(t)
	suffix := "from now"
	if d < 0 {
		d, suffix = -d, "ago"
	}
	switch {
	case d < 2*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%d s %s", int(d/time.Second), suffix)
	case d < time.Hour:
		return fmt.Sprintf("%d min %s", int(d/time.Minute), suffix)
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %s", int(d/time.Hour), suffix)
	default:
		return fmt.Sprintf("%d days %s", int(d/(24*time.Hour)), suffix)
	}
}

// excerpt cuts plain text to about n bytes at a word boundary.
func excerpt(n int, s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n/2 {
		cut = i
	}
	return s[:cut] + "…"
}
