// Package nativefeed reads the feeds that sites publish themselves
// (docs/NATIVE_FEEDS.md): RSS 0.9x, RSS 1.0, RSS 2.0, Atom and JSON Feed, parsed with
// mmcdole/gofeed and normalized into XMLData, so that the archive,
// queries and the four output formats treat them exactly like annotated
// pages.
//
// Real feeds are often broken. Before parsing, Parse repairs what can be
// repaired: it decodes misdeclared encodings, removes characters XML
// forbids, turns HTML entities into characters and bare ampersands into
// &amp;. Each repair is reported as a warning; none is fatal. Only a body
// that is not a feed at all, or one too broken to read, is an error.
//
// docs/NATIVE_FEEDS.md maps every feed field to XMLData.
package nativefeed

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	"github.com/mmcdole/gofeed/json"
	"github.com/mmcdole/gofeed/rss"

	"github.com/dynamo-feeds/dynamo"
)

// Formats, as Result.Format names them.
const (
	FormatRSS09x = "rss0.9x"
	FormatRSS10  = "rss1.0"
	FormatRSS20  = "rss2.0"
	FormatAtom   = "atom"
	FormatJSON   = "json"
)

// ErrNotFeed is the error for a body that is not RSS, Atom or JSON Feed
// (an HTML page, an image, an error message); test with errors.Is.
var ErrNotFeed = errors.New("not a feed")

// Options say where the feed came from.
type Options struct {
	// URL is the feed's URL. Relative links resolve against it, and it
	// stands in for a missing channel link.
	URL string
	// RSSID is the resource's rssId: the collection it belongs to.
	RSSID string
	// Location is the zone of dates written without one; nil means UTC.
	Location *time.Location
	// Now is the resource's timestamp; zero means time.Now().
	Now time.Time
}

// Result is a feed read into XMLData.
type Result struct {
	Resource *dynamo.Resource
	// Warnings are the repairs made and the problems found in data that
	// was nevertheless used; Line is 0 (feeds are not line-oriented).
	Warnings []dynamo.Warning
	// Format is one of the Format constants.
	Format string
	// TTL is how long the feed asks readers to wait between polls (RSS
	// <ttl>, or the syndication module's update period), at most MaxTTL;
	// zero when it does not say.
	TTL time.Duration
}

// MaxTTL caps the TTL a feed can ask for: a feed that says it updates
// yearly is still polled daily.
const MaxTTL = 24 * time.Hour

// Parse reads body, a feed retrieved with the HTTP Content-Type
// contentType, into XMLData.
func Parse(body []byte, contentType string, opts Options) (res *Result, err error) {
	defer func() {
		// gofeed is third-party code reading hostile input: whatever it
		// does, one feed must not bring the poller down.
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("read feed: the parser failed on this input: %v", p)
		}
	}()
	rep := &repairs{}
	body, gzipped, err := gunzipInner(body, maxInnerGzip)
	if err != nil {
		return nil, err // decompressed too far, or not at all: nothing to read
	}
	if gzipped {
		rep.add("the body was gzip-compressed once more inside its Content-Encoding: decompressed")
	}
	kind, root := sniff(body, contentType)
	var f *parsed
	switch kind {
	case kindXML:
		text := toUTF8(body, contentType, true, rep)
		text = dropEncodingDecl(stripIllegal(text, rep))
		text, bases := readXMLBases(typeEscaped(fixMarkup(text, rep), rep), absURL(opts.URL))
		if f, err = parseXMLSalvaging(text, rep); err == nil {
			f.bases = bases
		}
	case kindJSON:
		f, err = parseJSON(repairJSON(stripIllegal(toUTF8(body, contentType, false, rep), rep), rep))
	default:
		return nil, notFeed(root)
	}
	if err != nil {
		return nil, err
	}
	w := &warnings{}
	for _, n := range rep.notes {
		w.add("%s", n)
	}
	doc := normalize(f, opts, w)
	ttl := f.ttl(w)
	return &Result{Resource: doc, Warnings: w.list(), Format: f.format, TTL: ttl}, nil
}

func notFeed(root string) error {
	switch root {
	case "":
		return fmt.Errorf("%w: the body is neither XML nor JSON", ErrNotFeed)
	case "{":
		return fmt.Errorf("%w: JSON that names no JSON Feed version (https://jsonfeed.org/version/…) and is not served as application/feed+json", ErrNotFeed)
	}
	return fmt.Errorf("%w: the root element is <%s>, not <rss>, <rdf:RDF> or <feed>", ErrNotFeed, root)
}

// Detect reports whether body is a feed (RSS, Atom or JSON Feed) rather
// than an HTML page or anything else. For XML it looks only at the start of
// the body, so it is cheap enough for every fetch. contentType matters for
// JSON only: application/feed+json marks a JSON Feed.
func Detect(body []byte, contentType string) bool {
	if inner, ok, _ := gunzipInner(body[:min(len(body), sniffLimit)], sniffLimit); ok && len(inner) > 0 {
		// The start of the compressed body decompresses to the start of
		// the feed (a cut stream gives what it has).
		body = inner
	}
	kind, _ := sniff(body, contentType)
	return kind != kindNone
}

// parsed is a feed as gofeed read it: the universal form, and the format's
// own for what the universal form loses.
type parsed struct {
	format string
	feed   *gofeed.Feed
	rss    *rss.Feed
	atom   *atom.Feed
	json   *json.Feed
	bases  *xmlBases // nil without xml:base
}

var (
	rssTranslator  = &gofeed.DefaultRSSTranslator{DisableContentImageScan: true} // the description shows its images already
	atomTranslator = &gofeed.DefaultAtomTranslator{}
	jsonTranslator = &gofeed.DefaultJSONTranslator{}
)

func parseXML(text string) (*parsed, error) {
	switch gofeed.DetectFeedType(strings.NewReader(text)) {
	case gofeed.FeedTypeRSS:
		rf, err := (&rss.Parser{}).Parse(strings.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("read RSS feed: %w", err)
		}
		f, err := rssTranslator.Translate(rf)
		if err != nil {
			return nil, fmt.Errorf("read RSS feed: %w", err)
		}
		return &parsed{format: rssFormat(rf.Version), feed: f, rss: rf}, nil
	case gofeed.FeedTypeAtom:
		af, err := (&atom.Parser{}).Parse(strings.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("read Atom feed: %w", err)
		}
		f, err := atomTranslator.Translate(af)
		if err != nil {
			return nil, fmt.Errorf("read Atom feed: %w", err)
		}
		return &parsed{format: FormatAtom, feed: f, atom: af}, nil
	}
	// The sniffer saw a feed's root element, but the parser did not: the
	// document breaks before it.
	return nil, errors.New("read feed: the XML is too broken to find its root element")
}

// parseXMLSalvaging parses text, and when the parser fails, parses again
// what comes before the damage (see salvage).
func parseXMLSalvaging(text string, rep *repairs) (*parsed, error) {
	f, err := parseXML(text)
	if err == nil {
		return f, nil
	}
	cut, ok := salvage(text)
	if !ok {
		return nil, err
	}
	f, err2 := parseXML(cut)
	if err2 != nil {
		return nil, err
	}
	rep.add("the feed breaks off or is broken (%v); the complete items before the damage were read: %d", err, len(f.feed.Items))
	return f, nil
}

func parseJSON(text string) (*parsed, error) {
	jf, err := (&json.Parser{}).Parse(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("read JSON Feed: %w", err)
	}
	f, err := jsonTranslator.Translate(jf)
	if err != nil {
		return nil, fmt.Errorf("read JSON Feed: %w", err)
	}
	return &parsed{format: FormatJSON, feed: f, json: jf}, nil
}

func rssFormat(version string) string {
	switch {
	case strings.HasPrefix(version, "0.9"):
		return FormatRSS09x
	case version == "1.0":
		return FormatRSS10
	}
	return FormatRSS20
}
