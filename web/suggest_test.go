package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo"
)

// inputsOf returns the named inputs of the form whose submit button says
// label.
func inputsOf(t *testing.T, page, label string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for f := range doc.Descendants() {
		if f.Type != html.ElementNode || f.Data != "form" {
			continue
		}
		vals, found := url.Values{}, false
		for n := range f.Descendants() {
			if n.Type == html.ElementNode && n.Data == "input" && attr(n, "name") != "" {
				vals.Add(attr(n, "name"), attr(n, "value"))
			}
			if n.Type == html.ElementNode && n.Data == "button" && n.FirstChild != nil && n.FirstChild.Data == label {
				found = true
			}
		}
		if found {
			return vals
		}
	}
	t.Fatalf("no form with a %q button", label)
	return nil
}

var insertedComment = regexp.MustCompile(`<!-- </?(item|channel):[^>]*> -->`)

// The playground suggests annotations for a pasted page: the list and its
// diff, the annotated page to download, and the selectors to follow the
// page as it is, which register a source that polls its items.
func TestPlaygroundSuggests(t *testing.T) {
	e := newEnv(t, envOptions{})
	page, err := os.ReadFile(filepath.Join("..", "annotate", "testdata", "corpus", "gov-press-ul.html"))
	if err != nil {
		t.Fatal(err)
	}
	e.site.mu.Lock()
	e.site.pages["/press.html"] = sitePage{page, "text/html; charset=utf-8"}
	e.site.mu.Unlock()
	pageURL := e.site.URL + "/press.html"
	c := client(t)
	resp, body := post(t, c, e.srv.URL+"/ui/playground", url.Values{"action": {"paste"}, "do": {"suggest"}, "page": {string(page)}, "url": {pageURL}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	checkSafe(t, body)
	for _, want := range []string{"Suggested annotations", "7 items", "What changes, line by line", "Or follow the page as it is", "index 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the suggestion lacks %q", want)
		}
	}
	if ins := texts(t, body, "ins", ""); len(ins) == 0 || !strings.Contains(strings.Join(ins, " "), `<!-- <item:title index="1"> -->`) {
		t.Errorf("the diff marks %d insertions: %q", len(ins), ins)
	}
	// The annotated page, downloaded, is the page with comments inserted.
	resp, got := post(t, c, e.srv.URL+"/ui/playground", inputsOf(t, body, "Download the annotated page"))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="press.annotated.html"`) {
		t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
	}
	if insertedComment.ReplaceAllString(got, "") != string(page) || !strings.Contains(got, "<!-- <item:link index=\"7\"> -->") {
		t.Errorf("the downloaded page is not the page with annotations inserted")
	}
	// Following the page as it is registers a selectors source.
	resp, _ = post(t, c, e.srv.URL+"/ui/sources", inputsOf(t, body, "Follow this page as it is"))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("register: %d", resp.StatusCode)
	}
	id := dynamo.DeriveSourceID(pageURL)
	src, err := e.store.Source(context.Background(), id)
	if err != nil || src.Kind != dynamo.KindSelectors || src.URL != pageURL {
		t.Fatalf("registered %+v (%v)", src, err)
	}
	if out, err := e.poller.PollNow(context.Background(), id); err != nil || out.NewItems != 7 {
		t.Errorf("poll of the selectors source: %+v (%v)", out, err)
	}
}

// A page fetched by URL is suggested for too, and downloaded in its own
// bytes.
func TestPlaygroundSuggestsFetched(t *testing.T) {
	e := newEnv(t, envOptions{})
	page, err := os.ReadFile(filepath.Join("..", "annotate", "testdata", "corpus", "legacy-flat-br.html"))
	if err != nil {
		t.Fatal(err)
	}
	e.site.mu.Lock()
	e.site.pages["/actualites.htm"] = sitePage{page, "text/html"}
	e.site.mu.Unlock()
	c := client(t)
	_, body := post(t, c, e.srv.URL+"/ui/playground", url.Values{"action": {"fetch"}, "do": {"suggest"}, "fetch_url": {e.site.URL + "/actualites.htm"}})
	if !strings.Contains(body, "Suggested annotations") || !strings.Contains(body, "Galette des rois des aînés") {
		t.Fatalf("no suggestion for the fetched windows-1252 page")
	}
	resp, got := post(t, c, e.srv.URL+"/ui/playground", inputsOf(t, body, "Download the annotated page"))
	if resp.StatusCode != http.StatusOK || insertedComment.ReplaceAllString(got, "") != string(page) {
		t.Errorf("the download is not the windows-1252 page's own bytes with comments inserted (%d)", resp.StatusCode)
	}
}

// The items list shows the index each item was written with.
func TestPlaygroundShowsIndexesAsWritten(t *testing.T) {
	e := newEnv(t, envOptions{})
	page := `<title>T</title><!-- <item:title index="6"> -->Six<!-- </item:title> --><!-- <item:title index="9"> -->Nine<!-- </item:title> -->`
	_, body := post(t, client(t), e.srv.URL+"/ui/playground", url.Values{"action": {"paste"}, "page": {page}})
	meta := texts(t, body, "p", "meta")
	if len(meta) != 2 || !strings.HasPrefix(meta[0], "index 6 ·") || !strings.HasPrefix(meta[1], "index 9 ·") {
		t.Errorf("items list %q, want index 6 and index 9", meta)
	}
}

// A source's warnings are shown where the operator looks: on its page,
// each with a link to its line in the playground, and in the list.
func TestSourceWarningsShown(t *testing.T) {
	e := newEnv(t, envOptions{})
	page := "<html><head><title>Club</title></head><body>\n<!-- <item:titel index=\"1\"> -->Raffle<!-- </item:titel> -->\n" +
		"<!-- <item:title index=\"2\"> -->Quiz<!-- </item:title> -->\n</body></html>\n"
	e.site.mu.Lock()
	e.site.pages["/club.html"] = sitePage{[]byte(page), "text/html; charset=utf-8"}
	e.site.mu.Unlock()
	ctx := context.Background()
	if err := e.store.CreateSource(ctx, &dynamo.Source{ID: "club", URL: e.site.URL + "/club.html", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.poller.PollNow(ctx, "club"); err != nil {
		t.Fatal(err)
	}
	c := client(t)
	_, body := get(t, c, e.srv.URL+"/ui/sources/club")
	warnings := texts(t, body, "ul", "warnings")
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 2: unknown annotation <item:titel> ignored; did you mean <item:title>?") {
		t.Errorf("source page warnings %q", warnings)
	}
	if !strings.Contains(body, `href="/ui/playground?source=club#L2"`) || !strings.Contains(body, `href="/ui/playground?source=club"`) {
		t.Error("the source page does not link the warnings to the playground")
	}
	_, list := get(t, c, e.srv.URL+"/ui/")
	if marks := texts(t, list, "a", "warn-mark"); len(marks) != 1 || !strings.HasPrefix(marks[0], "1 warning") {
		t.Errorf("the sources list marks %q", marks)
	}
	status, play := get(t, c, e.srv.URL+"/ui/playground?source=club")
	if status != http.StatusOK || !strings.Contains(play, "the page of source club") {
		t.Fatalf("playground on the source: %d", status)
	}
	if inline := texts(t, play, "div", "warn-inline"); len(inline) != 1 || !strings.Contains(inline[0], "did you mean <item:title>?") {
		t.Errorf("the playground shows %q inline", inline)
	}
}

// A feed source's repairs are shown on its page as a page's warnings are,
// without lines to link: a feed has no playground.
func TestFeedSourceWarningsShown(t *testing.T) {
	e := newEnv(t, envOptions{})
	feed := `<rss version="2.0"><channel><title>Wire</title><link>http://example.org/</link><description>d</description>` +
		`<item><title>AT&T</title><link>http://example.org/a</link></item></channel></rss>`
	e.site.mu.Lock()
	e.site.pages["/wire.xml"] = sitePage{[]byte(feed), "application/rss+xml"}
	e.site.mu.Unlock()
	ctx := context.Background()
	if err := e.store.CreateSource(ctx, &dynamo.Source{ID: "wire", URL: e.site.URL + "/wire.xml", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.poller.PollNow(ctx, "wire"); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, client(t), e.srv.URL+"/ui/sources/wire")
	if warnings := texts(t, body, "ul", "warnings"); len(warnings) != 1 || !strings.Contains(warnings[0], "bare ampersands") {
		t.Errorf("source page warnings %q", warnings)
	}
	if !strings.Contains(body, "1 warning in the feed read last") || strings.Contains(body, "/ui/playground?source=wire") {
		t.Error("the feed source's page does not head its warnings as the feed's, or links the playground")
	}
}

// A selectors source opens in the playground read through its selectors.
func TestPlaygroundFollowsSelectorsSource(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.site.mu.Lock()
	e.site.pages["/n.html"] = sitePage{[]byte("<title>N</title>\n<ul>\n<li><a href=/a>First notice</a>\n<li><a href=/b>Second notice</a>\n<li>no link\n</ul>"), "text/html"}
	e.site.mu.Unlock()
	src := &dynamo.Source{ID: "n", URL: e.site.URL + "/n.html", Kind: dynamo.KindSelectors, Interval: dynamo.DefaultInterval,
		ItemSelector: "li", TitleSelector: "a", LinkSelector: "a"}
	if err := e.store.CreateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, client(t), e.srv.URL+"/ui/playground?source=n")
	checkSafe(t, body)
	if !strings.Contains(body, "read through its selectors") || !strings.Contains(body, "item 3: the title selector matches nothing in it") {
		t.Errorf("the playground does not show the source read through its selectors")
	}
	if items := texts(t, body, "p", "meta"); len(items) != 2 {
		t.Errorf("%d items shown, want 2", len(items))
	}
}
