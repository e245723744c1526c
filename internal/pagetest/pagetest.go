// Package pagetest makes the pages that the tests of the page-size rule
// read (docs/WRAPPER.md, "Size cap"): list pages of an exact size, and the
// page at dynamo.MaxPageBytes with the annotations the suggester inserts.
package pagetest

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// URL is where the pages pretend to live, for resolving their links.
const URL = "https://council.example/notices/"

const (
	head = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Council notices</title></head>\n<body><h1>Council notices</h1>\n<ul class=\"notices\">\n"
	tail = "</ul>\n<footer><p>%s</p></footer></body></html>\n"
)

// maxItems keeps the pages' items few, whatever their size: the bytes
// that make a page large are the footer's, so that suggesting, wrapping,
// polling and storing a page at the limit stays within seconds under the
// race detector (a version of 2,600 items of 4 KiB took 24 s to poll and
// store).
const maxItems = 200

// List returns a list page of exactly size bytes: up to 200 items, each
// with a titled link, a paragraph and a date, and a footer whose text
// fills the bytes left over. size must leave room for three items.
func List(size int) []byte {
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(head)
	minTail := len(fmt.Sprintf(tail, ""))
	for i := 1; i <= maxItems; i++ {
		item := fmt.Sprintf("<li><h2><a href=\"/notices/%d\">Notice %d from the allotment committee</a></h2>\n<p>The committee met again about the water butts, the slugs and the beans (notice %d).</p>\n<span class=\"date\">%d March 2024</span></li>\n",
			i, i, i, 1+i%28)
		if b.Len()+len(item)+minTail > size {
			if i <= 3 {
				panic(fmt.Sprintf("pagetest: %d bytes hold no list", size))
			}
			break
		}
		b.WriteString(item)
	}
	filler := size - b.Len() - minTail
	words := strings.Repeat("Minutes of past meetings are kept at the town hall. ", filler/52+1)
	fmt.Fprintf(&b, tail, words[:filler])
	return b.Bytes()
}

// Items is the number of items of List(size).
func Items(size int) int {
	return bytes.Count(List(size), []byte("<li>"))
}

// Padded returns page followed by spaces up to exactly size bytes: a page
// of that size that reads as page does. Spaces rather than line breaks:
// the playground draws every line of a page, and ten million empty lines
// take it a minute and a half.
func Padded(page []byte, size int) []byte {
	if len(page) > size {
		panic(fmt.Sprintf("pagetest: a page of %d bytes cannot be padded to %d", len(page), size))
	}
	return append(append(make([]byte, 0, size), page...), bytes.Repeat([]byte(" "), size-len(page))...)
}

var atLimit = sync.OnceValues(func() ([]byte, error) {
	page := List(dynamo.MaxPageBytes)
	res, err := annotate.Suggest(page, annotate.Options{URL: URL})
	if err != nil {
		return nil, fmt.Errorf("suggesting the annotations of the page at the limit: %w", err)
	}
	if len(res.Page) <= dynamo.MaxPageBytes || len(res.Page) > dynamo.MaxAnnotatedPageBytes {
		return nil, fmt.Errorf("the page at the limit annotated has %d bytes, want more than %d and at most %d", len(res.Page), dynamo.MaxPageBytes, dynamo.MaxAnnotatedPageBytes)
	}
	return res.Page, nil
})

// AnnotatedAtLimit returns the page of exactly dynamo.MaxPageBytes as the
// suggester annotates it: over that size, within what Dynamo reads. It is
// made once per test binary.
func AnnotatedAtLimit(t testing.TB) []byte {
	t.Helper()
	page, err := atLimit()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// Notices returns a register of public notices of at most size bytes and
// how many it holds: a paragraph per notice of about 208 bytes, with a
// bold date, a link whose text is the title and a line of text. At
// dynamo.MaxPageBytes its 50,313 items' whole annotations would take the
// annotated page past dynamo.MaxAnnotatedPageBytes, and without their
// dates they do not (issue 19).
func Notices(size int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString("<html><head><title>Notices</title></head><body><h1>Public notices</h1>\n")
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	items := 0
	for ; b.Len() < size-300; items++ {
		fmt.Fprintf(&b, "<p><b>%d %s %d</b> <a href=\"/notices/%d.html\">Notice %d: planning application for the land behind the old mill</a><br>\nObjections in writing within 21 days, to the clerk of the parish council.</p>\n",
			1+items%28, months[items%12], 2010+items%15, items, items)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes(), items
}
