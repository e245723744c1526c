package discovery_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
)

// commonTried is what a site with no platform and no feed links gets
// requested after its page, in order.
var commonTried = []string{
	"/feed", "/feed/", "/rss", "/rss/", "/rss.xml", "/atom.xml", "/index.xml",
	"/feed.xml", "/feed.atom", "/feed.rss", "/feed.json", "/atom", "/index.rss",
}

func TestDiscover(t *testing.T) {
	tests := []struct {
		name      string
		resources map[string]resource
		url       string
		platform  string
		chosen    discovery.Candidate // URL, Requested, Type, How compared
		tried     []string            // every URL requested, in order
		rejected  []string            // candidates fetched and found not to be feeds
	}{
		{
			name: "wordpress generator, feed at /feed/",
			resources: map[string]resource{
				"www.example.org/": html(`<head><meta name="generator" content="WordPress 6.5.2">
					<link rel="stylesheet" href="/wp-content/themes/x/style.css"></head><body>Hi</body>`),
				"www.example.org/feed/": rss("WP"),
			},
			url:      "http://www.example.org/",
			platform: "wordpress",
			chosen:   discovery.Candidate{URL: "http://www.example.org/feed/", Type: "rss", How: "platform-path:wordpress"},
			tried:    []string{"http://www.example.org/", "http://www.example.org/feed/"},
		},
		{
			name: "wordpress in a folder, recognized by wp-content, ?feed=rss2 only",
			resources: map[string]resource{
				"example.net/blog/2024/05/a-post/": html(`<head><script src="https://example.net/blog/wp-includes/js/x.js"></script></head><body></body>`),
				"example.net/blog/?feed=rss2":      rss("WP"),
			},
			url:      "http://example.net/blog/2024/05/a-post/",
			platform: "wordpress",
			chosen:   discovery.Candidate{URL: "http://example.net/blog/?feed=rss2", Type: "rss", How: "platform-path:wordpress"},
			tried:    []string{"http://example.net/blog/2024/05/a-post/", "http://example.net/blog/feed/", "http://example.net/blog/?feed=rss2"},
		},
		{
			name: "wordpress in a folder, by generator only: the folder's paths before the root's",
			resources: map[string]resource{
				"www.kim.example/blog/":      html(`<head><meta name="generator" content="WordPress 6.4"></head><body></body>`),
				"www.kim.example/blog/feed/": rss("Kim's blog"),
				"www.kim.example/feed/":      rss("The company's news"),
			},
			url:      "http://www.kim.example/blog/",
			platform: "wordpress",
			chosen:   discovery.Candidate{URL: "http://www.kim.example/blog/feed/", Type: "rss", How: "platform-path:wordpress"},
			tried:    []string{"http://www.kim.example/blog/", "http://www.kim.example/blog/feed/"},
		},
		{
			name: "a blog post in a folder, unknown software: common paths under the folder, its parent, the root",
			resources: map[string]resource{
				"lee.example/notes/2024/a-post.html": html(`<body>words</body>`),
				"lee.example/notes/rss.xml":          rss("Notes"),
			},
			url:    "http://lee.example/notes/2024/a-post.html",
			chosen: discovery.Candidate{URL: "http://lee.example/notes/rss.xml", Type: "rss", How: "common-path"},
			tried: append(append([]string{"http://lee.example/notes/2024/a-post.html"}, prefixed("http://lee.example/notes/2024", commonTried)...),
				prefixed("http://lee.example/notes", commonTried[:5])...),
		},
		{
			name: "blogger markup, atom feed",
			resources: map[string]resource{
				"alice.blogspot.com/": html(`<head><title>Alice</title></head>
					<body><b:section id="main"><div class="post">post</div></b:section></body>`),
				"alice.blogspot.com/feeds/posts/default": atom("Alice"),
			},
			url:      "http://alice.blogspot.com/",
			platform: "blogger",
			chosen:   discovery.Candidate{URL: "http://alice.blogspot.com/feeds/posts/default", Type: "atom", How: "platform-path:blogger"},
			tried:    []string{"http://alice.blogspot.com/", "http://alice.blogspot.com/feeds/posts/default"},
		},
		{
			name: "blogger on its own domain, by generator",
			resources: map[string]resource{
				"www.alice.org/":                    html(`<head><meta content='blogger' name='generator'/></head><body></body>`),
				"www.alice.org/feeds/posts/default": atom("Alice"),
			},
			url:      "http://www.alice.org/",
			platform: "blogger",
			chosen:   discovery.Candidate{URL: "http://www.alice.org/feeds/posts/default", Type: "atom", How: "platform-path:blogger"},
			tried:    []string{"http://www.alice.org/", "http://www.alice.org/feeds/posts/default"},
		},
		{
			name: "tumblr host",
			resources: map[string]resource{
				"bob.tumblr.com/":    html(`<body>posts</body>`),
				"bob.tumblr.com/rss": rss("Bob"),
			},
			url:      "http://bob.tumblr.com/",
			platform: "tumblr",
			chosen:   discovery.Candidate{URL: "http://bob.tumblr.com/rss", Type: "rss", How: "platform-path:tumblr"},
			tried:    []string{"http://bob.tumblr.com/", "http://bob.tumblr.com/rss"},
		},
		{
			name: "ghost generator",
			resources: map[string]resource{
				"ghost.example.com/posts/x/": html(`<head><meta name="generator" content="Ghost 5.80"></head>`),
				"ghost.example.com/rss/":     rss("Ghost"),
			},
			url:      "http://ghost.example.com/posts/x/",
			platform: "ghost",
			chosen:   discovery.Candidate{URL: "http://ghost.example.com/rss/", Type: "rss", How: "platform-path:ghost"},
			tried: []string{"http://ghost.example.com/posts/x/", "http://ghost.example.com/posts/x/rss/",
				"http://ghost.example.com/posts/rss/", "http://ghost.example.com/rss/"},
		},
		{
			name: "medium author page",
			resources: map[string]resource{
				"medium.com/@alice/a-story-123": html(`<body><img src="https://miro.medium.com/x.png"></body>`),
				"medium.com/feed/@alice":        rss("Alice on Medium"),
			},
			url:      "http://medium.com/@alice/a-story-123",
			platform: "medium",
			chosen:   discovery.Candidate{URL: "http://medium.com/feed/@alice", Type: "rss", How: "platform-path:medium"},
			tried:    []string{"http://medium.com/@alice/a-story-123", "http://medium.com/feed/@alice"},
		},
		{
			name: "substack markers",
			resources: map[string]resource{
				"news.carol.com/p/post": html(`<head><link rel="preconnect" href="https://substackcdn.com"></head>`),
				"news.carol.com/feed":   rss("Carol"),
			},
			url:      "http://news.carol.com/p/post",
			platform: "substack",
			chosen:   discovery.Candidate{URL: "http://news.carol.com/feed", Type: "rss", How: "platform-path:substack"},
			tried:    []string{"http://news.carol.com/p/post", "http://news.carol.com/p/feed", "http://news.carol.com/feed"},
		},
		{
			name: "only a link alternate, relative href",
			resources: map[string]resource{
				"site.example/news/":               html(`<head><link rel="alternate" type="application/rss+xml" title="News" href="feeds/news.xml"></head>`),
				"site.example/news/feeds/news.xml": rss("News"),
			},
			url:    "http://site.example/news/",
			chosen: discovery.Candidate{URL: "http://site.example/news/feeds/news.xml", Type: "rss", How: "link-alternate"},
			tried:  []string{"http://site.example/news/", "http://site.example/news/feeds/news.xml"},
		},
		{
			name: "link alternate resolved against <base>",
			resources: map[string]resource{
				"site.example/a/page.html":     html(`<head><base href="/b/"><link rel="Alternate Feed" type="application/atom+xml" href="atom.xml"></head>`),
				"site.example/b/atom.xml":      atom("Base"),
				"site.example/a/atom.xml":      rss("Wrong"),
				"site.example/a/page.htmlfeed": rss("Wrong"),
			},
			url:    "http://site.example/a/page.html",
			chosen: discovery.Candidate{URL: "http://site.example/b/atom.xml", Type: "atom", How: "link-alternate"},
			tried:  []string{"http://site.example/a/page.html", "http://site.example/b/atom.xml"},
		},
		{
			name: "absolute href on another host, json feed",
			resources: map[string]resource{
				"www.site.example/":           html(`<head><link rel="alternate" type="application/feed+json" href="http://feeds.site.example/all.json"></head>`),
				"feeds.site.example/all.json": jsonFeed("All"),
			},
			url:    "http://www.site.example/",
			chosen: discovery.Candidate{URL: "http://feeds.site.example/all.json", Type: "json", How: "link-alternate"},
			tried:  []string{"http://www.site.example/", "http://feeds.site.example/all.json"},
		},
		{
			name: "comment feed listed first is not chosen",
			resources: map[string]resource{
				"www.dave.org/": html(`<head>
					<link rel="alternate" type="application/rss+xml" title="Dave » Comments Feed" href="/comments/feed/">
					<link rel="alternate" type="application/rss+xml" title="Dave » Feed" href="/feed/"></head>`),
				"www.dave.org/comments/feed/": rss("Comments"),
				"www.dave.org/feed/":          rss("Dave"),
			},
			url:    "http://www.dave.org/",
			chosen: discovery.Candidate{URL: "http://www.dave.org/feed/", Type: "rss", How: "link-alternate"},
			tried:  []string{"http://www.dave.org/", "http://www.dave.org/comments/feed/", "http://www.dave.org/feed/"},
		},
		{
			name: "a comment feed alone does not end the search",
			resources: map[string]resource{
				"www.erin.org/":               html(`<head><link rel="alternate" type="application/rss+xml" href="/comments/feed/"></head>`),
				"www.erin.org/comments/feed/": rss("Comments"),
				"www.erin.org/feed":           rss("Erin"),
			},
			url:    "http://www.erin.org/",
			chosen: discovery.Candidate{URL: "http://www.erin.org/feed", Type: "rss", How: "common-path"},
			tried:  []string{"http://www.erin.org/", "http://www.erin.org/comments/feed/", "http://www.erin.org/feed"},
		},
		{
			name: "a comment feed is chosen when there is nothing else",
			resources: map[string]resource{
				"www.finn.org/":      html(`<head><link rel="alternate" type="application/rss+xml" title="Comments" href="/c.xml"></head>`),
				"www.finn.org/c.xml": rss("Comments"),
			},
			url:    "http://www.finn.org/",
			chosen: discovery.Candidate{URL: "http://www.finn.org/c.xml", Type: "rss", How: "link-alternate"},
			tried:  append([]string{"http://www.finn.org/", "http://www.finn.org/c.xml"}, prefixed("http://www.finn.org", commonTried)...),
		},
		{
			name: "anchors are not checked once a declared feed is found",
			resources: map[string]resource{
				"gus.example/":          html(`<head><link rel="alternate" type="application/atom+xml" href="/all.atom"></head><body><a href="/other.rss">RSS</a></body>`),
				"gus.example/all.atom":  atom("Gus"),
				"gus.example/other.rss": rss("Other"),
			},
			url:    "http://gus.example/",
			chosen: discovery.Candidate{URL: "http://gus.example/all.atom", Type: "atom", How: "link-alternate"},
			tried:  []string{"http://gus.example/", "http://gus.example/all.atom"},
		},
		{
			name: "only an anchor, found by its text",
			resources: map[string]resource{
				"eve.example/":                   html(`<body><p>Follow: <a href="/syndicate?what=all">RSS</a> <a href="/about">About</a></p></body>`),
				"eve.example/syndicate?what=all": rss("Eve"),
			},
			url:    "http://eve.example/",
			chosen: discovery.Candidate{URL: "http://eve.example/syndicate?what=all", Type: "rss", How: "anchor"},
			tried:  []string{"http://eve.example/", "http://eve.example/syndicate?what=all"},
		},
		{
			name: "only an anchor, found by its path, with a feed: scheme",
			resources: map[string]resource{
				"frank.example/":          html(`<body><a href="feed://frank.example/posts.rss"><img src="/i.png" alt=""></a></body>`),
				"frank.example/posts.rss": rss("Frank"),
			},
			url:    "http://frank.example/",
			chosen: discovery.Candidate{URL: "http://frank.example/posts.rss", Type: "rss", How: "anchor"},
			tried:  []string{"http://frank.example/", "http://frank.example/posts.rss"},
		},
		{
			name: "the page redirects and links resolve against where it landed",
			resources: map[string]resource{
				"old.example/":              {redirect: "http://new.example/home/"},
				"new.example/home/":         html(`<head><link rel="alternate" type="application/rss+xml" href="feed.xml"></head>`),
				"new.example/home/feed.xml": rss("New"),
			},
			url:    "http://old.example/",
			chosen: discovery.Candidate{URL: "http://new.example/home/feed.xml", Type: "rss", How: "link-alternate"},
			tried:  []string{"http://old.example/", "http://new.example/home/feed.xml"},
		},
		{
			name: "a candidate redirects: the final URL is the one to poll",
			resources: map[string]resource{
				"grace.example/":               html(`<head><link rel="alternate" type="application/rss+xml" href="/rss"></head>`),
				"grace.example/rss":            {redirect: "/rss/latest.xml"},
				"grace.example/rss/latest.xml": rss("Grace"),
			},
			url:    "http://grace.example/",
			chosen: discovery.Candidate{URL: "http://grace.example/rss/latest.xml", Requested: "http://grace.example/rss", Type: "rss", How: "link-alternate"},
			tried:  []string{"http://grace.example/", "http://grace.example/rss"},
		},
		{
			name: "HTML disguised as a feed is rejected",
			resources: map[string]resource{
				"heidi.example/": html(`<head><link rel="alternate" type="application/rss+xml" href="/feed.rss"></head>`),
				"heidi.example/feed.rss": {contentType: "application/rss+xml",
					body: "<!DOCTYPE html><html><head><title>Feed</title></head><body><rss>not really</rss></body></html>"},
				"heidi.example/rss":     {contentType: "application/rss+xml", body: "<html><body>Subscribe!</body></html>"},
				"heidi.example/rss.xml": rss("Heidi"),
			},
			url:      "http://heidi.example/",
			chosen:   discovery.Candidate{URL: "http://heidi.example/rss.xml", Type: "rss", How: "common-path"},
			tried:    []string{"http://heidi.example/", "http://heidi.example/feed.rss", "http://heidi.example/feed", "http://heidi.example/feed/", "http://heidi.example/rss", "http://heidi.example/rss/", "http://heidi.example/rss.xml"},
			rejected: []string{"http://heidi.example/feed.rss", "http://heidi.example/rss"},
		},
		{
			name: "the URL given is a feed",
			resources: map[string]resource{
				"ivan.example/atom": atom("Ivan"),
			},
			url:    "http://ivan.example/atom",
			chosen: discovery.Candidate{URL: "http://ivan.example/atom", Type: "atom", How: "given"},
			tried:  []string{"http://ivan.example/atom"},
		},
		{
			name: "platform paths fail, common paths follow",
			resources: map[string]resource{
				"judy.example/":          html(`<head><meta name="generator" content="Hugo 0.120"></head>`),
				"judy.example/index.xml": html(`<body>moved</body>`),
				"judy.example/feed.xml":  rss("Judy"),
			},
			url:      "http://judy.example/",
			platform: "hugo",
			chosen:   discovery.Candidate{URL: "http://judy.example/feed.xml", Type: "rss", How: "common-path"},
			tried: append([]string{"http://judy.example/", "http://judy.example/index.xml"},
				prefixed("http://judy.example", without(commonTried[:8], "/index.xml"))...),
			rejected: []string{"http://judy.example/index.xml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.resources)
			res, err := newDiscoverer(s, nil).Discover(context.Background(), tt.url)
			if err != nil {
				t.Fatalf("Discover: %v\nresult: %+v", err, res)
			}
			if res.Chosen == nil {
				t.Fatalf("no feed chosen; candidates %+v", res.Candidates)
			}
			got := discovery.Candidate{URL: res.Chosen.URL, Requested: res.Chosen.Requested, Type: res.Chosen.Type, How: res.Chosen.How}
			if got != tt.chosen {
				t.Errorf("chosen %+v, want %+v", got, tt.chosen)
			}
			if !res.Chosen.Verified || res.Chosen.Err != "" {
				t.Errorf("chosen candidate not verified: %+v", res.Chosen)
			}
			if res.Platform != tt.platform {
				t.Errorf("platform %q, want %q", res.Platform, tt.platform)
			}
			if !reflect.DeepEqual(res.Tried, tt.tried) {
				t.Errorf("tried\n%s\nwant\n%s", strings.Join(res.Tried, "\n"), strings.Join(tt.tried, "\n"))
			}
			if n := s.requestCount(); n < len(res.Tried) {
				t.Errorf("the site saw %d requests, fewer than the %d tried", n, len(res.Tried))
			}
			var rejected []string
			for _, c := range res.Candidates {
				if !c.Verified {
					if c.Err == "" {
						t.Errorf("candidate %s neither verified nor explained", c.URL)
					}
					if strings.HasPrefix(c.Err, "not a feed") {
						rejected = append(rejected, c.URL)
					}
				}
			}
			if !reflect.DeepEqual(rejected, tt.rejected) {
				t.Errorf("rejected %q, want %q", rejected, tt.rejected)
			}
		})
	}
}

// prefixed returns the paths with origin before each.
func prefixed(origin string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = origin + p
	}
	return out
}

// without returns paths without drop.
func without(paths []string, drop string) []string {
	var out []string
	for _, p := range paths {
		if p != drop {
			out = append(out, p)
		}
	}
	return out
}

func TestDiscoverNothing(t *testing.T) {
	s := newSite(t, map[string]resource{
		"plain.example/about/": html(`<body><a href="/contact">Contact</a> <a href="/sitemap.xml">Site map (XML feed of pages)</a></body>`),
	})
	res, err := newDiscoverer(s, nil).Discover(context.Background(), "http://plain.example/about/")
	if !errors.Is(err, discovery.ErrNoFeed) {
		t.Fatalf("error %v, want ErrNoFeed", err)
	}
	// The common paths under the page's folder, then under the site's root.
	want := append(append([]string{"http://plain.example/about/"}, prefixed("http://plain.example/about", commonTried)...),
		prefixed("http://plain.example", commonTried)...)
	if !reflect.DeepEqual(res.Tried, want) {
		t.Errorf("tried\n%s\nwant\n%s", strings.Join(res.Tried, "\n"), strings.Join(want, "\n"))
	}
	if s.requestCount() != len(want) {
		t.Errorf("the site saw %d requests, want %d", s.requestCount(), len(want))
	}
	if res.Chosen != nil {
		t.Errorf("chosen %+v, want none", res.Chosen)
	}
	for _, c := range res.Candidates {
		if c.Verified || !strings.Contains(c.Err, "404") {
			t.Errorf("candidate %+v: want a 404 failure", c)
		}
	}
}

func TestDiscoverPageUnreadable(t *testing.T) {
	s := newSite(t, map[string]resource{})
	res, err := newDiscoverer(s, nil).Discover(context.Background(), "http://gone.example/")
	if err == nil || errors.Is(err, discovery.ErrNoFeed) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("error %v, want the page's 404", err)
	}
	if !reflect.DeepEqual(res.Tried, []string{"http://gone.example/"}) {
		t.Errorf("tried %q", res.Tried)
	}
}

func TestDiscoverInvalidURL(t *testing.T) {
	s := newSite(t, map[string]resource{})
	for _, u := range []string{"", "example.com", "ftp://example.com/", "/feed", "http://"} {
		_, err := newDiscoverer(s, nil).Discover(context.Background(), u)
		if !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("Discover(%q): error %v, want ErrInvalid", u, err)
		}
	}
	if s.requestCount() != 0 {
		t.Errorf("invalid URLs made %d requests", s.requestCount())
	}
}

func TestDiscoverLimits(t *testing.T) {
	var links strings.Builder
	resources := map[string]resource{}
	for i := range 15 {
		path := "/f" + string(rune('a'+i)) + ".rss"
		links.WriteString(`<a href="` + path + `">x</a>`)
		resources["many.example"+path] = html("<body>not a feed</body>")
	}
	resources["many.example/"] = html("<body>" + links.String() + "</body>")

	t.Run("candidates", func(t *testing.T) {
		s := newSite(t, resources)
		d := newDiscoverer(s, nil)
		d.MaxCandidates = 4
		res, err := d.Discover(context.Background(), "http://many.example/")
		if !errors.Is(err, discovery.ErrNoFeed) {
			t.Fatalf("error %v, want ErrNoFeed", err)
		}
		anchors := 0
		for _, c := range res.Candidates {
			if c.How == discovery.HowAnchor {
				anchors++
			}
		}
		if anchors != 4 {
			t.Errorf("%d anchors checked, want 4", anchors)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "more than 4") {
			t.Errorf("warnings %q, want one about the candidate limit", res.Warnings)
		}
	})
	t.Run("fetches", func(t *testing.T) {
		s := newSite(t, resources)
		d := newDiscoverer(s, nil)
		d.MaxFetches = 6
		res, err := d.Discover(context.Background(), "http://many.example/")
		if !errors.Is(err, discovery.ErrNoFeed) {
			t.Fatalf("error %v, want ErrNoFeed", err)
		}
		if len(res.Tried) != 6 || s.requestCount() != 6 {
			t.Errorf("tried %d, site saw %d, want 6 each", len(res.Tried), s.requestCount())
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "stopped after 6 requests") {
			t.Errorf("warnings %q, want one about the fetch limit", res.Warnings)
		}
	})
}

// TestDiscoverLimitKeepsFound checks that running out of requests after a
// feed was found still chooses it.
func TestDiscoverLimitKeepsFound(t *testing.T) {
	s := newSite(t, map[string]resource{
		"kim.example/":             html(`<head><link rel="alternate" type="application/rss+xml" href="/comments.rss"></head>`),
		"kim.example/comments.rss": rss("Comments"),
	})
	d := newDiscoverer(s, nil)
	d.MaxFetches = 4
	res, err := d.Discover(context.Background(), "http://kim.example/")
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if res.Chosen == nil || res.Chosen.URL != "http://kim.example/comments.rss" {
		t.Fatalf("chosen %+v, want the comment feed", res.Chosen)
	}
	if len(res.Tried) != 4 || len(res.Warnings) != 1 {
		t.Errorf("tried %q, warnings %q; want 4 requests and the limit's warning", res.Tried, res.Warnings)
	}
}

func TestDiscoverCancelled(t *testing.T) {
	s := newSite(t, map[string]resource{"x.example/": html("<body></body>")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newDiscoverer(s, nil).Discover(ctx, "http://x.example/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if s.requestCount() != 0 {
		t.Errorf("a cancelled discovery made %d requests", s.requestCount())
	}
}

// TestDiscoverDeadline checks that a candidate that never answers ends
// with the caller's deadline, not a hang, and keeps what was found.
func TestDiscoverDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			io.WriteString(w, `<link rel="alternate" type="application/rss+xml" href="/slow.rss">`)
			return
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	d := &discovery.Discoverer{Fetch: &fetcher{client: srv.Client()}, IsFeed: isFeed}
	res, err := d.Discover(ctx, srv.URL+"/")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the deadline", err)
	}
	if want := []string{srv.URL + "/", srv.URL + "/slow.rss"}; !reflect.DeepEqual(res.Tried, want) {
		t.Errorf("tried %q, want %q", res.Tried, want)
	}
}
