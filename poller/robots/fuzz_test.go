package robots

import "testing"

// FuzzParse feeds robots.txt bodies to the parser and its line-dropping
// fallback: nothing may panic or hang, and what parses answers for any
// path.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"User-agent: *\nDisallow: /private/\nCrawl-delay: 5\n",
		"Disallow: /\nUser-agent: Dynamo\nAllow: /news\n",
		"User-agent: *\nCrawl-delay: soon\nDisallow: /*.php$\n",
		"<html><body>Not found</body></html>",
		"User-agent: *\nDisallow: /search?q=\nSitemap: https://example.org/sitemap.xml\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data, err := parse(body)
		if err != nil {
			return
		}
		data.FindGroup("Dynamo").Test("/news/today.html?x=1")
	})
}
