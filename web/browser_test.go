package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which scripts/test.sh installs.
const chromiumPath = "/usr/bin/chromium"

// artifactDir is where the browser tests leave their screenshots:
// $DYNAMO_ARTIFACTS/web when set (CI collects it), else
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

func TestBrowser(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.seedExamples(t)
	ctx := browser(t)
	base := e.srv.URL

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
		screenshot(t, ctx, "source")
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
	})
}
