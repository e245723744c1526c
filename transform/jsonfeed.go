package transform

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// jsonFeedVersion is the version URL of JSON Feed 1.1.
const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

// jsonFeed is a JSON Feed 1.1 document up to its items, with Dynamo's own
// small types rather than gorilla/feeds': its item writes "banner_" for
// banner_image and its attachment "size" for size_in_bytes (an int32
// besides), which readers do not understand. writeJSON follows it with the
// items, always written (the specification requires "items"), and a
// "_dynamo" extension object carrying the XMLData extensions that JSON Feed
// has no field for.
type jsonFeed struct {
	Version     string       `json:"version"`
	Title       string       `json:"title"`
	Language    string       `json:"language,omitempty"`
	HomePageURL string       `json:"home_page_url,omitempty"`
	FeedURL     string       `json:"feed_url,omitempty"`
	NextURL     string       `json:"next_url,omitempty"` // the next older page of an archived feed
	Description string       `json:"description,omitempty"`
	Icon        string       `json:"icon,omitempty"`
	Authors     []jsonAuthor `json:"authors,omitempty"`
	Hubs        []jsonHub    `json:"hubs,omitempty"`
}

// jsonHub is an endpoint to subscribe to the feed in real time (JSON Feed
// 1.1 hubs): Dynamo's WebSub hub.
type jsonHub struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type jsonItem struct {
	ID            string           `json:"id"`
	URL           string           `json:"url,omitempty"`
	Title         string           `json:"title,omitempty"`
	ContentHTML   string           `json:"content_html,omitempty"`
	ContentText   string           `json:"content_text,omitempty"`
	Image         string           `json:"image,omitempty"`
	DatePublished *time.Time       `json:"date_published,omitempty"`
	DateModified  *time.Time       `json:"date_modified,omitempty"`
	Authors       []jsonAuthor     `json:"authors,omitempty"`
	Tags          []string         `json:"tags,omitempty"`
	Attachments   []jsonAttachment `json:"attachments,omitempty"`
	Dynamo        *jsonExtensions  `json:"_dynamo,omitempty"`
}

type jsonAuthor struct {
	Name string `json:"name"`
}

// jsonAttachment is an enclosure; mime_type is required.
type jsonAttachment struct {
	URL         string `json:"url"`
	MIMEType    string `json:"mime_type"`
	SizeInBytes int64  `json:"size_in_bytes,omitempty"`
}

// jsonExtensions is the custom object (JSON Feed §"Extensions": a key that
// starts with an underscore) holding XMLData extensions as they are, so a
// JSON reader loses nothing that the XML formats carry.
type jsonExtensions struct {
	About      string          `json:"about"`
	Extensions []jsonExtension `json:"extensions"`
}

type jsonExtension struct {
	URI       string `json:"uri"`
	Prefix    string `json:"prefix"`
	LocalName string `json:"localName"`
	Value     string `json:"value"`
}

// writeJSON writes f as JSON Feed 1.1 (https://jsonfeed.org/version/1.1).
// Descriptions are content_html; an item without
// one gets its title as content_text, since every item needs one of the
// two. dc:creator values become authors, dc:subject values tags and the
// channel's dc:language the language; the channel image is the feed's icon
// and an item's image its image; enclosures are attachments, an updated
// time date_modified.
//
// Each item is encoded and written as it comes, so that a feed of any
// length is never held whole; the bytes are those of one json.Encoder
// indenting the whole document by two spaces.
func writeJSON(w io.Writer, f *feed, es entries) error {
	doc := jsonFeed{
		Version:     jsonFeedVersion,
		Title:       f.title,
		Language:    f.language,
		HomePageURL: f.link,
		FeedURL:     f.self,
		NextURL:     f.history.PrevArchive,
		Description: plainText("", f.description),
		Authors:     jsonAuthors(f.creators),
	}
	if f.image != nil {
		doc.Icon = f.image.url
	}
	if f.hub != "" {
		doc.Hubs = []jsonHub{{Type: "WebSub", URL: f.hub}}
	}
	bw := newBufWriter(w)
	defer freeBufWriter(bw)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a feed is not embedded in HTML; "<" stays readable
	// encode writes v as the document's encoder would at the depth that
	// prefix indents, without the encoder's final newline.
	encode := func(v any, prefix string) error {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	// The head's fields, then the items in the object it opened.
	buf.Reset()
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n}\n")))
	bw.WriteString(",\n  \"items\": [")
	sep := "\n    "
	err := es(func(e *entry) error {
		bw.WriteString(sep)
		sep = ",\n    "
		if err := encode(newJSONItem(e), "    "); err != nil {
			return err
		}
		_, err := bw.Write(nil) // the first write error, kept by bw
		return err
	})
	if err != nil {
		return err
	}
	if sep != "\n    " {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
	if ext := extensionsObject(f.extensions); ext != nil {
		bw.WriteString(",\n  \"_dynamo\": ")
		if err := encode(ext, "  "); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

func newJSONItem(e *entry) jsonItem {
	it := jsonItem{
		ID:          e.id,
		URL:         e.link,
		Title:       e.title,
		ContentHTML: e.description,
		Image:       e.image,
		Authors:     jsonAuthors(e.creators),
		Tags:        e.subjects,
		Dynamo:      extensionsObject(e.extensions),
	}
	if e.description == "" {
		it.ContentText = e.title
	}
	if !e.date.IsZero() {
		it.DatePublished = &e.date
	}
	if !e.updated.IsZero() {
		it.DateModified = &e.updated
	}
	for _, enc := range e.enclosures {
		it.Attachments = append(it.Attachments, jsonAttachment{URL: enc.url, MIMEType: enc.typeOrDefault(), SizeInBytes: enc.length})
	}
	return it
}

func jsonAuthors(names []string) []jsonAuthor {
	var authors []jsonAuthor
	for _, name := range names {
		authors = append(authors, jsonAuthor{Name: name})
	}
	return authors
}

func extensionsObject(exts []dynamo.Extension) *jsonExtensions {
	if len(exts) == 0 {
		return nil
	}
	obj := &jsonExtensions{About: dynamo.NamespaceDynamo, Extensions: make([]jsonExtension, len(exts))}
	for i, e := range exts {
		obj.Extensions[i] = jsonExtension{URI: e.URI, Prefix: e.Prefix, LocalName: e.LocalName, Value: e.Value}
	}
	return obj
}
