package annotate_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/pagetest"
)

var allPagesDir = flag.String("allpages", "", "write every page the annotate tests make into this directory, to compare two builds' `dynamo annotate` on them")

// TestWriteAllPages writes, with -allpages DIR, every page the annotate
// tests know or generate, as NAME.html: TestGolden's pages (the corpus,
// the fuzz regressions, the long pages), the odd-row variants and the
// new styles, and the style, dense, speed, sampled and selectors-path
// pages at 64 KiB, 1 MiB and 10 MiB. A change that makes the suggester faster
// must leave `dynamo annotate` on each byte-identical (stdout, stderr,
// exit code), in plain, --explain and --selectors modes.
func TestWriteAllPages(t *testing.T) {
	if *allPagesDir == "" {
		t.Skip("-allpages DIR not given")
	}
	pages := goldenPages(t)
	for _, half := range []string{"dev", "heldout"} {
		for _, v := range oddVariants(half) {
			pages["odd-"+v.name()] = v.page().page
		}
		for _, name := range newHalves[half] {
			for _, n := range newLengths {
				page, _ := newStyles[name](n)
				pages[fmt.Sprintf("new-%s-%d", name, n)] = []byte(page)
			}
		}
	}
	for _, size := range []int{64 << 10, 1 << 20, 10 << 20} {
		addGeneratedPages(pages, size)
	}
	pages["follow-page"] = []byte(followPage)
	for name, page := range pages {
		path := filepath.Join(*allPagesDir, strings.NewReplacer("/", "-", ",", "-", "=", "-").Replace(name)+".html")
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d pages written", len(pages))
}

// addGeneratedPages adds to pages every generated family at size: the
// style, dense, speed, sampled and selectors-path pages, the dense archive
// and pagetest's list, each named FAMILY-NAME-SIZE.
func addGeneratedPages(pages map[string][]byte, size int) {
	for _, h := range styleHalves {
		for _, n := range h.names {
			pages[fmt.Sprintf("style-%s-%d", n, size)] = stylePageOf(n, size).page
		}
	}
	for _, n := range denseStyleNames {
		pages[fmt.Sprintf("dense-%s-%d", n, size)] = denseStylePageOf(n, size).page
	}
	for _, n := range speedNames() {
		pages[fmt.Sprintf("speed-%s-%d", n, size)] = speedPageOf(n, size).page
	}
	for _, h := range sampledHalves {
		for _, n := range h.names {
			pages[fmt.Sprintf("sampled-%s-%d", n, size)] = sampledPageOf(n, size).page
		}
	}
	for _, h := range selHalves {
		for _, n := range h.names {
			if !strings.HasPrefix(n, "speed/") { // the speed pages, added above
				pages[fmt.Sprintf("sel-%s-%d", n, size)] = selPage(n, size)
			}
		}
	}
	pages[fmt.Sprintf("dense-archive-%d", size)] = denseArchive(size)
	pages[fmt.Sprintf("pagetest-list-%d", size)] = pagetest.List(size)
}
