package api

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/antchfx/xmlquery"

	"github.com/dynamo-feeds/dynamo"
)

// TestXPathTreeFactor checks the estimate behind XPathMemory: xmlquery's
// tree of a stored version takes at most xpathTreeFactor bytes per byte of
// its XML, measured on a version of DefaultMaxItems-like size (5,000 items
// with short and long descriptions).
func TestXPathTreeFactor(t *testing.T) {
	doc := &dynamo.Resource{URL: "http://example.org/", Timestamp: time.Unix(0, 0).UTC(),
		Channel: dynamo.Channel{Title: "t", Link: "http://example.org/", Description: "d"}}
	for i := range 5000 {
		desc := "<p>short</p>"
		if i%2 == 0 {
			desc = "<p>" + string(bytes.Repeat([]byte("a longer description of the story "), 10)) + "</p>"
		}
		doc.Items = append(doc.Items, dynamo.Item{Index: i + 1, ID: fmt.Sprintf("id-%d", i), Title: fmt.Sprintf("Story number %d", i),
			Link: fmt.Sprintf("http://example.org/%d", i), Description: desc})
	}
	data := doc.XML()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	root, err := xmlquery.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	tree := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(root)
	t.Logf("%d bytes of XML, a tree of %d bytes: %.1f× (estimate %d×)", len(data), tree, float64(tree)/float64(len(data)), xpathTreeFactor)
	if tree > int64(len(data))*xpathTreeFactor {
		t.Errorf("the tree takes %d bytes, more than %d× the %d bytes of XML", tree, xpathTreeFactor, len(data))
	}
}

// TestXPathBracketsAcceptsValid: the bracket check leaves alone what the
// library compiles whole, brackets and quotes inside string literals
// included (TestReadErrors has the refused ones, over HTTP).
func TestXPathBracketsAcceptsValid(t *testing.T) {
	for _, expr := range []string{
		"//item",
		"//item[contains(title, 'a]')]",
		`//item[contains(title, "it's (1")]`,
		"//item[position() < 3][contains(concat(title, ' ', link), '[x')]",
		"(//item)[last()]",
	} {
		if _, err := compileXPath(expr); err != nil {
			t.Errorf("%q refused: %v", expr, err)
		}
	}
}
