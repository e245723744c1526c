package wrapper

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// The cache answers what sanitizing answers, for the same description
// against different bases too, and stays within its two generations.
func TestDescriptionCache(t *testing.T) {
	c := newDescriptionCache()
	a, _ := url.Parse("http://a.example/news/")
	b, _ := url.Parse("http://b.example/")
	raw := `<p onclick="x()">Read <a href="story.html">the story</a><script>alert(1)</script></p>`
	for round := range 2 { // the second round reads the cache
		for _, base := range []*url.URL{a, b, nil} {
			gotHTML, gotText := c.sanitized(raw, base)
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
	for key, d := range c.cur {
		d.raw = "<p>another description</p>"
		c.cur[key] = d
	}
	if got, _ := c.sanitized(raw, a); got != sanitize.HTML(raw, a) {
		t.Errorf("a collision gave %q", got)
	}

	// Past a generation's bytes the oldest entries go.
	filler := strings.Repeat("x", 1000)
	for i := range 3 * descriptionGeneration / 1000 {
		c.sanitized(fmt.Sprintf("<p>%d %s</p>", i, filler), a)
	}
	total := c.curBytes
	for _, d := range c.old {
		total += d.size()
	}
	if total > 2*descriptionGeneration {
		t.Errorf("%d bytes cached, want at most %d", total, 2*descriptionGeneration)
	}
}
