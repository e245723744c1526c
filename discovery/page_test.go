package discovery

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestScanPage(t *testing.T) {
	tests := []struct {
		name      string
		page      string
		url       string
		links     []string // URL|type|title
		anchors   []string // URL|title
		generator string
		wpRoot    string
	}{
		{
			name: "link alternates of every feed type, others ignored",
			url:  "https://example.org/blog/post.html",
			page: `<html><head>
				<LINK REL="alternate" TYPE="application/rss+xml" HREF="/rss.xml" title=" Posts ">
				<link rel="alternate" type="application/atom+xml; charset=utf-8" href="atom.xml">
				<link rel="alternate" type="application/feed+json" href="//cdn.example.org/feed.json">
				<link rel="alternate" type="application/rdf+xml" href="index.rdf">
				<link rel="alternate" type="text/xml" href="legacy.xml">
				<link rel="alternate" hreflang="fr" href="/fr/">
				<link rel="alternate" type="application/json" href="/wp-json/wp/v2/posts/1">
				<link rel="alternate" type="application/json+oembed" href="/oembed">
				<link rel="stylesheet" type="application/rss+xml" href="/not-alternate">
				<link rel="alternate" type="application/rss+xml" href="">
				<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
				</head></html>`,
			links: []string{
				"https://example.org/rss.xml|rss|Posts",
				"https://example.org/blog/atom.xml|atom|",
				"https://cdn.example.org/feed.json|json|",
				"https://example.org/blog/index.rdf|rss|",
				"https://example.org/blog/legacy.xml||",
			},
			wpRoot: "/", // from the /wp-json/ link
		},
		{
			name: "base element, itself relative, applies to links before it",
			url:  "http://example.org/a/b/page",
			page: `<link rel=alternate type=application/rss+xml href=feed.rss><base href="../c/"><a href="x.atom">x</a><base href="/ignored/">`,
			links: []string{
				"http://example.org/a/c/feed.rss|rss|",
			},
			anchors: []string{"http://example.org/a/c/x.atom|x"},
		},
		{
			name: "anchors by path, query, host, type, text and image alt",
			url:  "http://example.org/",
			page: `<body>
				<a href="/feed/">Subscribe</a>
				<a href="/news.rss"></a>
				<a href="/index.php?feed=atom">Atom</a>
				<a href="http://feeds.feedburner.com/Example">Get updates</a>
				<a href="/s" type="application/atom+xml">updates</a>
				<a href="/syndication">  RSS
				   2.0 </a>
				<a href="/subscribe"><img src="/rss.png" alt="RSS feed"></a>
				<a href="feed:https://example.org/f.xml" title="My feed"></a>
				<a href="/sitemap.xml">XML feed of pages</a>
				<a href="/feedback">Feedback</a>
				<a href="/about">About this site</a>
				<a href="mailto:rss@example.org">rss</a>
				<a href="/posts#rss">Posts</a>
			</body>`,
			anchors: []string{
				"http://example.org/feed/|Subscribe",
				"http://example.org/news.rss|",
				"http://example.org/index.php?feed=atom|Atom",
				"http://feeds.feedburner.com/Example|Get updates",
				"http://example.org/s|updates",
				"http://example.org/syndication|RSS 2.0",
				"http://example.org/subscribe|RSS feed",
				"https://example.org/f.xml|My feed",
			},
		},
		{
			name:      "generator and wordpress root from the page's own links",
			url:       "https://example.org/blog/2024/01/post/",
			page:      `<meta name="Generator" content="WordPress 6.5"><img src="https://cdn.other.example/wp-content/x.png"><link rel="https://api.w.org/" href="/blog/wp-json/">`,
			generator: "wordpress 6.5",
			wpRoot:    "/blog/",
		},
		{
			name: "text inside script is not a link",
			url:  "http://example.org/",
			page: `<script>document.write('<a href="/feed">RSS</a>')</script><style>a[href$=".rss"]{}</style>`,
		},
		{
			name: "not HTML at all",
			url:  "http://example.org/",
			page: "\x00\x01\xff<<<a href=",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := scanPage([]byte(tt.page), mustURL(t, tt.url))
			var links, anchors []string
			for _, c := range info.links {
				if c.How != HowLinkAlternate {
					t.Errorf("link %s: How %q", c.URL, c.How)
				}
				links = append(links, c.URL+"|"+c.Type+"|"+c.Title)
			}
			for _, c := range info.anchors {
				if c.How != HowAnchor {
					t.Errorf("anchor %s: How %q", c.URL, c.How)
				}
				anchors = append(anchors, c.URL+"|"+c.Title)
			}
			if !reflect.DeepEqual(links, tt.links) {
				t.Errorf("links\n%s\nwant\n%s", strings.Join(links, "\n"), strings.Join(tt.links, "\n"))
			}
			if !reflect.DeepEqual(anchors, tt.anchors) {
				t.Errorf("anchors\n%s\nwant\n%s", strings.Join(anchors, "\n"), strings.Join(tt.anchors, "\n"))
			}
			if info.generator != tt.generator || info.wpRoot != tt.wpRoot {
				t.Errorf("generator %q, wpRoot %q; want %q, %q", info.generator, info.wpRoot, tt.generator, tt.wpRoot)
			}
		})
	}
}

func TestDetectPlatform(t *testing.T) {
	tests := []struct{ host, page, want string }{
		{"example.org", `<meta name="generator" content="WordPress.com">`, "wordpress"},
		{"example.org", `<link href="/wp-content/themes/a.css">`, "wordpress"},
		{"alice.wordpress.com", ``, "wordpress"},
		{"example.org", `<html xmlns:b='http://www.google.com/2005/gml/b'>`, "blogger"},
		{"example.org", `<meta name="generator" content="Ghost 5.1"><link href="/wp-content/x">`, "ghost"},
		{"x.substack.com", `<link href="/wp-content/x">`, "substack"},
		{"medium.com", ``, "medium"},
		{"example.org", `<script src="https://static1.squarespace.com/x.js">`, "squarespace"},
		{"example.org", `<meta name="generator" content="Drupal 10 (https://www.drupal.org)">`, "drupal"},
		{"example.org", `<meta name="generator" content="Jekyll v4.3.2">`, "jekyll"},
		{"example.org", `<meta name="generator" content="FrontPage 4.0"><p>WordPress is nice</p>`, ""},
		{"notmedium.com", ``, ""},
	}
	for _, tt := range tests {
		u := mustURL(t, "http://"+tt.host+"/")
		p := detectPlatform(scanPage([]byte(tt.page), u), tt.host, []byte(tt.page))
		got := ""
		if p != nil {
			got = p.name
		}
		if got != tt.want {
			t.Errorf("detectPlatform(%s, %q) = %q, want %q", tt.host, tt.page, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		template, page, root string
		want                 string // "" when the template does not apply
		remembered           string
	}{
		{"/feed/", "https://example.org/a/b", "/", "https://example.org/feed/", "path:/feed/"},
		{"/feed/", "https://example.org/blog/a/b", "/blog/", "https://example.org/blog/feed/", "path:/feed/ root=/blog/"},
		{"/?feed=rss2", "https://example.org/blog/a", "/blog/", "https://example.org/blog/?feed=rss2", "path:/?feed=rss2 root=/blog/"},
		{"?format=rss", "https://example.org/journal?page=2", "/", "https://example.org/journal?format=rss", "path:?format=rss"},
		{"?format=rss", "https://example.org/journal?page=2", "/journal/", "https://example.org/journal?format=rss", "path:?format=rss"},
		{"/feed/{first}", "https://medium.com/@alice/story-1", "/", "https://medium.com/feed/@alice", "path:/feed/{first}"},
		{"/feed/{first}", "https://medium.com/", "/", "", "path:/feed/{first}"},
	}
	for _, tt := range tests {
		u, ok := expand(tt.template, mustURL(t, tt.page), tt.root)
		got := ""
		if ok {
			got = u.String()
		}
		if got != tt.want {
			t.Errorf("expand(%q, %s, %q) = %q, want %q", tt.template, tt.page, tt.root, got, tt.want)
		}
		if r := pathPattern(tt.template, tt.root); r != tt.remembered {
			t.Errorf("pathPattern(%q, %q) = %q, want %q", tt.template, tt.root, r, tt.remembered)
		}
		wantRoot := tt.root
		if !strings.HasPrefix(tt.template, "/") {
			wantRoot = "/"
		}
		if tmpl, root, ok := parsePathPattern(tt.remembered); !ok || tmpl != tt.template || root != wantRoot {
			t.Errorf("parsePathPattern(%q) = %q, %q, %v; want %q, %q", tt.remembered, tmpl, root, ok, tt.template, wantRoot)
		}
	}
}

// TestMemoryKeys checks the keys a page's pattern is kept under.
func TestMemoryKeys(t *testing.T) {
	tests := []struct {
		host, page string
		want       []string
	}{
		{"www.example.com", ``, []string{"example.com"}},
		{"www.example.com", `<meta name="generator" content="WordPress 6">`, []string{"wordpress@example.com", "example.com"}},
		{"tom.hatenablog.com", ``, []string{"@hatenablog.com", "tom.hatenablog.com"}},
		{"alice.blogspot.com", ``, []string{"blogger@blogspot.com", "alice.blogspot.com"}},
		{"bob.github.io", `<meta name="generator" content="Hugo 0.1">`, []string{"hugo@github.io", "bob.github.io"}},
		{"127.0.0.1", ``, []string{"127.0.0.1"}},
		{"localhost", ``, []string{"localhost"}},
	}
	for _, tt := range tests {
		if got := memoryKeys(tt.host, detectPlatform(scanPage([]byte(tt.page), mustURL(t, "http://"+tt.host+"/")), tt.host, []byte(tt.page))); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("MemoryKeys(%s) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// FuzzScanPage checks that no page crashes the scan, and that whatever it
// returns is an absolute http(s) URL, within the bounds.
func FuzzScanPage(f *testing.F) {
	f.Add(`<link rel="alternate" type="application/rss+xml" href="/feed">`, "http://example.org/")
	f.Add(`<base href="//x/"><a href="feed:x.rss">RSS</a><img alt="atom">`, "https://example.org/a/")
	f.Add(`<a href="feed://a/b.rss"><a href="%zz">rss</a></a>`, "http://[::1]:8080/p?q#f")
	f.Add(`<meta name=generator content="WordPress"><script src="/x/wp-content/a.js">`, "http://h/x/y")
	f.Fuzz(func(t *testing.T, page, pageURL string) {
		u, err := url.Parse(pageURL)
		if err != nil || !u.IsAbs() {
			return
		}
		info := scanPage([]byte(page), u)
		if len(info.links) > maxFound || len(info.anchors) > maxFound {
			t.Fatalf("%d links, %d anchors: more than %d", len(info.links), len(info.anchors), maxFound)
		}
		for _, c := range append(info.links, info.anchors...) {
			cu, err := url.Parse(c.URL)
			if err != nil || (cu.Scheme != "http" && cu.Scheme != "https") || cu.Host == "" {
				t.Fatalf("candidate %q is not an absolute http(s) URL", c.URL)
			}
			if len(c.Title) > maxAnchorText {
				t.Fatalf("title of %d bytes, more than %d", len(c.Title), maxAnchorText)
			}
		}
	})
}
