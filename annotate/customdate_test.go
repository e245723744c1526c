package annotate_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// TestCustomElementDates: a list whose only whole dates are in the
// datetime attribute of custom elements (GitHub's <relative-time>, which
// shows "3 days ago", and <local-time>) gets them as its items' dates,
// through the annotations and through the selectors alike.
func TestCustomElementDates(t *testing.T) {
	for _, tc := range []struct{ name, open, close string }{
		{"relative-time", `<relative-time datetime="2024-03-%02dT09:%02d:00Z" class="no-wrap">`, `</relative-time>`},
		{"local-time", `<local-time datetime="2024-03-%02dT09:%02d:00Z" month="short" day="numeric">`, `</local-time>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var page strings.Builder
			page.WriteString(`<!DOCTYPE html><html><head><title>Pull requests · acme/widgets</title></head><body>
<nav><a href="/acme/widgets">Code</a> <a href="/acme/widgets/issues">Issues</a> <a href="/acme/widgets/pulls">Pull requests</a></nav>
<div class="js-navigation-container">` + "\n")
			for i := 1; i <= 6; i++ {
				fmt.Fprintf(&page, `<div class="Box-row" id="pr_%d"><a class="Link--primary h4" href="/acme/widgets/pull/%d">Make widget %d configurable</a>
<div class="opened-by">#%d opened `+tc.open+`%d days ago`+tc.close+` by <a href="/u%d">user%d</a></div></div>`+"\n", i, 100+i, i, 100+i, 20-i, i, i, i, i, i)
			}
			page.WriteString(`</div><footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></footer></body></html>`)
			in := []byte(page.String())
			res, err := annotate.Suggest(in, annotate.Options{URL: "https://git.example/acme/widgets/pulls"})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(annotate.RemoveInserted(res.Page, res.Inserted), in) {
				t.Fatal("the page is changed outside the inserted comments")
			}
			items := res.Wrapped().Resource.Items
			if len(items) != 6 {
				t.Fatalf("%d items, want 6:\n%s", len(items), res.Page)
			}
			for i, it := range items {
				n := i + 1
				want := fmt.Sprintf("2024-03-%02dT09:%02d:00Z", 20-n, n)
				if it.Title != fmt.Sprintf("Make widget %d configurable", n) || it.Link != fmt.Sprintf("https://git.example/acme/widgets/pull/%d", 100+n) || dateOf(&it) != want {
					t.Errorf("item %d = %q %q %q, want the title, link and date %s", n, it.Title, it.Link, dateOf(&it), want)
				}
			}
			// The note says when the selectors, applied, give other items.
			sel, note, err := res.Selectors()
			if err != nil || note != "" || sel.Date == "" {
				t.Errorf("selectors %+v, note %q, error %v: want a date and the same items", sel, note, err)
			}
		})
	}
}
