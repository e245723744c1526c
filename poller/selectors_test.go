package poller_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/sources"
)

// A selectors source is polled like any page: its items archived, its
// warnings kept with their lines.
func TestSelectorsSourceIsPolled(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/notices", page{body: "<html><head><title>Notices</title></head><body>\n<ul class=n>\n" +
		"<li><a href=\"/n/1\">Road closed</a> <span>3 July 2024</span></li>\n" +
		"<li><a href=\"/n/2\">Bin day moves</a> <span>someday</span></li>\n" +
		"<li><b>No link</b></li>\n</ul></body></html>\n"})
	src := &dynamo.Source{ID: "notices", URL: o.URL + "/notices", Interval: dynamo.Duration(time.Hour)}
	annotate.Selectors{Item: "ul.n li", Title: "b, a", Link: "a", Date: "span"}.SetOn(src)
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	p := newPoller(t, st)
	if out := pollNow(t, p, "notices"); out.Status != dynamo.StatusChanged || out.NewItems != 3 {
		t.Fatalf("poll: %+v", out)
	}
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "notices"})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, it := range items {
		titles[it.Item.Title] = it.Item.Link
	}
	if titles["Road closed"] != o.URL+"/n/1" || titles["Bin day moves"] != o.URL+"/n/2" || titles["No link"] != o.URL+"/notices#item-3" {
		t.Errorf("items %v", titles)
	}
	got, err := st.Source(ctx, "notices")
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, w := range got.State.Warnings {
		all = append(all, w.String())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{`line 4: <item:extension> dc:date: "someday" is not a date`, "line 5: item 3: the link selector matches nothing in it"} {
		if !strings.Contains(joined, want) {
			t.Errorf("kept warnings lack %q:\n%s", want, joined)
		}
	}
	// An unchanged page keeps the warnings of the page read last.
	if out := pollNow(t, p, "notices"); out.Status == dynamo.StatusError {
		t.Fatalf("second poll: %+v", out)
	}
	if again, _ := st.Source(ctx, "notices"); len(again.State.Warnings) != len(got.State.Warnings) {
		t.Errorf("an unchanged page lost its warnings: %v", again.State.Warnings)
	}
	// A redesign under the selectors is an error, not an empty feed.
	o.set("/notices", page{body: "<html><body><p>Redesigned</p></body></html>"})
	if out := pollNow(t, p, "notices"); out.Status != dynamo.StatusError || !strings.Contains(out.Error, "the item selector matches nothing") {
		t.Errorf("poll of a redesigned page: %+v", out)
	}
}

// An html source keeps the warnings of its annotations, and loses them
// once the page is fixed.
func TestHTMLSourceKeepsWarnings(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/news", page{body: "<title>N</title>\n<!-- <item:titel index=1> -->A<!-- </item:titel> -->\n<!-- <item:title index=1> -->A<!-- </item:title> -->"})
	addSource(t, st, "news", o.URL+"/news", dynamo.KindHTML)
	p := newPoller(t, st)
	pollNow(t, p, "news")
	src, _ := st.Source(ctx, "news")
	if len(src.State.Warnings) != 1 || src.State.Warnings[0].Line != 2 || !strings.Contains(src.State.Warnings[0].Message, "did you mean <item:title>?") {
		t.Fatalf("warnings %v", src.State.Warnings)
	}
	o.set("/news", page{body: "<title>N</title>\n<!-- <item:title index=1> -->A fixed page<!-- </item:title> -->"})
	pollNow(t, p, "news")
	if src, _ = st.Source(ctx, "news"); len(src.State.Warnings) != 0 {
		t.Errorf("warnings after the fix: %v", src.State.Warnings)
	}
}

// TestFeedSourceKeepsWarnings: a native feed's repairs (docs/NATIVE_FEEDS.md
// "Repairs before parsing") are kept as the source's warnings, as a page's
// are, so that an operator sees what was wrong with the feed; a repaired
// feed loses them.
func TestFeedSourceKeepsWarnings(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	const broken = `<rss version="2.0"><channel><title>T</title><link>http://example.org/</link><description>d</description>` +
		`<item><title>AT&T</title><link>http://example.org/a</link></item></channel></rss>`
	o.set("/feed.xml", page{body: broken, contentType: "application/rss+xml"})
	addSource(t, st, "wire", o.URL+"/feed.xml", dynamo.KindFeed)
	p := newPoller(t, st)
	pollNow(t, p, "wire")
	src, _ := st.Source(ctx, "wire")
	if len(src.State.Warnings) != 1 || !strings.Contains(src.State.Warnings[0].Message, "bare ampersands") {
		t.Fatalf("warnings %v, want the bare ampersand's repair", src.State.Warnings)
	}
	o.set("/feed.xml", page{body: strings.Replace(broken, "AT&T", "AT&amp;T", 1), contentType: "application/rss+xml"})
	pollNow(t, p, "wire")
	if src, _ = st.Source(ctx, "wire"); len(src.State.Warnings) != 0 {
		t.Errorf("warnings after the fix: %v", src.State.Warnings)
	}
}

// TestCorpusSelectorSources: every corpus page, followed by a selectors
// source made of the suggester's selectors (dynamo annotate --selectors)
// and polled over loopback, archives the items that annotating the page
// and wrapping it give.
func TestCorpusSelectorSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	p := newPoller(t, st)
	files, _ := filepath.Glob(filepath.Join("..", "annotate", "testdata", "corpus", "*.html"))
	if len(files) < 30 {
		t.Fatalf("%d corpus pages", len(files))
	}
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(filepath.Base(file), ".html")
		path := "/" + id + ".html"
		o.set(path, page{body: string(body), contentType: "text/html"})
		res, err := annotate.Suggest(body, annotate.Options{URL: o.URL + path, ContentType: "text/html"})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		sel, _, err := res.Selectors()
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		src := &dynamo.Source{ID: id, URL: o.URL + path, Interval: dynamo.Duration(time.Hour)}
		sel.SetOn(src)
		if err := src.Validate(nil); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		if out := pollNow(t, p, id); out.Status != dynamo.StatusChanged {
			t.Errorf("%s: poll %+v", id, out)
			continue
		}
		doc, _, err := st.Document(ctx, id, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := res.Wrapped().Resource.Items
		if len(doc.Items) != len(want) {
			t.Errorf("%s: %d items archived, annotate gives %d", id, len(doc.Items), len(want))
			continue
		}
		for i := range want {
			if doc.Items[i].Title != want[i].Title || doc.Items[i].Link != want[i].Link {
				t.Errorf("%s: item %d archived as %q %s, annotate gives %q %s", id, i+1, doc.Items[i].Title, doc.Items[i].Link, want[i].Title, want[i].Link)
			}
		}
	}
}

// freshRSSOPML is an export of FreshRSS with one "HTML + XPath" feed and
// one ordinary feed, in a folder.
const freshRSSOPML = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
	<head><title>FreshRSS</title></head>
	<body>
		<outline text="Council">
			<outline xmlns:frss="https://freshrss.org/opml" text="Notices – Clearwater County" type="HTML+XPath"
				xmlUrl="ORIGIN/notices" htmlUrl="ORIGIN/notices"
				frss:xPathItem="//dl[@class='notices']/dt" frss:xPathItemTitle="normalize-space(a)"
				frss:xPathItemUri="a/@href" frss:xPathItemContent="following-sibling::dd[2]"
				frss:xPathItemTimestamp="following-sibling::dd[1]" frss:ttl="7200"/>
		</outline>
	</body>
</opml>`

const noticesPage = `<html><head><title>Notices – Clearwater County</title></head><body>
<dl class="notices">
<dt><a href="/n/31.pdf">Notice of Hearing: Old Mill Road</a></dt><dd class="posted">Posted: 03/13/2024</dd><dd>The Board will hear comments on April 2.</dd>
<dt><a href="/n/30.pdf">Invitation to Bid: Gravel</a></dt><dd class="posted">Posted: 03/08/2024</dd><dd>Sealed bids are due on March 28.</dd>
</dl></body></html>`

// FreshRSS-style OPML in, a polled selectors source, the same OPML out.
func TestFreshRSSOPMLRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/notices", page{body: noticesPage})
	in := strings.ReplaceAll(freshRSSOPML, "ORIGIN", o.URL)
	entries, err := opml.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	svc := &sources.Service{Store: st}
	results, err := svc.Import(ctx, entries, nil)
	if err != nil || len(results) != 1 || results[0].Outcome != sources.ImportRegistered {
		t.Fatalf("import: %+v (%v)", results, err)
	}
	id := results[0].ID
	src, err := st.Source(ctx, id)
	if err != nil || src.Kind != dynamo.KindSelectors || src.SelectorSyntax != "xpath" || src.Category != "Council" || time.Duration(src.Interval) != 2*time.Hour {
		t.Fatalf("imported %+v (%v)", src, err)
	}
	p := newPoller(t, st)
	if out := pollNow(t, p, id); out.Status != dynamo.StatusChanged || out.NewItems != 2 {
		t.Fatalf("poll: %+v", out)
	}
	doc, _, err := st.Document(ctx, id, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := doc.Items[0].Date()
	if doc.Items[0].Title != "Notice of Hearing: Old Mill Road" || doc.Items[0].Link != o.URL+"/n/31.pdf" ||
		doc.Items[0].Description != "The Board will hear comments on April 2." || d.Format("2006-01-02") != "2024-03-13" {
		t.Errorf("item %+v", doc.Items[0])
	}
	list, err := st.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := opml.WriteSources(&out, list, "http://dynamo.example"); err != nil {
		t.Fatal(err)
	}
	back, err := opml.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, entries) {
		t.Errorf("OPML out\n %+v\nwant what came in\n %+v\n%s", back, entries, out.String())
	}
}
