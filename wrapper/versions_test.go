package wrapper_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// Successive versions of a page: item ids follow the items (docs/WRAPPER.md "Items") and
// the content hash changes exactly when the informational content does
// (docs/POLLER.md "One poll").
func TestIDsAndContentHashAcrossVersions(t *testing.T) {
	const v1 = `<title>News</title>
<!-- <item:link index="1"> --><a href="/a.html"><!-- </item:link> --><!-- <item:title index="1"> -->Alpha<!-- </item:title> --></a>
<!-- <item:description index="1"> -->First story.<!-- </item:description> -->
<!-- <item:title index="2"> -->Brief without link<!-- </item:title> -->
<!-- <item:description index="2"> -->Short.<!-- </item:description> -->
<!-- <item:extension index="2" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date">2005-12-08 08:25</item:extension> -->`
	wrapAt := func(page string, now time.Time) *dynamo.Resource {
		return wrapper.Wrap([]byte(page), wrapper.Options{URL: pageURL, RSSID: "news", Now: now}).Resource
	}
	later := testNow.Add(24 * time.Hour)
	first := wrapAt(v1, testNow)
	tests := []struct {
		name     string
		page     string
		sameHash bool
		sameID   map[int]int // item (0-based) of this version → item of v1 with the same id
		newID    []int       // items of this version whose ids no v1 item has
	}{
		{name: "the same page fetched later", page: v1, sameHash: true, sameID: map[int]int{0: 0, 1: 1}},
		{
			name:     "only a date changed: not a new version",
			page:     strings.Replace(v1, "2005-12-08 08:25", "2005-12-09 10:00", 1),
			sameHash: true, sameID: map[int]int{0: 0, 1: 1},
		},
		{
			name:   "edited titles: a new version; the linked item keeps its id, the other gets a new one",
			page:   strings.Replace(strings.Replace(v1, "Alpha", "Alpha (updated)", 1), "Brief without link", "Brief, edited", 1),
			sameID: map[int]int{0: 0}, newID: []int{1},
		},
		{
			name: "a new item on top: the others keep their ids though their index and default link change",
			page: strings.NewReplacer(`index="1"`, `index="2"`, `index="2"`, `index="3"`).Replace(v1) +
				`<!-- <item:title index="1"> -->Breaking<!-- </item:title> -->`,
			sameID: map[int]int{1: 0, 2: 1}, newID: []int{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := wrapAt(tt.page, later)
			if got := dynamo.ContentHash(next) == dynamo.ContentHash(first); got != tt.sameHash {
				t.Errorf("same content hash = %v, want %v", got, tt.sameHash)
			}
			for i, j := range tt.sameID {
				if next.Items[i].ID != first.Items[j].ID {
					t.Errorf("item %d (%q): id %s, want v1 item %d's %s", i+1, next.Items[i].Title, next.Items[i].ID, j+1, first.Items[j].ID)
				}
			}
			for _, i := range tt.newID {
				for _, old := range first.Items {
					if next.Items[i].ID == old.ID {
						t.Errorf("item %d (%q) has the id of v1's %q", i+1, next.Items[i].Title, old.Title)
					}
				}
			}
		})
	}
}

// TestGoldenExamples fixes the whole pipeline's output, page to feed, for
// every example page in every format (go test -update rewrites the files
// after a deliberate change; review the diff).
func TestGoldenExamples(t *testing.T) {
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(p.TimeZone)
		if err != nil {
			t.Fatal(err)
		}
		r := wrapper.Wrap(page, wrapper.Options{URL: exampleOrigin + p.Path, RSSID: strings.TrimSuffix(p.File, ".html"),
			ContentType: p.ContentType, Location: loc, Now: testNow})
		for _, f := range transform.Formats() {
			t.Run(p.File+"/"+string(f), func(t *testing.T) {
				var got bytes.Buffer
				if err := transform.Render(&got, r.Resource, f); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", strings.TrimSuffix(p.File, ".html")+"."+string(f)+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -update creates it)", err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got.Bytes())
				}
			})
		}
	}
}
