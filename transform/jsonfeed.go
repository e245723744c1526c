package transform

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/gorilla/feeds"

	"github.com/dynamo-feeds/dynamo"
)

// jsonFeedVersion is the version URL of JSON Feed 1.1.
const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

// jsonFeed is gorilla/feeds' JSON Feed 1.1 document with two changes: its
// items are always written (gorilla's field omits an empty list, but the
// specification requires "items"), and a "_dynamo" extension object carries
// the XMLData extensions that JSON Feed has no field for.
type jsonFeed struct {
	*feeds.JSONFeed
	Items  []jsonItem      `json:"items"` // shadows feeds.JSONFeed.Items
	Dynamo *jsonExtensions `json:"_dynamo,omitempty"`
}

type jsonItem struct {
	*feeds.JSONItem
	Dynamo *jsonExtensions `json:"_dynamo,omitempty"`
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

// writeJSON writes f as JSON Feed 1.1 (https://jsonfeed.org/version/1.1)
// with gorilla/feeds' types. Descriptions are content_html; an item without
// one gets its title as content_text, since every item needs one of the
// two. dc:creator values become authors, dc:subject values tags and the
// channel's dc:language the language; the channel image is the feed's icon
// and an item's image its image.
func writeJSON(w io.Writer, f *feed) error {
	doc := jsonFeed{
		JSONFeed: &feeds.JSONFeed{
			Version:     jsonFeedVersion,
			Title:       f.title,
			Language:    f.language,
			HomePageUrl: f.link,
			FeedUrl:     f.self,
			Description: plainText("", f.description),
			Authors:     jsonAuthors(f.creators),
		},
		Items:  make([]jsonItem, len(f.entries)),
		Dynamo: extensionsObject(f.extensions),
	}
	if f.image != nil {
		doc.Icon = f.image.url
	}
	for i := range f.entries {
		doc.Items[i] = newJSONItem(&f.entries[i])
	}
	bw := bufio.NewWriterSize(w, 16<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // a feed is not embedded in HTML; "<" stays readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return bw.Flush()
}

func newJSONItem(e *entry) jsonItem {
	it := &feeds.JSONItem{
		Id:          e.id,
		Url:         e.link,
		Title:       e.title,
		ContentHTML: e.description,
		Image:       e.image,
		Authors:     jsonAuthors(e.creators),
		Tags:        e.subjects,
	}
	if e.description == "" {
		it.ContentText = e.title
	}
	if !e.date.IsZero() {
		date := e.date
		it.PublishedDate = &date
	}
	return jsonItem{JSONItem: it, Dynamo: extensionsObject(e.extensions)}
}

func jsonAuthors(names []string) []*feeds.JSONAuthor {
	var authors []*feeds.JSONAuthor
	for _, name := range names {
		authors = append(authors, &feeds.JSONAuthor{Name: name})
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
