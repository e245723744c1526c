package wrapper_test

import (
	"reflect"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// TestMistakes covers the warnings for the mistakes webmasters make that
// the annotation language allows (issue 19): each case, the warnings
// expected exactly, and the cases that must stay silent.
func TestMistakes(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		warnings []wantWarning
	}{
		// Title and description indexes differing by one.
		{
			name: "title index 2 and description index 3, each alone",
			body: "\n<!-- <item:title index=\"2\"> -->Budget<!-- </item:title> -->\n" +
				"<!-- <item:link index=\"2\"> --><a href=\"b.html\">more</a><!-- </item:link> -->\n" +
				"<!-- <item:description index=\"3\"> -->The council met.<!-- </item:description> -->",
			warnings: []wantWarning{{4, `<item:title index="2"> (line 2) has no description and <item:description index="3"> (line 4) has no title`}},
		},
		{
			name:     "description before the title, indexes one apart",
			body:     "<!-- <item:description index=4> -->Text<!-- </item:description> -->\n<!-- <item:title index=3> -->T<!-- </item:title> -->",
			warnings: []wantWarning{{2, `<item:title index="3"> (line 2) has no description and <item:description index="4"> (line 1) has no title`}},
		},
		{
			name: "items with both fields, one apart: silent",
			body: "<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:description index=1> -->a<!-- </item:description> -->\n" +
				"<!-- <item:title index=2> -->B<!-- </item:title> --><!-- <item:description index=2> -->b<!-- </item:description> -->",
		},
		{
			name: "a title-only item and a description-only item far apart: silent",
			body: "<!-- <item:title index=1> -->A<!-- </item:title> -->\n" +
				"<!-- <item:title index=5> -->E<!-- </item:title> --><!-- <item:description index=5> -->e<!-- </item:description> -->\n" +
				"<!-- <item:description index=2> -->b<!-- </item:description> -->",
		},
		{
			name: "indexes two apart: silent",
			body: "<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:description index=3> -->c<!-- </item:description> -->",
		},
		// Closing tags with another index.
		{
			name:     "closing tag with another index",
			body:     "\n<!-- <item:title index=\"2\"> -->Budget<!-- </item:title index=\"3\"> -->",
			warnings: []wantWarning{{2, `</item:title index="3"> closes <item:title> of line 2, whose index is "2": the indexes differ`}},
		},
		{
			name: "closing tag with the same index written otherwise: silent",
			body: `<!-- <item:title index="2"> -->Budget<!-- </item:title index=" 02"> -->`,
		},
		{
			name: "closing tag with an index, opening tag without",
			body: `<!-- <item:title> -->Budget<!-- </item:title index="2"> -->`,
			warnings: []wantWarning{
				{1, "<item:title> has no index"},
				{1, `</item:title index="2"> closes <item:title> of line 1, whose index is none`},
			},
		},
		// No annotation at all.
		{
			name:     "no annotation",
			body:     "<h1>News</h1><ul><li><a href=\"a.html\">A</a></li></ul>",
			warnings: []wantWarning{{0, "no annotations found: is this the annotated page?"}},
		},
		{
			name: "annotations only where they are not comments",
			body: "\n<script>var s = '<!-- <item:title index=1> -->';</script>",
			warnings: []wantWarning{
				{0, "no annotations found: is this the annotated page?"},
				{2, "annotation inside <script> ignored"},
			},
		},
		// Unknown names, with the name meant.
		{
			name:     "misspelt field",
			body:     "<!-- <item:titel index=1> -->A<!-- </item:titel> --><!-- <item:title index=1> -->A<!-- </item:title> -->",
			warnings: []wantWarning{{1, "unknown annotation <item:titel> ignored; did you mean <item:title>?"}},
		},
		{
			name: "every name, one or two letters off",
			body: "<!-- <itme:link index=1/> -->\n<!-- <channel:descripton> -->\n<!-- <item:imgae index=1/> -->\n<!-- <item-extension index=1/> -->\n" +
				"<!-- <chanel:title> -->\n<!-- <channel:lnik> -->\n<!-- <channel:imag/> -->\n<!-- <channel:extention/> -->\n<!-- <item:descriptions index=1/> -->\n" +
				"<!-- <ITEM:TITEL> -->\n<!-- <item:title index=1> -->A<!-- </item:title> -->",
			warnings: []wantWarning{
				{1, "did you mean <item:link>?"},
				{2, "did you mean <channel:description>?"},
				{3, "did you mean <item:image>?"},
				{4, "did you mean <item:extension>?"},
				{5, "did you mean <channel:title>?"},
				{6, "did you mean <channel:link>?"},
				{7, "did you mean <channel:image>?"},
				{8, "did you mean <channel:extension>?"},
				{9, "did you mean <item:description>?"},
				{10, "did you mean <item:title>?"},
			},
		},
		{
			name:     "an unknown field far from any: the fields are listed",
			body:     "<!-- <item:summary index=1> -->A<!-- </item:summary> --><!-- <item:title index=1> -->A<!-- </item:title> -->",
			warnings: []wantWarning{{1, "unknown annotation <item:summary> ignored; item annotations are title, link, description, image, extension and enclosure"}},
		},
		{
			name: "other markup in comments: silent",
			body: "<!-- <o:p></o:p> <dc:title>x</dc:title> <div class=\"item\"> <st1:place>Leeds</st1:place> --><!-- <item:title index=1> -->A<!-- </item:title> -->",
		},
		// Values that swallowed block-level markup or ran to the end.
		{
			name:     "an unclosed channel description swallows a heading",
			body:     "\n<!-- <channel:description> -->Our news\n<h2></h2>\n<!-- <item:title index=1> -->A<!-- </item:title> -->",
			warnings: []wantWarning{{2, "<channel:description> is never closed; its content is taken up to the next annotation (line 4) and swallowed block-level markup (<h2> on line 3)"}},
		},
		{
			name:     "an unclosed title runs to the end of the page",
			body:     "<!-- <item:title index=1> -->A<!-- </item:title> -->\n<!-- <item:title index=2> -->B\n<p>The rest of the page.</p>",
			warnings: []wantWarning{{2, "<item:title> is never closed; with no annotation after it, its content runs to the end of the page and swallowed block-level markup (<p> on line 3)"}},
		},
		{
			name:     "a closed title that runs on into the next paragraph",
			body:     "\n<h2><!-- <item:title index=1> -->Budget</h2>\n<p>The council met.<!-- </item:title> --></p>",
			warnings: []wantWarning{{2, "<item:title> holds block-level markup (</h2> on line 2): is its closing tag in the right place?"}},
		},
		{
			name: "a tag inside another tag, and markup in a quoted value: silent",
			body: "<!-- <channel:title> --><div >0</div <div >0 <a title=\"<p>\" x=don't>t</a><!-- </channel:title> --><!-- <item:title index=1> -->A<!-- </item:title> -->",
		},
		{
			name: "tags whose names only begin like a block's: silent",
			body: "<!-- <channel:title> -->000</li7>0<h7>x</h7><li-x>y</li-x><!-- </channel:title> --><!-- <item:title index=1> -->A<!-- </item:title> -->",
		},
		{
			name: "a title around its heading: silent",
			body: "<!-- <item:title index=1> --><h2>Budget</h2><!-- </item:title> --><!-- <item:description index=1> --><p>One.</p><p>Two.</p><!-- </item:description> -->",
		},
		// An index used twice.
		{
			name:     "an index used twice",
			body:     "<!-- <item:title index=3> -->A<!-- </item:title> -->\n<!-- <item:title index=3> -->B<!-- </item:title> -->",
			warnings: []wantWarning{{2, "index 3 is used twice for <item:title> (first on line 1); the second starts another item with index 3"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wrap(tt.body)
			checkWarnings(t, r.Warnings, tt.warnings)
			checkInvariants(t, r)
		})
	}
}

// Items keep the index they were written with, for the playground's items
// list; Item.Index stays their position.
func TestIndexesAsWritten(t *testing.T) {
	r := wrap(`<!-- <item:title index="6"> -->Six<!-- </item:title> -->` +
		`<!-- <item:title index=" 03 "> -->Three<!-- </item:title> -->` +
		`<!-- <item:title index="six"> -->Word<!-- </item:title> -->` +
		`<!-- <item:title> -->None<!-- </item:title> -->`)
	if want := []string{"03", "6", "six", ""}; !reflect.DeepEqual(r.Indexes, want) {
		t.Errorf("indexes = %q, want %q", r.Indexes, want)
	}
	for i, it := range r.Resource.Items {
		if it.Index != i+1 {
			t.Errorf("item %q has Index %d, want its position %d", it.Title, it.Index, i+1)
		}
	}
}

// The end of an HTML tag is found as the HTML tokenizer finds it: a quote
// right after a space opens no value (the "=" starts an attribute name), so
// <meta ="> ends at its '>' and the annotations after it are read.
func TestTagEndAsHTML(t *testing.T) {
	r := wrap(`<meta =">x<!-- <item:title index="1"> -->One<!-- </item:title> --><base href="a/" title='>'><!-- <item:title index="2"> -->Two<!-- </item:title> -->`)
	checkItems(t, r.Resource.Items, []wantItem{{"One", pageURL + "#item-1", ""}, {"Two", pageURL + "#item-2", ""}})
	checkWarnings(t, r.Warnings, nil)
}

// <item:enclosure> declares a file the item carries: around an <a href>
// (the link its content holds, resolved as links are), or self-closing with
// a url; its type and length go with it when they are a media type and a
// size in bytes. Several enclosures of one item are kept in page order,
// each URL once; one without a URL, or with one a feed may not carry, is
// left out with a warning.
func TestItemEnclosure(t *testing.T) {
	r := wrap(`<!-- <item:title index="1"> -->Episode 1<!-- </item:title> -->
<!-- <item:enclosure index="1" type="audio/mpeg" length="12345678"> --><a href="media/ep1.mp3">Listen</a><!-- </item:enclosure> -->
<!-- <item:enclosure index="1" url="media/ep1.ogg" type=" audio/ogg; codecs=vorbis " length="900"/> -->
<!-- <item:enclosure index="1" url="media/ep1.mp3"/> -->
<!-- <item:title index="2"> -->Episode 2<!-- </item:title> --><!-- <item:enclosure index="2" type="audio" length="-5"> -->https://cdn.example.org/ep2.mp3<!-- </item:enclosure> -->
<!-- <item:title index="3"> -->Episode 3<!-- </item:title> --><!-- <item:enclosure index="3" type="audio/mpeg"> --><!-- </item:enclosure> -->
<!-- <item:title index="4"> -->Episode 4<!-- </item:title> --><!-- <item:enclosure index="4" url="javascript:alert(1)"/> -->
<!-- <ITEM:Enclosure INDEX=5 URL=e5.pdf TYPE=application/pdf> --><!-- <item:title index=5> -->Five<!-- </item:title> -->
<!-- <channel:enclosure url="x.mp3"/> -->`)
	want := [][]dynamo.Enclosure{
		{{URL: "http://example.com/news/media/ep1.mp3", Type: "audio/mpeg", Length: 12345678},
			{URL: "http://example.com/news/media/ep1.ogg", Type: "audio/ogg; codecs=vorbis", Length: 900}},
		{{URL: "https://cdn.example.org/ep2.mp3"}},
		nil,
		nil,
		{{URL: "http://example.com/news/e5.pdf", Type: "application/pdf"}},
	}
	if len(r.Resource.Items) != len(want) {
		t.Fatalf("%d items, want %d", len(r.Resource.Items), len(want))
	}
	for i, w := range want {
		if got := r.Resource.Items[i].Enclosures; !reflect.DeepEqual(got, w) {
			t.Errorf("item %d's enclosures %+v, want %+v", i+1, got, w)
		}
	}
	checkWarnings(t, r.Warnings, []wantWarning{
		{5, `<item:enclosure> type "audio" is not a media type such as audio/mpeg; left out`},
		{5, `<item:enclosure> length "-5" is not a size in bytes; left out`},
		{6, "<item:enclosure> is empty; ignored"},
		{7, "<item:enclosure> is a javascript: URL, which feeds do not carry; ignored"},
		{9, "unknown annotation <channel:enclosure> ignored; channel annotations are title, link, description, image and extension"},
	})
	// The annotations name their item and value, for the playground.
	var seen int
	for _, a := range r.Annotations {
		if a.Name == "item:enclosure" && a.Item == 1 {
			seen++
		}
	}
	if seen != 3 {
		t.Errorf("%d item:enclosure annotations of item 1, want 3", seen)
	}
}

// An enclosure (dynamo:enclosure) is a URL, resolved as links are, and
// becomes one of the item's Enclosures; one that is no URL a feed may carry
// is left out with a warning.
func TestEnclosureIsALink(t *testing.T) {
	ns := `uri="https://dynamo-feeds.github.io/ns/1.0" prefix="dynamo" localName="enclosure"`
	r := wrap(`<!-- <item:title index=1> -->A<!-- </item:title> --><!-- <item:extension index=1 ` + ns + `> -->audio/a.mp3<!-- </item:extension> -->` +
		"\n" + `<!-- <item:title index=2> -->B<!-- </item:title> --><!-- <item:extension index=2 ` + ns + `> -->javascript:alert(1)<!-- </item:extension> -->`)
	if enc := r.Resource.Items[0].Enclosures; len(enc) != 1 || enc[0].URL != "http://example.com/news/audio/a.mp3" {
		t.Errorf("item 1's enclosures %+v, want the resolved URL", enc)
	}
	if it := r.Resource.Items[1]; len(it.Extensions)+len(it.Enclosures) != 0 {
		t.Errorf("item 2 keeps %+v %+v", it.Extensions, it.Enclosures)
	}
	checkWarnings(t, r.Warnings, []wantWarning{{2, "<item:extension> dynamo:enclosure is a javascript: URL, which feeds do not carry; ignored"}})
}
