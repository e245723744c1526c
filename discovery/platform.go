package discovery

import (
	"bytes"
	"net/url"
	"strings"
)

// A platform is blog or CMS software whose feeds live at known paths.
type platform struct {
	name string
	// generators are substrings of its <meta name="generator"> content.
	generators []string
	// hosts are the host names (or, with a leading dot, suffixes) of its
	// hosted service.
	hosts []string
	// markers are substrings of the markup it produces, lower-cased.
	markers []string
	// paths are where its feeds are, most useful first, as path templates
	// (see expand).
	paths []string
}

// platforms are recognized in this order when a page carries the markers of
// more than one (a WordPress page embedding a Squarespace image is a
// WordPress page); a generator or host match wins over markers.
var platforms = []platform{
	{name: "wordpress", generators: []string{"wordpress"}, hosts: []string{".wordpress.com"},
		markers: []string{"/wp-content/", "/wp-includes/", "/wp-json/"},
		paths:   []string{"/feed/", "/?feed=rss2", "/feed/atom/"}},
	{name: "blogger", generators: []string{"blogger"}, hosts: []string{".blogspot.com"},
		markers: []string{"xmlns:b=", "<b:", "www.blogger.com/static", "www.blogger.com/feeds", "blogblog.com"},
		paths:   []string{"/feeds/posts/default", "/feeds/posts/default?alt=rss"}},
	{name: "tumblr", generators: []string{"tumblr"}, hosts: []string{".tumblr.com"},
		markers: []string{"assets.tumblr.com", "static.tumblr.com"},
		paths:   []string{"/rss"}},
	{name: "ghost", generators: []string{"ghost"}, hosts: []string{".ghost.io"},
		markers: []string{"ghost-portal", "/ghost/api/", "data-ghost"},
		paths:   []string{"/rss/"}},
	{name: "medium", hosts: []string{"medium.com", ".medium.com"},
		markers: []string{"cdn-client.medium.com", "miro.medium.com", "com.medium.reader"},
		paths:   []string{"/feed/{first}", "/feed"}},
	{name: "substack", generators: []string{"substack"}, hosts: []string{".substack.com"},
		markers: []string{"substackcdn.com"},
		paths:   []string{"/feed"}},
	{name: "squarespace", generators: []string{"squarespace"}, hosts: []string{".squarespace.com"},
		markers: []string{"static1.squarespace.com", "this is squarespace"},
		paths:   []string{"?format=rss"}},
	{name: "wix", generators: []string{"wix.com"}, hosts: []string{".wixsite.com"},
		markers: []string{"static.wixstatic.com"},
		paths:   []string{"/blog-feed.xml"}},
	{name: "drupal", generators: []string{"drupal"},
		markers: []string{"/sites/default/files/", "drupal-settings-json", "data-drupal-"},
		paths:   []string{"/rss.xml"}},
	{name: "joomla", generators: []string{"joomla"},
		markers: []string{"/media/jui/", "/components/com_"},
		paths:   []string{"/?format=feed&type=rss", "/?format=feed&type=atom"}},
	{name: "shopify", hosts: []string{".myshopify.com"},
		markers: []string{"cdn.shopify.com"},
		paths:   []string{"/blogs/news.atom"}},
	{name: "hugo", generators: []string{"hugo"}, paths: []string{"/index.xml"}},
	{name: "jekyll", generators: []string{"jekyll"}, paths: []string{"/feed.xml"}},
}

// commonPaths are where feeds are found on sites whose software is unknown
// (or whose platform paths failed), most common first.
var commonPaths = []string{
	"/feed", "/feed/", "/rss", "/rss/", "/rss.xml", "/atom.xml", "/index.xml",
	"/feed.xml", "/feed.atom", "/feed.rss", "/feed.json", "/atom", "/index.rss",
}

// detectPlatform names the platform behind a page: first by its generator
// meta, then by its host, then by markers in its markup. "" when none fits.
func detectPlatform(info pageInfo, host string, body []byte) *platform {
	if info.generator != "" {
		for i := range platforms {
			for _, g := range platforms[i].generators {
				if strings.Contains(info.generator, g) {
					return &platforms[i]
				}
			}
		}
	}
	host = strings.ToLower(host)
	for i := range platforms {
		for _, h := range platforms[i].hosts {
			if host == h || (strings.HasPrefix(h, ".") && strings.HasSuffix(host, h)) {
				return &platforms[i]
			}
		}
	}
	lower := bytes.ToLower(body)
	for i := range platforms {
		for _, m := range platforms[i].markers {
			if bytes.Contains(lower, []byte(m)) {
				return &platforms[i]
			}
		}
	}
	return nil
}

// expand turns a path template into a URL for the page at page. A template
// starting with "/" is a path under root (the site's root, "/", or the
// root of the installation the page revealed, such as "/blog/"); one
// starting with "?" is a query on the page's own URL. {first} stands for
// the first segment of the page's path ("@alice" in /@alice/a-post); a
// template that needs it fails (ok false) for a page at the root.
func expand(template string, page *url.URL, root string) (u *url.URL, ok bool) {
	if strings.Contains(template, "{first}") {
		first, _, _ := strings.Cut(strings.TrimPrefix(page.Path, "/"), "/")
		if first == "" {
			return nil, false
		}
		template = strings.ReplaceAll(template, "{first}", url.PathEscape(first))
	}
	ref := template
	if strings.HasPrefix(template, "/") {
		ref = strings.TrimSuffix(root, "/") + template
	}
	u, err := page.Parse(ref)
	if err != nil {
		return nil, false
	}
	u.Fragment = ""
	return u, true
}

// rootTemplate rewrites a template expanded under root as one under the
// site's root, which is how domain memory keeps it: "/feed/" under
// "/blog/" is remembered as "/blog/feed/".
func rootTemplate(template, root string) string {
	if !strings.HasPrefix(template, "/") {
		return template
	}
	return strings.TrimSuffix(root, "/") + template
}
