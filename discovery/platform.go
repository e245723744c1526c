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
	for i := range platforms {
		if platforms[i].hostedAt(host) {
			return &platforms[i]
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

// maxFolderRoots bounds the folders of a page's path whose paths are
// tried besides the site's root: the page's own folder and its parent. A
// deep article URL (/2024/05/a-post/) would otherwise spend the
// discovery's requests on folders no blog is installed in.
const maxFolderRoots = 2

// installRoots returns where the software behind a page may be installed,
// nearest first: the installation the page revealed (a WordPress blog's
// root, from its wp-content links), "/" for a hosted service (its sites
// live at the host's root), else the page's folder, its parent and the
// site's root. "/blog/" is tried before "/" for /blog/a-post, so a blog
// installed in a folder is found, and found before a feed of the site
// itself.
func installRoots(page *url.URL, info pageInfo, plat *platform) []string {
	if own := ownRoot(info, plat, page.Hostname()); own != "" {
		return []string{own}
	}
	var roots []string
	dir := page.EscapedPath()
	for len(roots) < maxFolderRoots {
		i := strings.LastIndex(dir, "/")
		if i <= 0 {
			break
		}
		dir = dir[:i]
		roots = append(roots, dir+"/")
	}
	return append(roots, "/")
}

// ownRoot returns the root of the installation the page shows it belongs
// to, "" when it does not say: a WordPress root from the page's own links,
// or "/" for a page of a hosted service.
func ownRoot(info pageInfo, plat *platform, host string) string {
	switch {
	case plat == nil:
		return ""
	case plat.name == "wordpress" && info.wpRoot != "":
		return info.wpRoot
	case plat.hostedAt(host):
		return "/"
	}
	return ""
}

// hostedAt reports whether host is one of the platform's hosted sites.
func (p *platform) hostedAt(host string) bool {
	host = strings.ToLower(host)
	for _, h := range p.hosts {
		if host == h || (strings.HasPrefix(h, ".") && strings.HasSuffix(host, h)) {
			return true
		}
	}
	return false
}

// rememberedRoots returns the roots under which a path remembered under
// root is tried for the page. It is trusted where it was found only when
// the page belongs there: the page's own installation root (own, when the
// page reveals one) is that root, or, when the page reveals none, the page
// lies under it. Otherwise the path belongs to another part of the domain
// (a blog in /blog/ seen from /news/, which has its own), and only the
// remembered template is reused, under the page's own roots.
func rememberedRoots(root string, page *url.URL, roots []string, own string) []string {
	switch {
	case own != "" && own == root:
		return []string{root}
	case own == "" && strings.HasPrefix(page.EscapedPath(), root):
		return []string{root}
	}
	return roots
}

// pathPattern is the memory pattern of a template expanded under root:
// "path:/feed/" under the site's root, "path:/feed/ root=/blog/" under
// /blog/; a template that is a query on the page's URL has no root.
func pathPattern(template, root string) string {
	if root == "/" || !strings.HasPrefix(template, "/") {
		return "path:" + template
	}
	return "path:" + template + " root=" + root
}

// parsePathPattern reads a pattern written by pathPattern; ok is false for
// the other patterns. A pattern written before roots were kept
// ("path:/blog/feed/") reads as a template under the site's root.
func parsePathPattern(pattern string) (template, root string, ok bool) {
	rest, ok := strings.CutPrefix(pattern, "path:")
	if !ok || rest == "" {
		return "", "", false
	}
	template, root, found := strings.Cut(rest, " root=")
	if !found || !strings.HasPrefix(root, "/") || !strings.HasSuffix(root, "/") {
		root = "/"
	}
	return template, root, true
}
