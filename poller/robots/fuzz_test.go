package robots

import (
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// FuzzParse feeds robots.txt bodies to rulesFor: nothing may panic or
// hang; the canonical file it writes must parse (it hands nothing else to
// the parser), and every path rule in it must start with the anchor and
// hold no other '^', which keeps wildcard rules matching from the path's
// start; and the group found answers for any path.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"User-agent: *\nDisallow: /private/\nCrawl-delay: 5\n",
		"Disallow: /\nUser-agent: Dynamo\nAllow: /news\n",
		"User-agent: *\nCrawl-delay: soon\nDisallow: /*.php$\n",
		"<html><body>Not found</body></html>",
		"User-agent: *\nDisallow: /search?q=\nSitemap: https://example.org/sitemap.xml\n",
		"\xef\xbb\xbfUser-agent: Dynamo/1.0\r\nUser-agent: other\r\n\r\nDisallow: /%7ejoe/\r\nAllow: /%7Ejoe/ # a comment\r\n",
		"User-agent: dyn\nDisallow: /\nUser-agent: *\nCrawl-delay: 1e400\nDisallow: /caf\xc3\xa9\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		text, _, _ := canonical(body, "Dynamo")
		if text != "" {
			if _, err := robotstxt.FromString(text); err != nil {
				t.Fatalf("the canonical file does not parse: %v\n%s", err, text)
			}
		}
		for line := range strings.Lines(text) {
			_, path, rule := strings.Cut(line, "llow: ") // Allow or Disallow
			if rule && (!strings.HasPrefix(path, anchor) || strings.Count(path, "^") != 1) {
				t.Fatalf("the rule %q is not anchored once:\n%s", line, text)
			}
		}
		if group, _ := rulesFor(body, "Dynamo"); group != nil {
			group.Test(normalPath("/news/today.html?x=1&y=caf\xc3\xa9"))
		}
	})
}
