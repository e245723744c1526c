package wrapper

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/sanitize"
)

// Wrapping with the memo full of a page's values gives what wrapping with
// an empty memo gives, for the same page and for the same page read
// against another URL or in another zone, whose values must not come from
// the first reading.
func TestMemoGivesWhatDerivingGives(t *testing.T) {
	saved := memos
	defer func() { memos = saved }()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	variants := []Options{
		{URL: "http://a.example/news/index.html", RSSID: "m", Now: benchNow},
		{URL: "http://b.example/other/", RSSID: "m", Now: benchNow},
		{URL: "http://a.example/news/index.html", RSSID: "m", Now: benchNow, Location: paris},
		{RSSID: "m", Now: benchNow},
	}
	pages := [][]byte{benchPage()}
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
	}
	for _, page := range pages {
		memos = newMemo()
		Wrap(page, variants[0]) // fills the memo with the first reading's values
		for i, opts := range variants {
			warm := Wrap(page, opts)
			memos = newMemo()
			cold := Wrap(page, opts)
			if !reflect.DeepEqual(warm, cold) {
				t.Errorf("variant %d: with the memo %+v, without %+v", i, warm.Resource.Items, cold.Resource.Items)
			}
			Wrap(page, variants[0])
		}
	}
}

// The memo answers what sanitizing answers, for the same description
// against different bases; a colliding key is a miss; and it stays within
// its two generations.
func TestMemo(t *testing.T) {
	c := newMemo()
	a, _ := url.Parse("http://a.example/news/")
	b, _ := url.Parse("http://b.example/")
	raw := `<p onclick="x()">Read <a href="story.html">the story</a><script>alert(1)</script></p>`
	sanitized := func(base *url.URL) (string, string) {
		key := memoKey{kind: memoDescription, in: raw}
		if base != nil {
			key.ctx = base.String()
		}
		return c.get(key, func() (string, string) { return sanitize.HTMLText(raw, base) })
	}
	for round := range 2 { // the second round reads the memo
		for _, base := range []*url.URL{a, b, nil} {
			gotHTML, gotText := sanitized(base)
			wantHTML := sanitize.HTML(raw, base)
			if gotHTML != wantHTML || gotText != plainText(wantHTML) {
				t.Errorf("round %d, base %v: %q %q, want %q %q", round, base, gotHTML, gotText, wantHTML, plainText(wantHTML))
			}
		}
	}
	if len(c.cur) != 3 {
		t.Errorf("%d entries, want one per base", len(c.cur))
	}

	// A colliding key (forced here) is a miss, never another's answer.
	for _, e := range c.cur {
		e.key.in = "<p>another description</p>"
	}
	if got, _ := sanitized(a); got != sanitize.HTML(raw, a) {
		t.Errorf("a collision gave %q", got)
	}

	// The same text read in two zones is two entries.
	paris, _ := time.LoadLocation("Europe/Paris")
	for _, loc := range []*time.Location{time.UTC, paris} {
		got, _ := c.get(memoKey{kind: memoDate, in: "2005-12-08 08:25", loc: loc}, func() (string, string) { return loc.String(), "" })
		if got != loc.String() {
			t.Errorf("the date in %v came from %s", loc, got)
		}
	}

	// An entry holds copies, not pieces of the page it was read from.
	page := "<p>" + strings.Repeat("x", 100) + "</p>"
	in := page[3:10]
	c.get(memoKey{kind: memoText, in: in, ctx: page[0:3]}, func() (string, string) { return page[3:5], page[5:7] })
	for _, e := range c.cur {
		if e.key.kind != memoText {
			continue
		}
		for _, s := range []string{e.key.in, e.key.ctx, e.a, e.b} {
			if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= uintptr(unsafe.Pointer(unsafe.StringData(page))) && p < uintptr(unsafe.Pointer(unsafe.StringData(page)))+uintptr(len(page)) {
				t.Errorf("the entry's %q is a piece of the page", s)
			}
		}
	}

	// Past a generation's bytes the oldest entries go.
	filler := strings.Repeat("x", 1000)
	for i := range 3 * memoGeneration / 1000 {
		in := fmt.Sprintf("<p>%d %s</p>", i, filler)
		c.get(memoKey{kind: memoDescription, in: in}, func() (string, string) { return in, "" })
	}
	total := c.curBytes
	for _, e := range c.old {
		total += e.size()
	}
	if total > 2*memoGeneration {
		t.Errorf("%d bytes memoized, want at most %d", total, 2*memoGeneration)
	}
}
