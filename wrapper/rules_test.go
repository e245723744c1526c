package wrapper_test

import (
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// TestRules covers the rules of docs/WRAPPER.md and the decisions of
// docs/WRAPPER.md, one case each: the items extracted and exactly the
// warnings expected. Every result is also checked against the XMLData
// schema with xmllint.
func TestRules(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		items    []wantItem
		warnings []wantWarning
		check    func(t *testing.T, r *wrapper.Result)
	}{
		// The forms of annotation tags.
		{
			name:  "opening and closing tag in two comments",
			body:  `<!-- <item:title index="1"> -->Hello<!-- </item:title> -->`,
			items: []wantItem{{"Hello", pageURL + "#item-1", ""}},
		},
		{
			name:  "empty element",
			body:  `<!-- <item:title index="1"> -->T<!-- </item:title> --><!-- <item:image index="1" url="img/a.png" link="/x" title="A"/> -->`,
			items: []wantItem{{"T", pageURL + "#item-1", ""}},
			check: func(t *testing.T, r *wrapper.Result) {
				want := dynamo.Image{URL: "http://example.com/news/img/a.png", Link: "http://example.com/x", Title: "A"}
				if img := r.Resource.Items[0].Image; img == nil || *img != want {
					t.Errorf("image = %+v, want %+v", img, want)
				}
			},
		},
		{
			name: "whole element in one comment",
			body: `<!-- <channel:extension uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="language">en-us</channel:extension> -->` +
				`<!-- <channel:description>Our <b>news</b> &amp; views</channel:description> -->`,
			check: func(t *testing.T, r *wrapper.Result) {
				want := []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "language", Value: "en-us"}}
				if got := r.Resource.Channel.Extensions; len(got) != 1 || got[0] != want[0] {
					t.Errorf("extensions = %+v, want %+v", got, want)
				}
				if got := r.Resource.Channel.Description; got != "Our <b>news</b> &amp; views" {
					t.Errorf("description = %q", got)
				}
			},
		},
		{
			name: "whitespace and line breaks in comments and values, both quotes, no quotes",
			body: "<!--\n  <item:title\n     index = '1' >\n-->Hi<!--</item:title\n>-->\n" +
				"<!-- <item:image index=1 url=\" img/b.png\n \" title=\"two\n   lines\"/> -->",
			items: []wantItem{{"Hi", pageURL + "#item-1", ""}},
			check: func(t *testing.T, r *wrapper.Result) {
				img := r.Resource.Items[0].Image
				if img == nil || img.URL != "http://example.com/news/img/b.png" || img.Title != "two lines" {
					t.Errorf("image = %+v", img)
				}
			},
		},
		{
			name:     "a quote left open ends with its comment",
			body:     `<!-- <item:title index="2> -->Two<!-- </item:title> -->`,
			items:    []wantItem{{"Two", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, "the quote of attribute index is not closed"}},
			check: func(t *testing.T, r *wrapper.Result) {
				if a := r.Annotations[0]; a.Index != 2 {
					t.Errorf("index read as %d, want 2", a.Index)
				}
			},
		},
		{
			name:  "closing tags may carry attributes",
			body:  `<!-- <item:title index="1"> -->A<!-- </item:title index="1" whatever=yes> -->`,
			items: []wantItem{{"A", pageURL + "#item-1", ""}},
		},
		{
			name:  "names are case-insensitive; a space after </ is forgiven",
			body:  `<!-- <ITEM:Title INDEX="1"> -->A<!-- </ item:title> -->`,
			items: []wantItem{{"A", pageURL + "#item-1", ""}},
		},
		{
			name: "unknown annotations are reported, other commented-out markup is not",
			body: "<!-- <item:summary index=\"1\"> -->x<!-- </item:summary> -->\n" +
				"<!-- <chanel:title> -->y<!-- </chanel:title> -->\n" +
				"<!-- <item-title index=1> -->z<!-- </item-title> -->\n" +
				"<!-- <o:p></o:p> --><!-- <div class=\"old\"> --><!--[if IE]><p>IE</p><![endif]-->\n" +
				`<!-- <item:title index="1"> -->Real<!-- </item:title> -->`,
			items: []wantItem{{"Real", pageURL + "#item-1", ""}},
			warnings: []wantWarning{
				{1, "unknown annotation <item:summary> ignored; item annotations are title, link"},
				{2, "unknown annotation <chanel:title> ignored; did you mean <channel:title>?"},
				{3, "unknown annotation <item-title> ignored; did you mean <item:title>?"},
			},
		},
		{
			name:     "unknown and repeated attributes",
			body:     `<!-- <item:title index="1" class="x" index="2"> -->A<!-- </item:title> -->`,
			items:    []wantItem{{"A", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, "unknown attribute class (it takes: index)"}, {1, "attribute index is repeated"}},
		},

		// Content.
		{
			name: "a link may wrap only the start tag of the <a>",
			body: `<!-- <item:link index="1"> --><a href="story.html"><!-- </item:link> -->` +
				`<!-- <item:title index="1"> -->Story <em>one</em><!-- </item:title> --></a>`,
			items: []wantItem{{"Story one", "http://example.com/news/story.html", ""}},
		},
		{
			name: "a nested annotation's text is not the enclosing one's",
			body: `<!-- <channel:title> -->Site <!-- <channel:link> --><a href="/home">home</a><!-- </channel:link> --> News<!-- </channel:title> -->`,
			check: func(t *testing.T, r *wrapper.Result) {
				if c := r.Resource.Channel; c.Title != "Site News" || c.Link != "http://example.com/home" {
					t.Errorf("channel = %q %q", c.Title, c.Link)
				}
			},
		},
		{
			name:  "annotations may cross",
			body:  `<!-- <item:title index="1"> -->Title <!-- <item:description index="1"> -->text<!-- </item:title> --> more<!-- </item:description> -->`,
			items: []wantItem{{"Title", pageURL + "#item-1", "text more"}},
		},
		{
			name:  "text in an annotation comment outside the element is a remark",
			body:  `<!-- news: <item:title index=1> starts here -->Real<!-- ends here </item:title> -->`,
			items: []wantItem{{"Real", pageURL + "#item-1", ""}},
		},
		{
			name:  "non-annotation comments inside content are dropped",
			body:  `<!-- <item:description index=1> --><p>A<!-- a remark -->B</p><!-- </item:description> -->`,
			items: []wantItem{{"AB", pageURL + "#item-1", "<p>AB</p>"}},
		},

		// Links.
		{
			name: "a link is the href of the first <a> that has one, resolved against <base href>",
			body: "<base href=\"http://other.example.org/dir/\">\n" +
				`<!-- <item:link index="1"> --><a name="top">x</a> <a href="../a.html">A</a> <a href="b.html">B</a><!-- </item:link> -->` +
				`<!-- <item:title index=1> -->T<!-- </item:title> -->` + "\n" +
				`<!-- <item:link index="2"> --> c.html <!-- </item:link> --><!-- <item:title index=2> -->U<!-- </item:title> -->`,
			items: []wantItem{{"T", "http://other.example.org/a.html", ""}, {"U", "http://other.example.org/dir/c.html", ""}},
		},
		{
			name:     "a relative <base href> resolves against the page URL",
			body:     `<base href="/sub/"><!-- <item:link index="1"> --><a href="a.html">A</a><!-- </item:link> -->`,
			items:    []wantItem{{"A", "http://example.com/sub/a.html", ""}},
			warnings: []wantWarning{{1, "neither title nor description; it is titled with its link's text"}},
		},
		{
			name:  "an href broken across lines (line breaks dropped, as the URL standard says), non-ASCII and spaces",
			body:  "<!-- <item:link index=1> --><a href=\"/caf\u00e9/\n  a b.html?q=x y&amp;r=%zz\">x</a><!-- </item:link> --><!-- <item:title index=1> -->T<!-- </item:title> -->",
			items: []wantItem{{"T", "http://example.com/caf%C3%A9/%20%20a%20b.html?q=x%20y&r=%25zz", ""}},
		},
		{
			name:     "link text that is not a URL",
			body:     `<!-- <item:link index=1> -->Read more<!-- </item:link> --><!-- <item:title index=1> -->T<!-- </item:title> -->`,
			items:    []wantItem{{"T", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, `<item:link> holds no <a href> and its text "Read more" is not a URL`}},
		},
		{
			name:     "javascript: links are refused",
			body:     `<!-- <item:link index=1> --><a href="javascript:popup('a.html')">A</a><!-- </item:link> --><!-- <item:title index=1> -->T<!-- </item:title> -->`,
			items:    []wantItem{{"T", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, "is a javascript: URL"}},
		},
		{
			name:     "an unparsable link",
			body:     `<!-- <item:link index=1> --><a href="http://[::1">A</a><!-- </item:link> --><!-- <item:title index=1> -->T<!-- </item:title> -->`,
			items:    []wantItem{{"T", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, `"http://[::1" is not a URL`}},
		},

		// Titles and descriptions.
		{
			name:  "a title is plain text",
			body:  "<!-- <item:title index=1> --> <b>Caf&eacute;</b>\n  &amp;   <i>cr&egrave;me</i> <script>x()</script><!-- </item:title> -->",
			items: []wantItem{{"Café & crème", pageURL + "#item-1", ""}},
		},
		{
			name: "a description is sanitized HTML with absolute URLs",
			body: `<!-- <item:description index=1> --><p onclick="x()">Hi <a href="p.html">there</a><script>evil()</script>` +
				`<style>p{}</style> <a href="javascript:alert(1)">js</a><img src="i.png"></p><!-- </item:description> -->` +
				`<!-- <item:title index=1> -->T<!-- </item:title> -->`,
			items: []wantItem{{"T", pageURL + "#item-1", `<p>Hi <a href="http://example.com/news/p.html">there</a> js<img src="http://example.com/news/i.png"/></p>`}},
			check: func(t *testing.T, r *wrapper.Result) {
				if got := r.Resource.Items[0].Text; got != "Hi there js" {
					t.Errorf("Text = %q", got)
				}
			},
		},

		// Items: grouping, order, defaults, ids.
		{
			name: "index groups fields; items are ordered by index",
			body: `<!-- <item:title index="3"> -->C<!-- </item:title> -->` +
				`<!-- <item:title index="1"> -->A<!-- </item:title> -->` +
				`<!-- <item:link index="3"> -->c.html<!-- </item:link> -->` +
				`<!-- <item:description index="1"> -->a<!-- </item:description> -->` +
				`<!-- <item:title index="2"> -->B<!-- </item:title> -->`,
			items: []wantItem{{"A", pageURL + "#item-1", "a"}, {"B", pageURL + "#item-2", ""}, {"C", "http://example.com/news/c.html", ""}},
		},
		{
			name: "indexes are integers: leading zeros and spaces, zero and negative",
			body: `<!-- <item:title index="03"> -->C<!-- </item:title> --><!-- <item:link index=" 3 "> -->c.html<!-- </item:link> -->` +
				`<!-- <item:title index="0"> -->Z<!-- </item:title> --><!-- <item:title index="-1"> -->M<!-- </item:title> -->`,
			items: []wantItem{{"M", pageURL + "#item-1", ""}, {"Z", pageURL + "#item-2", ""}, {"C", "http://example.com/news/c.html", ""}},
		},
		{
			name: "an index that is not an integer groups, after the numbered items",
			body: "<!-- <item:title index=\"six\"> -->S<!-- </item:title> -->\n<!-- <item:link index=\"six\"> -->s.html<!-- </item:link> -->\n" +
				`<!-- <item:title index="9"> -->N<!-- </item:title> -->`,
			items:    []wantItem{{"N", pageURL + "#item-1", ""}, {"S", "http://example.com/news/s.html", ""}},
			warnings: []wantWarning{{1, `index "six" is not an integer`}},
		},
		{
			name: "a missing index joins the item before it, or starts one",
			body: "<!-- <item:title> -->A<!-- </item:title> -->\n<!-- <item:link> -->a.html<!-- </item:link> -->\n" +
				"<!-- <item:title> -->B<!-- </item:title> -->\n<!-- <item:title index=\"\"> -->C<!-- </item:title> -->",
			items: []wantItem{{"A", "http://example.com/news/a.html", ""}, {"B", pageURL + "#item-2", ""}, {"C", pageURL + "#item-3", ""}},
			warnings: []wantWarning{
				{1, "<item:title> has no index; it starts a new item"},
				{2, "<item:link> has no index; it joins the item of the annotation before it (item without index (line 1))"},
				{3, "<item:title> has no index; it starts a new item"},
				{4, "<item:title> has an empty index; it starts a new item"},
			},
		},
		{
			name: "a duplicate index starts another item with that index",
			body: "<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:description index=1> -->a<!-- </item:description> -->\n" +
				"<!-- <item:title index=1> -->B<!-- </item:title> --><!-- <item:description index=1> -->b<!-- </item:description> -->\n" +
				"<!-- <item:title index=0> -->Z<!-- </item:title> -->",
			items:    []wantItem{{"Z", pageURL + "#item-1", ""}, {"A", pageURL + "#item-2", "a"}, {"B", pageURL + "#item-3", "b"}},
			warnings: []wantWarning{{2, "index 1 is used twice for <item:title> (first on line 1)"}},
		},
		{
			name:     "channel defaults: the page's <title>, the page URL, <meta name=description>",
			body:     `<meta name="Description" content="All  the news.">`,
			warnings: []wantWarning{{0, "no annotations found: is this the annotated page?"}},
			check: func(t *testing.T, r *wrapper.Result) {
				c := r.Resource.Channel
				if c.Title != "Page" || c.Link != pageURL || c.Description != "All the news." {
					t.Errorf("channel = %q %q %q", c.Title, c.Link, c.Description)
				}
			},
		},
		{
			name: "an item without title gets the start of its description's text",
			body: `<!-- <item:description index=1> --><p>Short text.</p><!-- </item:description> -->` +
				`<!-- <item:description index=2> --><p>The quick brown fox jumps over the lazy dog, then over the lazy cat, then over the very lazy mouse.</p><!-- </item:description> -->`,
			items: []wantItem{
				{"Short text.", pageURL + "#item-1", "<p>Short text.</p>"},
				{"The quick brown fox jumps over the lazy dog, then over the lazy cat, then over…", pageURL + "#item-2",
					"<p>The quick brown fox jumps over the lazy dog, then over the lazy cat, then over the very lazy mouse.</p>"},
			},
		},
		{
			name: "an item with neither title nor description",
			body: "<!-- <item:link index=1> --><a href=\"a.html\">Anchor text</a><!-- </item:link> -->\n" +
				"<!-- <item:link index=2> -->b.html<!-- </item:link> -->\n" +
				"<!-- <item:image index=3 url=\"c.png\"/> -->",
			items: []wantItem{{"Anchor text", "http://example.com/news/a.html", ""}, {"http://example.com/news/b.html", "http://example.com/news/b.html", ""}},
			warnings: []wantWarning{
				{1, "item with index 1 has neither title nor description; it is titled with its link's text"},
				{2, "item with index 2 has neither title nor description; it is titled with its link"},
				{3, "item with index 3 has no title, no description and no link; left out"},
			},
			check: func(t *testing.T, r *wrapper.Result) {
				if a := r.Annotations[2]; a.Item != 0 {
					t.Errorf("annotation of the left-out item says item %d", a.Item)
				}
			},
		},
		{
			name: "empty values",
			body: "<!-- <item:title index=1> --> <!-- </item:title> -->\n<!-- <item:description index=1> -->Body<!-- </item:description> -->\n" +
				"<!-- <item:title index=2/> -->\n<!-- <item:link index=2> --><!-- </item:link> --><!-- <item:description index=2> --><p> </p><!-- </item:description> -->\n" +
				"<!-- <channel:title></channel:title> -->",
			items: []wantItem{{"Body", pageURL + "#item-1", "Body"}},
			warnings: []wantWarning{
				{1, "<item:title> is empty"},
				{3, "<item:title> is empty"},
				{4, "<item:link> is empty; the item gets a link to the page"},
				{3, "item with index 2 has no title, no description and no link; left out"},
				{5, "<channel:title> is empty; the page's <title> is used"},
			},
		},
		{
			name: "an item left out before another",
			body: "<!-- <item:description index=1> --><p> </p><!-- </item:description> -->\n" +
				"<!-- <item:title index=3> -->B<!-- </item:title> -->",
			items: []wantItem{{"B", pageURL + "#item-1", ""}},
			warnings: []wantWarning{
				{1, "item with index 1 has no title, no description and no link; left out"},
			},
		},
		{
			name: "own links give link ids; defaulted links give content ids",
			body: `<!-- <item:link index=1> -->a.html<!-- </item:link> --><!-- <item:title index=1> -->A<!-- </item:title> -->` +
				`<!-- <item:title index=2> -->B<!-- </item:title> --><!-- <item:description index=2> -->b<!-- </item:description> -->`,
			items: []wantItem{{"A", "http://example.com/news/a.html", ""}, {"B", pageURL + "#item-2", "b"}},
			check: func(t *testing.T, r *wrapper.Result) {
				a, b := r.Resource.Items[0], r.Resource.Items[1]
				if a.ID != dynamo.ItemID("http://example.com/news/a.html", true, "", "") || a.IDFromContent {
					t.Errorf("item 1: id %s, IDFromContent %v", a.ID, a.IDFromContent)
				}
				if b.ID != dynamo.ItemID("", false, "B", "b") || !b.IDFromContent {
					t.Errorf("item 2: id %s, IDFromContent %v", b.ID, b.IDFromContent)
				}
			},
		},
		{
			name: "items with the same id get distinct ids",
			body: "<!-- <item:link index=1> -->a.html<!-- </item:link> --><!-- <item:title index=1> -->A<!-- </item:title> -->\n" +
				"<!-- <item:link index=2> -->a.html<!-- </item:link> --><!-- <item:title index=2> -->A again<!-- </item:title> -->\n" +
				"<!-- <item:title index=3> -->Same<!-- </item:title> -->\n<!-- <item:title index=4> -->Same<!-- </item:title> -->",
			items: []wantItem{
				{"A", "http://example.com/news/a.html", ""}, {"A again", "http://example.com/news/a.html", ""},
				{"Same", pageURL + "#item-3", ""}, {"Same", pageURL + "#item-4", ""},
			},
			warnings: []wantWarning{
				{2, "item 2 has the same link as an earlier item; it gets an id of its own"},
				{4, "item 4 has the same title and description as an earlier item; it gets an id of its own"},
			},
			check: func(t *testing.T, r *wrapper.Result) {
				again := wrap(`<!-- <item:link index=1> -->a.html<!-- </item:link> --><!-- <item:title index=1> -->A<!-- </item:title> -->` +
					`<!-- <item:link index=2> -->a.html<!-- </item:link> --><!-- <item:title index=2> -->A again<!-- </item:title> -->`)
				if again.Resource.Items[1].ID != r.Resource.Items[1].ID {
					t.Errorf("the distinct id changes from one run to the next")
				}
			},
		},

		// Images and extensions.
		{
			name: "an image may come from the <img> of its content; link and title default to the item's",
			body: `<!-- <item:link index=1> -->a.html<!-- </item:link> --><!-- <item:title index=1> -->A<!-- </item:title> -->` +
				`<!-- <item:image index=1> --><img src="t.jpg" alt=" Thumb "><!-- </item:image> -->` +
				`<!-- <item:title index=2> -->B<!-- </item:title> --><!-- <item:image index=2 url="u.jpg"/> -->`,
			items: []wantItem{{"A", "http://example.com/news/a.html", ""}, {"B", pageURL + "#item-2", ""}},
			check: func(t *testing.T, r *wrapper.Result) {
				want := []dynamo.Image{
					{URL: "http://example.com/news/t.jpg", Link: "http://example.com/news/a.html", Title: "Thumb"},
					{URL: "http://example.com/news/u.jpg", Link: pageURL + "#item-2", Title: "B"},
				}
				for i, w := range want {
					if img := r.Resource.Items[i].Image; img == nil || *img != w {
						t.Errorf("item %d image = %+v, want %+v", i+1, img, w)
					}
				}
			},
		},
		{
			name:     "channel image; an image without url",
			body:     "<!-- <channel:image url=\"/logo.gif\"/> -->\n<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:image index=1 title=\"x\"/> -->",
			items:    []wantItem{{"A", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{2, "<item:image> has no url attribute and no <img> in its content; ignored"}},
			check: func(t *testing.T, r *wrapper.Result) {
				want := dynamo.Image{URL: "http://example.com/logo.gif", Link: pageURL, Title: "Page"}
				if img := r.Resource.Channel.Image; img == nil || *img != want {
					t.Errorf("channel image = %+v, want %+v", img, want)
				}
				if r.Resource.Items[0].Image != nil {
					t.Errorf("item image kept without url")
				}
			},
		},
		{
			name: "extensions: valid, well-known prefix without uri, invalid names",
			body: "<!-- <item:title index=1> -->A<!-- </item:title> -->\n" +
				"<!-- <item:extension index=1 uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"subject\"> -->Town <b>news</b><!-- </item:extension> -->\n" +
				"<!-- <item:extension index=1 prefix=\"dc\" localName=\"creator\">Ann</item:extension> -->\n" +
				"<!-- <item:extension index=1 uri=\"http://x/\" prefix=\"1bad\" localName=\"a\">v</item:extension> -->\n" +
				"<!-- <item:extension index=1 uri=\"http://x/\" prefix=\"x\">v</item:extension> -->\n" +
				"<!-- <item:extension index=1 prefix=\"foo\" localName=\"bar\">v</item:extension> -->\n" +
				"<!-- <item:extension index=1 uri=\"http://x/\" prefix=\"xmlns\" localName=\"bar\">v</item:extension> -->\n" +
				"<!-- <item:extension index=1 uri=\"http://purl.org/dc/elements/1.1/\" localName=\"rights\">r</item:extension> -->",
			items: []wantItem{{"A", pageURL + "#item-1", ""}},
			warnings: []wantWarning{
				{3, "has no uri; prefix dc is taken to mean http://purl.org/dc/elements/1.1/"},
				{4, `extension prefix "1bad" is not an XML name; ignored`},
				{5, `extension localName "" is not an XML name; ignored`},
				{6, "extension foo:bar has no namespace uri; ignored"},
				{7, `extension prefix "xmlns" is reserved; ignored`},
				{8, "has no prefix; dc is used for http://purl.org/dc/elements/1.1/"},
			},
			check: func(t *testing.T, r *wrapper.Result) {
				want := []dynamo.Extension{
					{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "subject", Value: "Town news"},
					{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "creator", Value: "Ann"},
					{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "rights", Value: "r"},
				}
				got := r.Resource.Items[0].Extensions
				if len(got) != len(want) {
					t.Fatalf("extensions = %+v", got)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("extension %d = %+v, want %+v", i, got[i], want[i])
					}
				}
			},
		},
		{
			name: "date extensions are parsed into RFC 3339; unreadable ones keep their text",
			body: "<!-- <channel:extension uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"date\">Thu, 08 Dec 2005 18:00:00 GMT</channel:extension> -->\n" +
				"<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:extension index=1 uri=\"http://purl.org/dc/elements/1.1/\" prefix=\"dc\" localName=\"date\"> -->December 08, 2005 @ 08:25 AM<!-- </item:extension> -->\n" +
				"<!-- <item:title index=2> -->B<!-- </item:title> --><!-- <item:extension index=2 uri=\"http://purl.org/rss/1.0/\" prefix=\"r\" localName=\"pubDate\">2005-12-07</item:extension> -->\n" +
				"<!-- <item:title index=3> -->C<!-- </item:title> --><!-- <item:extension index=3 uri=\"http://www.w3.org/2005/Atom\" prefix=\"atom\" localName=\"published\">the day before yesterday</item:extension> -->\n" +
				"<!-- <item:title index=4> -->D<!-- </item:title> --><!-- <item:extension index=4 uri=\"http://www.w3.org/2005/Atom\" prefix=\"atom\" localName=\"updated\">2005-12-06T10:00:00+01:00</item:extension> -->",
			items:    []wantItem{{"A", pageURL + "#item-1", ""}, {"B", pageURL + "#item-2", ""}, {"C", pageURL + "#item-3", ""}, {"D", pageURL + "#item-4", ""}},
			warnings: []wantWarning{{4, `atom:published: "the day before yesterday" is not a date Dynamo can read; the text is kept`}},
			check: func(t *testing.T, r *wrapper.Result) {
				if d, ok := r.Resource.Channel.Date(); !ok || d.Format("2006-01-02T15:04:05Z07:00") != "2005-12-08T18:00:00Z" {
					t.Errorf("channel date = %v, %v", d, ok)
				}
				for i, want := range []string{"2005-12-08T08:25:00Z", "2005-12-07T00:00:00Z", "", "2005-12-06T10:00:00+01:00"} {
					it := r.Resource.Items[i]
					d, ok := it.Date()
					if want == "" {
						if ok || it.Extensions[0].Value != "the day before yesterday" {
							t.Errorf("item %d: date %v %v, value %q", i+1, d, ok, it.Extensions[0].Value)
						}
						continue
					}
					if !ok || d.Format("2006-01-02T15:04:05Z07:00") != want || it.Extensions[0].Value != want {
						t.Errorf("item %d: date %v %v (value %q), want %s", i+1, d, ok, it.Extensions[0].Value, want)
					}
				}
			},
		},

		// Broken annotations.
		{
			name: "an annotation never closed takes the text up to the next annotation",
			body: "<!-- <item:title index=1> -->Title one</h2>\n<!-- <item:description index=1> -->Body<!-- </item:description> -->\n" +
				"<!-- <item:image index=1 url=\"i.png\"> -->\n<!-- <item:title index=2> -->Last",
			items: []wantItem{{"Title one", pageURL + "#item-1", "Body"}, {"Last", pageURL + "#item-2", ""}},
			warnings: []wantWarning{
				{1, "<item:title> is never closed; its content is taken up to the next annotation"},
				{4, "<item:title> is never closed"},
			},
		},
		{
			name:  "an opening tag ends an unclosed annotation of its name",
			body:  "<!-- <item:title index=1> -->A\n<!-- <item:title index=2> -->B<!-- </item:title> -->\n<!-- </item:title> -->",
			items: []wantItem{{"A", pageURL + "#item-1", ""}, {"B", pageURL + "#item-2", ""}},
			warnings: []wantWarning{
				{1, "<item:title> is never closed"},
				{3, "</item:title> closes nothing: no <item:title> is open; ignored"},
			},
		},
		{
			name: "an item annotation inside another item's",
			body: "<!-- <item:description index=1> -->One <!-- <item:title index=2> -->Two<!-- </item:title> --> and one<!-- </item:description> -->\n" +
				"<!-- <channel:description> -->Chan <!-- <item:title index=3> -->Three<!-- </item:title> --><!-- </channel:description> -->",
			items: []wantItem{{"One and one", pageURL + "#item-1", "One  and one"}, {"Two", pageURL + "#item-2", ""}, {"Three", pageURL + "#item-3", ""}},
			warnings: []wantWarning{
				{1, `<item:title index="2"> is inside <item:description index="1"> of line 1`},
				{2, "<item:title> is inside <channel:description> of line 2"},
			},
		},
		{
			name: "a second channel annotation of a kind is ignored",
			body: "<!-- <channel:title> -->One<!-- </channel:title> -->\n<!-- <channel:title> -->Two<!-- </channel:title> -->\n" +
				"<!-- <channel:image url=a.png /> -->\n<!-- <channel:image url=b.png /> -->",
			warnings: []wantWarning{
				{2, "a second <channel:title> (the first is on line 1) is ignored"},
				{4, "a second <channel:image> (the first is on line 3) is ignored"},
			},
			check: func(t *testing.T, r *wrapper.Result) {
				if c := r.Resource.Channel; c.Title != "One" || c.Image == nil || c.Image.URL != "http://example.com/news/a.png" {
					t.Errorf("channel = %q %+v", c.Title, c.Image)
				}
			},
		},
		{
			name: "annotations in script, style, textarea and title are not comments",
			body: "<script>document.write('<!-- <item:title index=1> -->x<!-- </item:title> -->')</script>\n" +
				"<style>/* <!-- <item:title index=2> --> */</style>\n<textarea><!-- <item:title index=3> --></textarea>\n" +
				"<!-- <item:title index=4> -->Real<!-- </item:title> -->",
			items: []wantItem{{"Real", pageURL + "#item-1", ""}},
			warnings: []wantWarning{
				{1, "annotation inside <script> ignored"},
				{2, "annotation inside <style> ignored"},
				{3, "annotation inside <textarea> ignored"},
			},
		},
		{
			name:  "a comment never closed: its annotation tags on its line are used",
			body:  "<!-- <item:title index=1>Quick</item:title>\n<p>rest</p>\n<!-- never closed either\n<p>more</p>",
			items: []wantItem{{"Quick", pageURL + "#item-1", ""}},
			warnings: []wantWarning{
				{1, "comment is not closed with -->; the annotation tags on its line are used"},
				{3, "comment is not closed with -->; browsers hide the rest of the page"},
			},
		},
		{
			name:     "a \"-->\" forgotten: the comment runs to the next one, as in a browser",
			body:     "<!-- <item:title index=1> --><p>A</p><!-- </item:title> > <p>lost</p>\n<!-- <item:title index=2> -->B<!-- </item:title> -->",
			items:    []wantItem{{"A", pageURL + "#item-1", ""}, {"B", pageURL + "#item-2", ""}},
			warnings: []wantWarning{{2, "\"<!--\" inside an annotation comment: a \"-->\" is probably missing before it"}},
		},
		{
			name:     "a tag without its '>'",
			body:     `<!-- <item:title index="1" -->A<!-- </item:title> -->`,
			items:    []wantItem{{"A", pageURL + "#item-1", ""}},
			warnings: []wantWarning{{1, "<item:title> is not closed with '>' before the end of its comment"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wrap(tt.body)
			checkInvariants(t, r)
			if tt.items != nil || len(r.Resource.Items) > 0 {
				checkItems(t, r.Resource.Items, tt.items)
			}
			checkWarnings(t, r.Warnings, tt.warnings)
			if tt.check != nil && !t.Failed() {
				tt.check(t, r)
			}
			verify.XMLData(t, r.Resource.XML())
		})
	}
}

func TestChannelTitleFallsBackToPageURL(t *testing.T) {
	r := wrapper.Wrap([]byte(`<p>nothing</p>`), wrapper.Options{URL: pageURL})
	if r.Resource.Channel.Title != pageURL {
		t.Errorf("title = %q", r.Resource.Channel.Title)
	}
	checkWarnings(t, r.Warnings, []wantWarning{{0, "no <channel:title> annotation and no <title> in the page"}, {0, "no annotations found"}})
}

func TestWithoutPageURL(t *testing.T) {
	r := wrapper.Wrap([]byte(`<title>T</title><!-- <item:link index=1> --><a href="a.html">A</a><!-- </item:link> --><!-- <item:title index=2> -->B<!-- </item:title> -->`),
		wrapper.Options{})
	checkItems(t, r.Resource.Items, []wantItem{{"A", "a.html", ""}, {"B", "#item-2", ""}})
	verify.XMLData(t, r.Resource.XML())

	r = wrapper.Wrap([]byte(`<title>T</title>`), wrapper.Options{URL: "http://exa mple.com/%zz"})
	checkWarnings(t, r.Warnings, []wantWarning{{0, "is not a URL"}, {0, "no annotations found"}})
}

// The public annotations locate each annotation and its content in Text.
func TestAnnotations(t *testing.T) {
	body := "<p>\n<!-- <item:title index=\"7\"> -->Hello <!-- <item:link index=\"7\"> -->a.html<!-- </item:link> -->world<!-- </item:title> --></p>"
	r := wrap(body)
	if len(r.Annotations) != 2 {
		t.Fatalf("annotations = %+v", r.Annotations)
	}
	title, link := r.Annotations[0], r.Annotations[1]
	if title.Name != "item:title" || title.Index != 7 || title.Item != 1 || title.Line != 2 || !title.Closed || len(title.Attrs) != 1 || title.Attrs[0] != (wrapper.Attr{Name: "index", Value: "7"}) {
		t.Errorf("title annotation = %+v", title)
	}
	if got := r.Text[title.Start:title.End]; !strings.HasPrefix(got, `<!-- <item:title index="7"> -->`) || !strings.HasSuffix(got, "<!-- </item:title> -->") {
		t.Errorf("title annotation spans %q", got)
	}
	if got := r.Text[title.ContentStart:title.ContentEnd]; got != `Hello <!-- <item:link index="7"> -->a.html<!-- </item:link> -->world` {
		t.Errorf("title content spans %q", got)
	}
	if title.Value != "Hello world" || link.Value != "http://example.com/news/a.html" {
		t.Errorf("values = %q, %q", title.Value, link.Value)
	}
	if got := r.Text[link.ContentStart:link.ContentEnd]; got != "a.html" {
		t.Errorf("link content spans %q", got)
	}
}

func TestWarningsAreBounded(t *testing.T) {
	r := wrap(strings.Repeat("<!-- </item:title> -->\n", 5000))
	if n := len(r.Warnings); n != 1001 {
		t.Fatalf("%d warnings, want 1000 and a count of the rest", n)
	}
	// The page has no annotation, only stray closing tags: that is said
	// first, whatever else is left out.
	if first := r.Warnings[0]; first.Message != "no annotations found: is this the annotated page?" {
		t.Errorf("first warning = %s", first)
	}
	if last := r.Warnings[1000]; last.Message != "4001 more warnings not shown" {
		t.Errorf("last warning = %s", last)
	}
}

func TestHasAnnotations(t *testing.T) {
	tests := []struct {
		page string
		want bool
	}{
		{`<p>plain</p>`, false},
		{`<!-- a comment --><p>x</p>`, false},
		{`<!-- <div>commented out</div> -->`, false},
		{`<p>&lt;item:title&gt; outside a comment</p><item:title>`, false},
		{`<!-- <chanel:title> -->`, false},
		{`<p>x</p><!-- <item:title index="1"> -->`, true},
		{`<!--</CHANNEL:TITLE>-->`, true},
		{"<!--\n\t<channel:image url='x'/>\n-->", true},
		{`<!-- <item:description index=1>`, true},
		{"\xff\xfe" + utf16le(`<!-- <item:title index="1"> -->`), true},
	}
	for _, tt := range tests {
		if got := wrapper.HasAnnotations([]byte(tt.page)); got != tt.want {
			t.Errorf("HasAnnotations(%q) = %v, want %v", tt.page, got, tt.want)
		}
	}
}

func utf16le(s string) string {
	var b []byte
	for _, r := range s { // ASCII only in these tests
		b = append(b, byte(r), 0)
	}
	return string(b)
}
