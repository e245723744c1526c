package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/xsscorpus"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/web"
)

// chromiumPath is Debian's Chromium, which scripts/test.sh installs.
const chromiumPath = "/usr/bin/chromium"

// artifactDir is where the browser tests leave their screenshots:
// $DYNAMO_ARTIFACTS/web when set (scripts/test.sh sets it to the
// checkout's artifacts/), else
// $TMPDIR/dynamo-artifacts/web. It is not removed after the test.
func artifactDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("DYNAMO_ARTIFACTS")
	if root == "" {
		root = filepath.Join(os.TempDir(), "dynamo-artifacts")
	}
	dir := filepath.Join(root, "web")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifact directory: %v", err)
	}
	return dir
}

// browser starts a headless Chromium that talks to nothing but the test's
// loopback servers, with a fresh profile; it fails the test (rather than
// skipping it) when Chromium is missing.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (%v): install it with apt-get install chromium, or run scripts/test.sh, which does", chromiumPath, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// step runs actions with a time limit, failing the test with what was
// being done.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// screenshot saves the whole page as a PNG artifact.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := value(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	path := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot: %s", path)
}

// phone is the viewport of a phone 390 px wide.
func phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2))
}

// capture saves the page as laid out at desktop width (name.png) and at a
// phone's (name-phone.png), audits it at both widths and checks that on
// the phone nothing is wider than the screen. The viewport changes without
// a reload, so a page that answered a form is captured as it was answered
// (a reload would send the form again).
func capture(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	screenshot(t, ctx, name)
	audit(t, ctx, name)
	step(t, ctx, "phone viewport", phone())
	defer step(t, ctx, "desktop viewport", chromedp.EmulateViewport(1280, 900))
	if wide := value(t, ctx, "measure", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); wide > 390 {
		t.Errorf("%s is %dpx wide on a 390px phone", name, wide)
	}
	screenshot(t, ctx, name+"-phone")
	audit(t, ctx, name+"-phone")
}

// download clicks the link selected on the page loaded in ctx, lets the
// browser save what it answers as a download, and reads the file as OPML.
func download(t *testing.T, ctx context.Context, link string) []opml.Entry {
	t.Helper()
	dir := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	progress := chromedp.Events(dctx, cdpbrowser.DownloadProgress)
	step(t, ctx, "download "+link, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &[]bool{true}[0]})
		return err
	}), chromedp.Click(chromedp.CSS(link)))
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download %s: %v", link, err)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCanceled {
			t.Fatalf("download %s: canceled", link)
		}
		if ev.State != cdpbrowser.DownloadProgressStateCompleted {
			continue
		}
		f, err := os.Open(filepath.Join(dir, ev.GUID))
		if err != nil {
			t.Fatalf("the downloaded file: %v", err)
		}
		defer f.Close()
		entries, err := opml.Parse(f)
		if err != nil {
			t.Fatalf("the downloaded file is no OPML: %v", err)
		}
		return entries
	}
	t.Fatalf("download %s: it never completed", link)
	return nil
}

// auditScript looks over the page as the browser laid it out and lists
// what would fail a reader: a form field without a label, a page without
// exactly one h1, a heading level skipped, an image without a text
// alternative, or visible text (HTML, and the charts' SVG text) whose
// colour contrasts with its background less than WCAG AA asks (4.5:1, or
// 3:1 for large text). The background is the first opaque one among the
// element and its ancestors, as the pages draw text on flat colours.
const auditScript = `(() => {
  const problems = [];
  const rgba = c => { const m = c.match(/[\d.]+/g) || [0, 0, 0, 0]; return m.map(Number).concat(m.length < 4 ? [1] : []); };
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = el => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] >= 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && el.className.baseVal === undefined && el.className ? "." + String(el.className).split(" ")[0] : "");
  for (const f of document.querySelectorAll("input:not([type=hidden]), select, textarea")) {
    if (!(f.labels && f.labels.length) && !f.getAttribute("aria-label") && !f.getAttribute("aria-labelledby")) problems.push("no label: " + name(f));
  }
  const hs = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map(h => +h.tagName[1]);
  if (hs.filter(l => l === 1).length !== 1) problems.push(hs.filter(l => l === 1).length + " h1 elements");
  for (let i = 1; i < hs.length; i++) if (hs[i] > hs[i - 1] + 1) problems.push("heading h" + hs[i] + " after h" + hs[i - 1]);
  for (const img of document.querySelectorAll("img:not([alt])")) problems.push("image without alt: " + img.src);
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!t.data.trim() || seen.has(el) || el.closest("title, style, .vh, .skip")) continue;
    seen.add(el);
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (r.width < 2 || r.height < 2 || cs.visibility === "hidden" || cs.display === "none" || +cs.opacity === 0) continue;
    const svg = el instanceof SVGElement;
    const fg = rgba(svg ? cs.fill : cs.color);
    const bg = background(svg ? el.closest("svg").parentElement : el);
    const mixed = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const [a, b] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(cs.fontSize), bold = +cs.fontWeight >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) problems.push("contrast " + ratio.toFixed(2) + " < " + need + ": " + name(el) + " " + JSON.stringify(t.data.trim().slice(0, 40)));
  }
  return problems;
})()`

// audit fails the test with every accessibility problem auditScript finds
// on the page loaded in ctx.
func audit(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, p := range value(t, ctx, "audit "+page, chromedp.Evaluate[[]string](auditScript)) {
		t.Errorf("%s: %s", page, p)
	}
}

func TestBrowser(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := browser(t)
	base := withAPI(t, e, e.cfg).URL // the API beside the pages: OPML export, feeds

	t.Run("audit catches problems", func(t *testing.T) {
		// The audit itself, on a page with one problem of each kind.
		bad := `<html><body><h2>No h1</h2><h4>Skipped</h4><p style="color:#aaa">pale text</p>` +
			`<input id="x"><svg><text fill="#ddd" x="5" y="15">pale label</text></svg></body></html>`
		step(t, ctx, "load a bad page", chromedp.Navigate("data:text/html,"+url.PathEscape(bad)))
		got := strings.Join(value(t, ctx, "audit", chromedp.Evaluate[[]string](auditScript)), "\n")
		for _, want := range []string{"no label: input#x", "0 h1 elements", "heading h4 after h2", `"pale text"`, `"pale label"`} {
			if !strings.Contains(got, want) {
				t.Errorf("the audit misses %q; it found:\n%s", want, got)
			}
		}
	})

	t.Run("sources", func(t *testing.T) {
		step(t, ctx, "load the sources", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.sources")))
		if loc := value(t, ctx, "location", chromedp.Location()); loc != base+"/ui/" {
			t.Errorf("/ led to %s, want %s/ui/", loc, base)
		}
		rows := value(t, ctx, "count rows", chromedp.Evaluate[int](`document.querySelectorAll("table.sources tbody tr").length`))
		if rows != 3 {
			t.Errorf("%d sources listed, want 3", rows)
		}
		screenshot(t, ctx, "sources")
		audit(t, ctx, "sources")
		step(t, ctx, "poll news now", chromedp.Click(chromedp.CSS(`form[action="/ui/sources/news/poll"] button`)), chromedp.WaitVisible(chromedp.CSS("p.flash")))
		flash := value(t, ctx, "read the message", chromedp.Text(chromedp.CSS("p.flash")))
		if !strings.HasPrefix(flash, "Polled news: changed") {
			t.Errorf("after poll now, the page says %q", flash)
		}
		step(t, ctx, "phone layout", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)), chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("table.sources")))
		// On a phone the table turns into cards: nothing is wider than the screen.
		wide := value(t, ctx, "measure", chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		if wide > 390 {
			t.Errorf("the sources page is %dpx wide on a 390px phone", wide)
		}
		screenshot(t, ctx, "sources-phone")
		audit(t, ctx, "sources-phone")
		step(t, ctx, "desktop layout", chromedp.EmulateViewport(1280, 900))
	})

	t.Run("source", func(t *testing.T) {
		step(t, ctx, "load a source", chromedp.Navigate(base+"/ui/sources/news"), chromedp.WaitVisible(chromedp.CSS("ol.timeline")))
		charts := value(t, ctx, "count charts", chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg").length`))
		if charts != 3 {
			t.Errorf("%d charts drawn, want 3", charts)
		}
		// The charts are drawn: their bars have a size in the page.
		bars := value(t, ctx, "measure bars", chromedp.Evaluate[int](`[...document.querySelectorAll("svg rect.rate")].filter(r => r.getBoundingClientRect().height > 0).length`))
		if bars == 0 {
			t.Error("no hourly bar has a height")
		}
		// The timeline names what version 2 added and removed.
		delta := value(t, ctx, "read the timeline", chromedp.Text(chromedp.CSS("ol.timeline ul.delta")))
		if !strings.Contains(delta, "Extra Edition: Snow Day Declared") || !strings.Contains(delta, "Council Approves 2006 Budget") {
			t.Errorf("version 2's changes read %q", delta)
		}
		screenshot(t, ctx, "source")
		audit(t, ctx, "source")
	})

	t.Run("hostile source", func(t *testing.T) {
		step(t, ctx, "load the hostile source", chromedp.Navigate(base+"/ui/sources/hostile"), chromedp.WaitVisible(chromedp.CSS("ol.items")))
		n := value(t, ctx, "count", chromedp.Evaluate[int](`document.querySelectorAll("script, img, svg[onload], [onerror]").length`))
		if n != 0 {
			t.Errorf("%d script, image or handler elements on the page", n)
		}
		title := value(t, ctx, "read the title", chromedp.Text(chromedp.CSS("ol.items h3")))
		if !strings.Contains(title, "<script>alert(1)</script>") {
			t.Errorf("the hostile title shows as %q, want it as text", title)
		}
		screenshot(t, ctx, "source-hostile")
		audit(t, ctx, "source-hostile")
	})

	t.Run("playground", func(t *testing.T) {
		step(t, ctx, "open the playground", chromedp.Navigate(base+"/ui/playground"), chromedp.WaitVisible(chromedp.ID("guide-h")))
		step(t, ctx, "open the sloppy example",
			chromedp.Click(chromedp.CSS(`a.button[href="/ui/playground?example=sloppy.html"]`)),
			chromedp.WaitVisible(chromedp.CSS("ul.warnings")))
		warnings := value(t, ctx, "count warnings", chromedp.Evaluate[int](`document.querySelectorAll("ul.warnings li").length`))
		inline := value(t, ctx, "count inline warnings", chromedp.Evaluate[int](`document.querySelectorAll("tr.has-warning .warn-inline").length`))
		if warnings == 0 || inline != warnings {
			t.Errorf("%d warnings listed, %d next to their lines; want the same, more than none", warnings, inline)
		}
		// A warning's link leads to its line.
		step(t, ctx, "follow a warning", chromedp.Click(chromedp.CSS("ul.warnings li a")))
		target := value(t, ctx, "read the target", chromedp.Evaluate[string](`document.querySelector(":target") ? document.querySelector(":target").id : ""`))
		if !strings.HasPrefix(target, "L") {
			t.Errorf("the warning's link targets %q, want a line", target)
		}
		rss := value(t, ctx, "read the RSS 2.0 feed", chromedp.Text(chromedp.CSS("#feed-rss2 pre")))
		if !strings.Contains(rss, `<rss `) || !strings.Contains(rss, "Oak Hill Chess Club") {
			t.Errorf("the RSS 2.0 feed is not shown: %.200q", rss)
		}
		screenshot(t, ctx, "playground-sloppy")
		audit(t, ctx, "playground-sloppy")

		// Fix the page in the text box: drop everything but one good item.
		page := `<html><head><title>Fixed</title></head><body>
<!-- <item:title index="1"> -->All fixed<!-- </item:title> -->
<!-- <item:description index="1"> -->No more <b>mistakes</b>.<!-- </item:description> -->
</body></html>`
		step(t, ctx, "paste a page",
			chromedp.SetValue(chromedp.ID("page"), page),
			chromedp.Click(chromedp.CSS(`form.stack button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS("p.ok-box")))
		items := value(t, ctx, "read the items", chromedp.Text(chromedp.CSS("#items-h + ol.items")))
		if !strings.Contains(items, "All fixed") {
			t.Errorf("the pasted page's items show %q", items)
		}
		screenshot(t, ctx, "playground-pasted")
		audit(t, ctx, "playground-pasted")

		// A page longer than the line view: its first 5,000 lines are
		// drawn, and the note above them says how many there are.
		// The pasted page before it has an ok-box too, so the wait is for
		// the long page's own note, then for its document to be complete:
		// rows counted while the table is still parsed fall short.
		long := page + strings.Repeat("\nx", 20000)
		step(t, ctx, "paste a long page",
			chromedp.SetValue(chromedp.ID("page"), long),
			chromedp.Click(chromedp.CSS(`form.stack button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS("#source-h ~ p.note")),
			chromedp.Poll[chromedp.Void](`document.readyState === "complete"`))
		rows := value(t, ctx, "count the lines drawn", chromedp.Evaluate[int](`document.querySelectorAll('table.code tr[id^="L"]').length`))
		note := value(t, ctx, "read the note", chromedp.Text(chromedp.CSS("#source-h ~ p.note")))
		if rows != 5000 || !strings.Contains(note, "Showing lines 1–5000 of 20004") {
			t.Errorf("the long page: %d lines drawn, note %q; want 5000 and the note", rows, note)
		}
		audit(t, ctx, "playground-long")
	})

	t.Run("login and error pages", func(t *testing.T) {
		step(t, ctx, "load the login page", chromedp.Navigate(base+"/ui/login"), chromedp.WaitVisible(chromedp.CSS("main h1")))
		audit(t, ctx, "login")
		step(t, ctx, "load a missing page", chromedp.Navigate(base+"/ui/sources/nowhere"), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if msg := value(t, ctx, "read the error", chromedp.Text(chromedp.CSS("main"))); !strings.Contains(msg, `There is no source "nowhere"`) {
			t.Errorf("the 404 page says %q", msg)
		}
		audit(t, ctx, "not-found")
	})

	t.Run("phone", func(t *testing.T) {
		// Every page fits a 390px phone screen: wide content (the page's
		// source, feeds, tables) scrolls inside its own box.
		step(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		defer step(t, ctx, "desktop viewport", chromedp.EmulateViewport(1280, 900))
		for _, p := range []struct{ name, path string }{
			{"source-phone", "/ui/sources/news"},
			{"playground-phone", "/ui/playground?example=sloppy.html"},
			{"search-phone", "/ui/search?id=news&title=bridge&op=or&desc=overnight"},
			{"login-phone", "/ui/login"},
		} {
			step(t, ctx, "load "+p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS("main h1")))
			if wide := value(t, ctx, "measure", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); wide > 390 {
				t.Errorf("%s is %dpx wide on a 390px phone", p.path, wide)
			}
			audit(t, ctx, p.name)
			if p.name != "login-phone" {
				screenshot(t, ctx, p.name)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		step(t, ctx, "search",
			chromedp.Navigate(base+"/ui/search"),
			chromedp.WaitVisible(chromedp.ID("id")),
			chromedp.SetValue(chromedp.ID("id"), "news"),
			chromedp.SetValue(chromedp.ID("value1"), "bridge"),
			chromedp.SetValue(chromedp.ID("op2"), "or"),
			chromedp.SetValue(chromedp.ID("field2"), "description"),
			chromedp.SetValue(chromedp.ID("value2"), "overnight"),
			chromedp.Click(chromedp.CSS(`form.search button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.ID("results-h")))
		heading := value(t, ctx, "read the results", chromedp.Text(chromedp.ID("results-h")))
		if heading != "2 items found" {
			t.Errorf("results heading %q, want 2 items found", heading)
		}
		if loc := value(t, ctx, "location", chromedp.Location()); !strings.HasSuffix(loc, "/ui/search?id=news&title=bridge&op=or&desc=overnight") {
			t.Errorf("the search's URL is %s", loc)
		}
		rest := value(t, ctx, "read the REST URL", chromedp.Text(chromedp.CSS("a.rest")))
		if rest != "/resources/news?title=bridge&op=or&desc=overnight&max=100&type=rss2" {
			t.Errorf("REST URL shown: %q", rest)
		}
		screenshot(t, ctx, "search")
		audit(t, ctx, "search")

		// Every source, the default: the form's collection left as it is.
		step(t, ctx, "search every source",
			chromedp.Navigate(base+"/ui/search"),
			chromedp.WaitVisible(chromedp.ID("value1")),
			chromedp.SetValue(chromedp.ID("field1"), "link"),
			chromedp.SetValue(chromedp.ID("value1"), "http"),
			chromedp.Click(chromedp.CSS(`form.search button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.ID("results-h")))
		in := value(t, ctx, "read the sources", chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll("ol.results p.meta a")].map(a => a.textContent))]`))
		if len(in) < 2 {
			t.Errorf("a search of every source found items in %q only", in)
		}
		if rest := value(t, ctx, "read the REST URL", chromedp.Text(chromedp.CSS("a.rest"))); !strings.HasPrefix(rest, "/aggregate?link=http") {
			t.Errorf("the search of every source offers %q", rest)
		}
		capture(t, ctx, "search-everywhere")
	})

	t.Run("suggest annotations and follow the page", func(t *testing.T) {
		page, err := os.ReadFile(filepath.Join("..", "annotate", "testdata", "corpus", "gov-press-ul.html"))
		if err != nil {
			t.Fatal(err)
		}
		e.site.mu.Lock()
		e.site.pages["/press.html"] = sitePage{page, "text/html; charset=utf-8"}
		e.site.mu.Unlock()
		step(t, ctx, "paste a page with no annotations and ask for suggestions",
			chromedp.Navigate(base+"/ui/playground"),
			chromedp.WaitVisible(chromedp.ID("page")),
			chromedp.SetValue(chromedp.ID("page"), string(page)),
			chromedp.SetValue(chromedp.ID("url"), e.site.URL+"/press.html"),
			chromedp.Click(chromedp.CSS(`form.stack button[value="suggest"]`)),
			chromedp.WaitVisible(chromedp.ID("suggest-h")))
		changed := value(t, ctx, "count changed lines", chromedp.Evaluate[int](`document.querySelectorAll("table.diff tr.add").length`))
		inserted := value(t, ctx, "count insertions", chromedp.Evaluate[int](`document.querySelectorAll("table.diff ins").length`))
		if changed != 7 || inserted < 21 {
			t.Errorf("the diff shows %d changed lines and %d insertions; want the 7 items' lines, each with a title, a link and a date", changed, inserted)
		}
		items := value(t, ctx, "read the items", chromedp.Text(chromedp.CSS("#items-h + ol.items")))
		if !strings.Contains(items, "index 7") || !strings.Contains(items, "Governor names new State Parks director") {
			t.Errorf("the feed of the suggestion shows %.300q", items)
		}
		screenshot(t, ctx, "playground-suggest")
		audit(t, ctx, "playground-suggest")
		step(t, ctx, "follow the page as it is",
			chromedp.Click(chromedp.CSS(`form[action="/ui/sources"] button`)),
			chromedp.WaitVisible(chromedp.CSS("p.flash")))
		if facts := value(t, ctx, "read the source", chromedp.Text(chromedp.CSS("dl.facts"))); !strings.Contains(facts, "selectors") {
			t.Errorf("the registered source says %q", facts)
		}
		audit(t, ctx, "source-selectors")
	})

	t.Run("a source's warnings, and its page in the playground", func(t *testing.T) {
		page := "<html><head><title>Club</title></head><body>\n<!-- <item:titel index=\"1\"> -->Raffle<!-- </item:titel> -->\n" +
			"<!-- <item:title index=\"2\"> -->Quiz<!-- </item:title> -->\n</body></html>\n"
		e.site.mu.Lock()
		e.site.pages["/club.html"] = sitePage{[]byte(page), "text/html; charset=utf-8"}
		e.site.mu.Unlock()
		bctx := context.Background()
		if err := e.store.CreateSource(bctx, &dynamo.Source{ID: "club", URL: e.site.URL + "/club.html", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.poller.PollNow(bctx, "club"); err != nil {
			t.Fatal(err)
		}
		step(t, ctx, "load the sources", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("a.warn-mark")))
		audit(t, ctx, "sources-warned")
		step(t, ctx, "open the warned source", chromedp.Click(chromedp.CSS("a.warn-mark")), chromedp.WaitVisible(chromedp.ID("warnings-h")))
		listed := value(t, ctx, "read the warnings", chromedp.Text(chromedp.CSS("ul.warnings")))
		if !strings.Contains(listed, "line 2: unknown annotation <item:titel> ignored; did you mean <item:title>?") {
			t.Errorf("the source page lists %q", listed)
		}
		screenshot(t, ctx, "source-warnings")
		audit(t, ctx, "source-warnings")
		step(t, ctx, "open the warning's line in the playground",
			chromedp.Click(chromedp.CSS("ul.warnings li a")),
			chromedp.WaitVisible(chromedp.CSS("tr.has-warning")))
		if target := value(t, ctx, "read the target", chromedp.Evaluate[string](`document.querySelector(":target") ? document.querySelector(":target").id : ""`)); target != "L2" {
			t.Errorf("the playground opened at %q, want L2", target)
		}
		inline := value(t, ctx, "read the inline warning", chromedp.Text(chromedp.CSS("tr.has-warning .warn-inline")))
		if !strings.Contains(inline, "did you mean <item:title>?") {
			t.Errorf("the playground shows %q on the line", inline)
		}
		audit(t, ctx, "playground-source")
	})

	t.Run("manage sources: add by URL, edit, pause, import, export, categories, delete", func(t *testing.T) {
		e.site.mu.Lock()
		// A WordPress blog in a folder, which declares a feed it no longer
		// serves: discovery lists that one with why it is not the feed.
		e.site.pages["/wp/"] = sitePage{[]byte(`<html><head><meta name="generator" content="WordPress 6.5"><title>A blog</title>` +
			`<link rel="alternate" type="application/rss+xml" title="Old feed" href="/wp/old.rss"></head><body>hello</body></html>`), "text/html"}
		e.site.pages["/wp/feed/"] = sitePage{rssFeed("The blog", "First post", "Second post"), "application/rss+xml"}
		e.site.pages["/wire.rss"] = sitePage{rssFeed("Wire", "Flash"), "application/rss+xml"}
		e.site.mu.Unlock()
		// add previews a URL, checks what the preview found, captures it,
		// adds the source as previewed and returns its id.
		add := func(path, kind, shot string, check func(), mentions ...string) string {
			t.Helper()
			step(t, ctx, "preview "+path, chromedp.Navigate(base+"/ui/add"), chromedp.WaitVisible(chromedp.ID("new-url")),
				chromedp.SetValue(chromedp.ID("new-url"), e.site.URL+path),
				chromedp.SetValue(chromedp.ID("new-category"), "web test"),
				chromedp.Click(chromedp.CSS(`button[formaction="/ui/add"]`)),
				chromedp.WaitVisible(chromedp.ID("preview-h")))
			if k := value(t, ctx, "read the kind", chromedp.Evaluate[string](`document.getElementById("new-kind").value`)); k != kind {
				t.Errorf("%s previewed as %q, want %q", path, k, kind)
			}
			found := value(t, ctx, "read the preview", chromedp.Text(chromedp.CSS("section.preview")))
			for _, m := range mentions {
				if !strings.Contains(found, m) {
					t.Errorf("the preview of %s does not say %q:\n%s", path, m, found)
				}
			}
			if check != nil {
				check()
			}
			capture(t, ctx, shot)
			step(t, ctx, "add "+path, chromedp.Click(chromedp.CSS(`form[action="/ui/sources"] button:not([formaction])`)), chromedp.WaitVisible(chromedp.CSS("p.flash")))
			return strings.TrimPrefix(value(t, ctx, "location", chromedp.Location()), base+"/ui/sources/")
		}
		add("/wp/", "feed", "add-preview-discovered", func() {
			candidates := value(t, ctx, "read the candidates", chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.candidates tbody tr")].map(r => r.className + " | " + [...r.cells].map(c => c.textContent).join(" | "))`))
			if len(candidates) != 2 || !strings.Contains(candidates[0], "/wp/old.rss") || !strings.Contains(candidates[0], "link-alternate") || !strings.Contains(candidates[0], "404") ||
				!strings.HasPrefix(candidates[1], "chosen | ") || !strings.Contains(candidates[1], "/wp/feed/") || !strings.Contains(candidates[1], "a feed (rss)") {
				t.Errorf("the candidates read %q; want the declared feed that fails with its 404, then the platform's path, chosen", candidates)
			}
		}, "recognized as wordpress", "platform-path:wordpress", "chosen", "First post", "Second post")
		if chosen := value(t, ctx, "read the source", chromedp.Text(chromedp.CSS("p.lead"))); !strings.Contains(chosen, e.site.URL+"/wp/feed/") {
			t.Errorf("the source added from the discovered site polls %q", chosen)
		}
		capture(t, ctx, "added")
		add("/wire.rss", "feed", "add-preview-feed", nil, "a feed", "Flash", "The first 1 of 1 item")
		id := add("/blog/index.html", "html", "add-preview-page", nil, "a page with annotations", "The first 4 of 4 items")

		// A refusal comes back next to its field.
		step(t, ctx, "edit with a bad interval", chromedp.Navigate(base+"/ui/sources/"+id+"/edit"), chromedp.WaitVisible(chromedp.ID("set-interval")),
			chromedp.SetValue(chromedp.ID("set-interval"), "1s"),
			chromedp.Click(chromedp.CSS(`form[action$="/settings"] button`)),
			chromedp.WaitVisible(chromedp.ID("set-interval-error")))
		if msg := value(t, ctx, "read the error", chromedp.Text(chromedp.ID("set-interval-error"))); !strings.Contains(msg, "interval 1s must be") {
			t.Errorf("the interval's error reads %q", msg)
		}
		capture(t, ctx, "edit-refused")
		step(t, ctx, "edit the interval and URL", chromedp.SetValue(chromedp.ID("set-interval"), "2h"),
			chromedp.SetValue(chromedp.ID("set-url"), e.site.URL+"/news/index.html"),
			chromedp.Click(chromedp.CSS(`form[action$="/settings"] button`)),
			chromedp.WaitVisible(chromedp.CSS("p.flash")))
		src, err := e.store.Source(context.Background(), id)
		if err != nil || src.Interval != dynamo.Duration(2*time.Hour) || src.URL != e.site.URL+"/news/index.html" {
			t.Errorf("after the edit: %+v, %v", src, err)
		}
		capture(t, ctx, "edited")
		pause := chromedp.CSS(`form[action="/ui/sources/` + id + `/pause"] button`)
		step(t, ctx, "pause", chromedp.Click(pause),
			chromedp.WaitReady(chromedp.CSS(`form[action="/ui/sources/`+id+`/pause"] input[name="paused"][value="false"]`)))
		if src, _ := e.store.Source(context.Background(), id); !src.Paused {
			t.Error("the source is not paused")
		}
		if status := value(t, ctx, "read the status", chromedp.Text(chromedp.CSS("p.lead .status"))); status != "paused" {
			t.Errorf("the paused source's page says %q", status)
		}
		capture(t, ctx, "paused")
		step(t, ctx, "resume", chromedp.Click(pause),
			chromedp.WaitReady(chromedp.CSS(`form[action="/ui/sources/`+id+`/pause"] input[name="paused"][value="true"]`)))
		if src, _ := e.store.Source(context.Background(), id); src.Paused {
			t.Error("the source is still paused")
		}

		// OPML: the import's report, then the export as the browser downloads it.
		file := filepath.Join(t.TempDir(), "subscriptions.opml")
		os.WriteFile(file, []byte(`<opml version="2.0"><body><outline text="Imported"><outline text="Wire again" type="rss" xmlUrl="`+e.site.URL+`/wire.rss"/>`+
			`<outline text="New wire" type="rss" xmlUrl="`+e.site.URL+`/wp/feed/?x=1"/></outline></body></opml>`), 0o644)
		step(t, ctx, "import a file", chromedp.Navigate(base+"/ui/opml"), chromedp.WaitVisible(chromedp.ID("file")),
			chromedp.SetUploadFiles(chromedp.ID("file"), []string{file}),
			chromedp.Click(chromedp.CSS(`form[action="/ui/opml"] button`)),
			chromedp.WaitVisible(chromedp.ID("report-h")))
		if s := value(t, ctx, "read the report", chromedp.Text(chromedp.ID("report-h"))); s != "subscriptions.opml: 1 registered, 1 skipped, 0 failed" {
			t.Errorf("the report says %q", s)
		}
		outcomes := value(t, ctx, "read the outcomes", chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.report tbody tr")].map(r => r.cells[2].textContent + " " + r.cells[3].textContent)`))
		if len(outcomes) != 2 || !strings.HasPrefix(outcomes[0], "skipped 127.0.0.1-wire.rss") || !strings.HasPrefix(outcomes[1], "registered ") {
			t.Errorf("the report's entries read %q", outcomes)
		}
		capture(t, ctx, "opml-report")
		entries := download(t, ctx, `a[download]`)
		want := map[string]string{"/wp/feed/": "web test", "/news/index.html": "web test", "/wire.rss": "web test", "/wp/feed/?x=1": "Imported"}
		for _, en := range entries {
			if cat, ok := want[strings.TrimPrefix(en.Extra["url"], e.site.URL)]; ok && cat == en.Category {
				delete(want, strings.TrimPrefix(en.Extra["url"], e.site.URL))
			}
		}
		if len(want) != 0 {
			t.Errorf("the exported file lacks %v; it holds %+v", want, entries)
		}

		step(t, ctx, "categories", chromedp.Navigate(base+"/ui/categories"), chromedp.WaitVisible(chromedp.CSS("section.category")))
		capture(t, ctx, "categories")
		step(t, ctx, "one category's list", chromedp.Click(chromedp.CSS(`a[href="/ui/?category=web+test"]`)), chromedp.WaitVisible(chromedp.CSS("table.sources")))
		if n := value(t, ctx, "count", chromedp.Evaluate[int](`document.querySelectorAll("table.sources tbody tr").length`)); n != 3 {
			t.Errorf("the category lists %d sources, want the 3 added", n)
		}
		capture(t, ctx, "sources-category")

		for _, purge := range []bool{false, true} {
			victim, radio, shot := "127.0.0.1-wire.rss", "#purge-no", "deleted-kept"
			if purge {
				victim, radio, shot = id, "#purge-yes", "deleted-purged"
			}
			if _, err := e.poller.PollNow(context.Background(), victim); err != nil { // an archive to keep or purge
				t.Fatal(err)
			}
			step(t, ctx, "choose how to delete "+victim, chromedp.Navigate(base+"/ui/sources/"+victim), chromedp.WaitVisible(chromedp.CSS("details.danger")),
				chromedp.Click(chromedp.CSS("details.danger summary")),
				chromedp.Click(chromedp.CSS(radio)))
			if !purge {
				capture(t, ctx, "delete-choice")
			}
			step(t, ctx, "delete "+victim, chromedp.Click(chromedp.CSS("details.danger button")), chromedp.WaitVisible(chromedp.CSS("p.flash")))
			capture(t, ctx, shot)
			_, err := e.store.Source(context.Background(), victim)
			if purge != errors.Is(err, dynamo.ErrNotFound) {
				t.Errorf("%s deleted with purge %v: %v", victim, purge, err)
			}
			status := value(t, ctx, "read the status", chromedp.Evaluate[string](`(() => {
  const row = [...document.querySelectorAll("table.sources tbody tr")].find(r => r.querySelector("th a").textContent === "`+victim+`");
  return row ? row.cells[1].textContent.trim() : "not listed";
})()`))
			if want := map[bool]string{false: "removed", true: "not listed"}[purge]; status != want {
				t.Errorf("after deleting %s with purge %v the list says %q, want %q", victim, purge, status, want)
			}
		}
		step(t, ctx, "the empty add form", chromedp.Navigate(base+"/ui/add"), chromedp.WaitVisible(chromedp.ID("new-url")))
		capture(t, ctx, "add")
		step(t, ctx, "the OPML page", chromedp.Navigate(base+"/ui/opml"), chromedp.WaitVisible(chromedp.ID("file")))
		capture(t, ctx, "opml")
	})

	t.Run("a failing source: the filter, its last polls and streak", func(t *testing.T) {
		bctx := context.Background()
		if err := e.store.CreateSource(bctx, &dynamo.Source{ID: "broken", URL: e.site.URL + "/broken.html", Kind: dynamo.KindHTML, Interval: dynamo.DefaultInterval}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := e.poller.PollNow(bctx, "broken"); err != nil {
				t.Fatal(err)
			}
		}
		step(t, ctx, "filter the failing sources", chromedp.Navigate(base+"/ui/"),
			chromedp.Click(chromedp.CSS(`nav.filters a[href="/ui/?status=failing"]`)),
			chromedp.WaitVisible(chromedp.CSS(`nav.filters a[aria-current="page"]`)))
		ids := value(t, ctx, "read the rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.sources tbody th a")].map(a => a.textContent)`))
		if strings.Join(ids, " ") != "broken" {
			t.Errorf("the failing filter lists %q, want broken", ids)
		}
		capture(t, ctx, "sources-failing")
		step(t, ctx, "open it", chromedp.Click(chromedp.CSS(`table.sources tbody th a`)), chromedp.WaitVisible(chromedp.CSS("table.polls")))
		polls := value(t, ctx, "count the polls", chromedp.Evaluate[int](`document.querySelectorAll("table.polls tbody tr.poll-error").length`))
		if polls != 2 {
			t.Errorf("%d failed polls listed, want 2", polls)
		}
		if s := value(t, ctx, "read the streak", chromedp.Text(chromedp.CSS("p.streak"))); !strings.Contains(s, "2 polls in a row") {
			t.Errorf("the streak reads %q", s)
		}
		if s := value(t, ctx, "read the warnings section", chromedp.Text(chromedp.CSS(`section[aria-labelledby="warnings-h"]`))); !strings.Contains(s, "has not been read successfully yet") {
			t.Errorf("a page never read says %q about its warnings", s)
		}
		row := value(t, ctx, "read the newest poll", chromedp.Evaluate[[]string](`[...document.querySelector("table.polls tbody tr").cells].map(c => c.textContent.trim())`))
		if len(row) != 7 || row[0] == "" || row[1] != "error" || row[2] != "404" || !strings.HasSuffix(row[3], "s") || row[4] != "–" || !strings.Contains(row[6], "404") {
			t.Errorf("the newest poll reads %q; want its time, error, HTTP 404, a duration, no bytes and the error", row)
		}
		capture(t, ctx, "source-failing")
	})

}

// TestBrowserFeedPage opens feed URLs in Chromium, which asks for HTML:
// the feed is shown as a page (the XSLT stylesheet Dynamo serves, which
// its CSP allows), in every format, hostile items staying text. The first
// is opened as a user would, from a source page's subscribe links.
func TestBrowserFeedPage(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	srv := withAPI(t, e, web.Config{})
	ctx := browser(t)
	step(t, ctx, "open a source page's Atom archive", chromedp.Navigate(srv.URL+"/ui/sources/news"), chromedp.WaitVisible(chromedp.CSS("table.subscribe")),
		chromedp.Click(chromedp.CSS(`table.subscribe a.feed[href="/resources/news?max=50&type=atom"]`)), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if how := value(t, ctx, "read how to subscribe", chromedp.Text(chromedp.CSS("main"))); !strings.Contains(how, "subscribe") || !strings.Contains(how, srv.URL+"/resources/news?max=50&type=atom") {
		t.Errorf("the feed page does not say how to subscribe:\n%.1500s", how)
	}
	capture(t, ctx, "feed-page")
	for _, typ := range []string{"rss1", "rss2", "atom", "json"} {
		step(t, ctx, "open the "+typ+" feed", chromedp.Navigate(srv.URL+"/resources/news?max=50&type="+typ), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if h := value(t, ctx, "read the title", chromedp.Text(chromedp.CSS("main h1"))); !strings.Contains(h, "Millbrook") {
			t.Errorf("the %s page is titled %q", typ, h)
		}
		url := value(t, ctx, "read the address", chromedp.Text(chromedp.CSS(".url code")))
		if !strings.HasPrefix(url, srv.URL+"/resources/news?max=50") || (typ != "rss2" && !strings.Contains(url, "type="+typ)) {
			t.Errorf("the %s page offers %q to subscribe to", typ, url)
		}
		if n := value(t, ctx, "count items", chromedp.Evaluate[int](`document.querySelectorAll("ol.items li").length`)); n == 0 {
			t.Errorf("the %s page lists no item", typ)
		}
		audit(t, ctx, "feed-page-"+typ)
	}
	step(t, ctx, "open the hostile feed", chromedp.Navigate(srv.URL+"/resources/hostile?max=50&type=rss2"), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if n := value(t, ctx, "count", chromedp.Evaluate[int](`document.querySelectorAll("script, img, iframe, [onerror], [onload]").length`)); n != 0 {
		t.Errorf("%d script, image or handler elements on the hostile feed's page", n)
	}
	if title := value(t, ctx, "read the items", chromedp.Text(chromedp.CSS("ol.items"))); !strings.Contains(title, "<script>alert(1)</script>") {
		t.Errorf("the hostile title shows as %q, want it as text", title)
	}
	capture(t, ctx, "feed-page-hostile")

	// The XSS corpus (internal/xsscorpus) as Chromium renders it through
	// the stylesheet: every source, every format.
	seedXSS(t, e)
	for _, s := range xssSources {
		for _, typ := range []string{"rss1", "rss2", "atom", "json"} {
			path := "/resources/" + s.id + "?max=50&type=" + typ
			step(t, ctx, "open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
			dom := value(t, ctx, "read the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`))
			if err := xsscorpus.InertPage([]byte(dom)); err != nil {
				t.Errorf("%s as Chromium renders it: %v", path, err)
			}
			if err := xsscorpus.NoBidiInHTML([]byte(dom)); err != nil {
				t.Errorf("%s as Chromium renders it: %v", path, err)
			}
			links := value(t, ctx, "read the links", chromedp.Evaluate[[]string](`[...document.querySelectorAll("[href], [src]")].map(e => e.getAttribute("href") || e.getAttribute("src"))`))
			for _, l := range links {
				if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "/") {
					t.Errorf("%s as Chromium renders it links %q", path, l)
				}
			}
			if n := value(t, ctx, "count items", chromedp.Evaluate[int](`document.querySelectorAll("ol.items li").length`)); n == 0 {
				t.Errorf("%s as Chromium renders it lists no item", path)
			}
			if s.id == "xss-rss" {
				// The references a description's text holds are decoded
				// (the source escaped its markup twice: text, not markup).
				items := value(t, ctx, "read the items", chromedp.Text(chromedp.CSS("ol.items")))
				if !strings.Contains(items, "<script>alert('e2')</script> ok") {
					t.Errorf("%s shows the twice-escaped description as %q", path, items)
				}
				if typ == "atom" {
					capture(t, ctx, "feed-page-xss")
				}
			}
		}
	}
}

// TestBrowserSourcesPages: with more sources than a page holds, the
// sources list shows a page of them, its pager leads to the next page and
// back, and its search box narrows the list on the server, as Chromium
// follows them; each page passes the audit and fits a phone.
func TestBrowserSourcesPages(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	for i := range 230 {
		src := &dynamo.Source{ID: fmt.Sprintf("src-%03d", i), URL: fmt.Sprintf("%s/p/%d.html", e.site.URL, i),
			Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}
		if i%50 == 7 {
			src.Title = "Harbour report"
		}
		if err := e.store.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	base := e.srv.URL
	bctx := browser(t)
	rows := func(what string) (int, string) {
		t.Helper()
		n := value(t, bctx, what+": count rows", chromedp.Evaluate[int](`document.querySelectorAll("table.sources tbody tr").length`))
		first := value(t, bctx, what+": read the first row", chromedp.Text(chromedp.CSS("table.sources tbody tr th a")))
		return n, first
	}
	// A click's navigation is not waited for: the wait for what marks the
	// new page (a pager link, the search's clear link, all above the
	// table) can end while the table is still being parsed, so each such
	// step also waits for the document to be complete before rows are
	// counted.
	complete := chromedp.Poll[chromedp.Void](`document.readyState === "complete"`)
	step(t, bctx, "load the sources", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("nav.pager")))
	if n, first := rows("page 1"); n != 100 || first != "src-000" {
		t.Errorf("page 1 lists %d sources from %s, want 100 from src-000", n, first)
	}
	capture(t, bctx, "sources-paged")
	step(t, bctx, "next page", chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS(`nav.pager a[rel="prev"]`)), complete)
	if loc := value(t, bctx, "location", chromedp.Location()); loc != base+"/ui/?page=2" {
		t.Errorf("the next page is %s", loc)
	}
	if n, first := rows("page 2"); n != 100 || first != "src-100" {
		t.Errorf("page 2 lists %d sources from %s, want 100 from src-100", n, first)
	}
	pager := value(t, bctx, "read the pager", chromedp.Text(chromedp.CSS("nav.pager")))
	if !strings.Contains(pager, "Sources 101–200 of 230, page 2 of 3") {
		t.Errorf("the pager reads %q", pager)
	}
	step(t, bctx, "previous page", chromedp.Click(chromedp.CSS(`nav.pager a[rel="prev"]`)), chromedp.WaitNotPresent(chromedp.CSS(`nav.pager a[rel="prev"]`)), complete)
	if n, first := rows("back to page 1"); n != 100 || first != "src-000" {
		t.Errorf("back on page 1, %d sources from %s", n, first)
	}
	step(t, bctx, "search",
		chromedp.SetValue(chromedp.ID("q"), "harbour"),
		chromedp.Click(chromedp.CSS(`form.list-search button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("form.list-search a")), complete)
	if loc := value(t, bctx, "location", chromedp.Location()); loc != base+"/ui/?q=harbour" {
		t.Errorf("the search's URL is %s", loc)
	}
	if n, first := rows("search"); n != 5 || first != "src-007" {
		t.Errorf("the search lists %d sources from %s, want the 5 titled Harbour report from src-007", n, first)
	}
	if n := value(t, bctx, "count pagers", chromedp.Evaluate[int](`document.querySelectorAll("nav.pager").length`)); n != 0 {
		t.Errorf("%d pagers for a list of one page", n)
	}
	capture(t, bctx, "sources-search")
}
