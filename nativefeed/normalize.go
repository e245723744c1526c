package nativefeed

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	gofeedext "github.com/mmcdole/gofeed/extensions"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dates"
	"github.com/dynamo-feeds/dynamo/values"
)

// nsITunes is Apple's podcast namespace, whose item fields worth keeping
// (duration, episode, season, explicit) become extensions.
const nsITunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"

// normalizer builds the Resource from a parsed feed.
type normalizer struct {
	f       *parsed
	w       *warnings
	loc     *time.Location
	feedURL *url.URL // nil when unknown
	site    *url.URL // the channel link, base of item links; nil when unknown
}

func normalize(f *parsed, opts Options, w *warnings) *dynamo.Resource {
	n := &normalizer{f: f, w: w, loc: opts.Location}
	if n.loc == nil {
		n.loc = time.UTC
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if n.feedURL = absURL(opts.URL); n.feedURL == nil && opts.URL != "" {
		w.add("the feed URL %q is not an absolute URL; relative links stay relative", opts.URL)
	}
	doc := &dynamo.Resource{RSSID: opts.RSSID, Timestamp: now}
	if n.feedURL != nil {
		doc.URL = uriString(n.feedURL.String())
	}
	n.channel(&doc.Channel, doc.URL)
	n.items(doc)
	return doc
}

// channel fills the channel; its link becomes the base of the items.
func (n *normalizer) channel(ch *dynamo.Channel, feedURL string) {
	f := n.f.feed
	var problem string
	linkBase := n.feedURL
	if n.f.bases != nil && n.f.bases.channel != nil {
		linkBase = n.f.bases.channel
	}
	if ch.Link, problem = resolveLink(linkBase, f.Link); problem != "" {
		n.w.add("the feed's link %s; the feed URL is used", problem)
	}
	if ch.Link == "" {
		ch.Link = feedURL
	}
	n.site = n.feedURL
	if u, err := url.Parse(ch.Link); err == nil && u.IsAbs() {
		n.site = u
	}
	ch.Title = titleText(f.Title)
	if ch.Title == "" {
		ch.Title = ch.Link
		n.w.add("the feed has no title; it is titled with its link")
	}
	ch.Description, _ = descriptionHTML(f.Description, n.site)
	if f.Image != nil && strings.TrimSpace(f.Image.URL) != "" {
		if src, problem := resolveLink(n.site, f.Image.URL); problem == "" {
			ch.Image = &dynamo.Image{URL: src, Link: ch.Link, Title: titleText(f.Image.Title)}
			if ch.Image.Title == "" {
				ch.Image.Title = ch.Title
			}
		} else {
			n.w.add("the feed image %s; left out", problem)
		}
	}
	if lang := strings.TrimSpace(f.Language); lang != "" {
		ch.Extensions = append(ch.Extensions, dc("language", lang))
	}
	if n.f.json == nil { // gofeed gives a JSON Feed its first item's dates; the format has none
		published, updated := f.Published, f.Updated
		if published == "" {
			published = updated
		}
		ch.Extensions = append(ch.Extensions, n.dates("feed", published, f.PublishedParsed, updated, f.UpdatedParsed)...)
	}
	ch.Extensions = append(ch.Extensions, people(f.Authors)...)
	if rights := plainText(f.Copyright); rights != "" {
		ch.Extensions = append(ch.Extensions, dc("rights", rights))
	}
}

// items fills the items in feed order, with unique, stable ids.
func (n *normalizer) items(doc *dynamo.Resource) {
	seen := map[string]int{}
	used := map[string]bool{}
	for i, fi := range n.f.feed.Items {
		it, key, ok := n.item(i, fi)
		if !ok {
			continue
		}
		it.Index = len(doc.Items) + 1
		if it.Link == "" {
			it.Link = defaultLink(doc.Channel.Link, it.Index)
		}
		if it.Image != nil && it.Image.Link == "" {
			it.Image.Link = it.Link
		}
		it.ID = uniqueID(key, seen, used)
		if seen[key.id] > 1 {
			n.w.add("item %d has the same %s as an earlier item; it gets an id of its own", it.Index, key.what)
		}
		doc.Items = append(doc.Items, it)
	}
}

// idKey is what identifies an item: the derived id, and what it came from.
type idKey struct {
	id   string
	what string
}

// item converts one feed item; ok is false for an item with nothing to
// show (no title, no content, no link).
func (n *normalizer) item(i int, fi *gofeed.Item) (it dynamo.Item, key idKey, ok bool) {
	bases := n.f.bases.item(i, len(n.f.feed.Items))
	linkBase := n.site
	if b := cmp.Or(bases["link"], bases[""]); b != nil {
		linkBase = b
	}
	link, problem := n.itemLink(i, fi, linkBase)
	if problem != "" {
		n.w.add("item %d: its link %s; left without a link of its own", i+1, problem)
	}
	it.Link = link
	// URLs in the item resolve against its xml:base, else its link.
	base := n.site
	if u, err := url.Parse(link); err == nil && link != "" {
		base = u
	}
	base = cmp.Or(bases[""], base)
	it.Title = titleText(fi.Title)
	content, from := n.content(i, fi)
	it.Description, it.Text = descriptionHTML(content, cmp.Or(bases[from], base))
	if it.Text == "" {
		if d := mediaDescription(fi); d != "" {
			it.Description, it.Text = descriptionHTML(d, base)
		}
	}
	switch {
	case it.Title != "":
	case it.Text != "":
		it.Title = excerpt(it.Text)
	case link != "":
		it.Title = link
		n.w.add("item %d has neither title nor description; it is titled with its link", i+1)
	default:
		n.w.add("item %d has no title, no description and no link; left out", i+1)
		return it, key, false
	}
	guid := strings.TrimSpace(fi.GUID)
	switch {
	case guid != "":
		// ItemID of the guid as a link: a guid that is the item's
		// permalink gives the id the link alone would give.
		key = idKey{dynamo.ItemID(guid, true, "", ""), "guid"}
	case link != "":
		key = idKey{dynamo.ItemID(link, true, "", ""), "link"}
	default:
		key = idKey{dynamo.ItemID("", false, it.Title, it.Description), "title and description"}
		it.IDFromContent = true
	}
	picture := mediaPicture(fi)
	if fi.Image != nil && strings.TrimSpace(fi.Image.URL) != "" {
		picture = fi.Image
	}
	if picture != nil {
		if src, problem := resolveLink(base, picture.URL); problem == "" {
			it.Image = &dynamo.Image{URL: src, Link: link, Title: titleText(picture.Title)}
			if it.Image.Title == "" {
				it.Image.Title = it.Title
			}
		}
	}
	it.Extensions = n.itemExtensions(i, fi, base)
	it.Updated = takeModified(&it.Extensions)
	it.Enclosures = n.enclosures(i, fi, base)
	return it, key, true
}

// itemLink is the item's own link: its feedburner:origLink, else its
// link, else an RSS guid that is a permalink, else a JSON Feed
// external_url; resolved against base.
func (n *normalizer) itemLink(i int, fi *gofeed.Item, base *url.URL) (string, string) {
	// FeedBurner's origLink is the permalink its tracking link redirects
	// to; an archive keeps the one that outlives the redirector.
	candidates := []string{first(fi.Extensions["feedburner"]["origLink"]), fi.Link}
	if n.f.rss != nil && i < len(n.f.rss.Items) {
		if g := n.f.rss.Items[i].GUID; g != nil && !strings.EqualFold(strings.TrimSpace(g.IsPermalink), "false") && isHTTPURL(g.Value) {
			candidates = append(candidates, g.Value)
		}
	}
	if n.f.json != nil && i < len(n.f.json.Items) {
		candidates = append(candidates, n.f.json.Items[i].ExternalURL)
	}
	for _, c := range candidates {
		if strings.TrimSpace(c) != "" {
			return resolveLink(base, c)
		}
	}
	return "", ""
}

// content is the item's HTML: its full content when the feed has it, else
// its description or summary. Text that a format marks as plain (Atom
// type="text", JSON Feed content_text) is escaped to HTML. from is the
// local name of the XML element it came from, whose xml:base applies.
func (n *normalizer) content(i int, fi *gofeed.Item) (html, from string) {
	switch {
	case n.f.atom != nil && i < len(n.f.atom.Entries):
		if c := n.f.atom.Entries[i].Content; c != nil && strings.TrimSpace(c.Value) != "" {
			if t := strings.ToLower(c.Type); t == "" || t == "text" {
				return textHTML(c.Value), "content"
			}
			return c.Value, "content"
		}
		return fi.Description, "summary"
	case n.f.json != nil && i < len(n.f.json.Items):
		ji := n.f.json.Items[i]
		switch {
		case strings.TrimSpace(ji.ContentHTML) != "":
			return ji.ContentHTML, ""
		case strings.TrimSpace(ji.ContentText) != "":
			return textHTML(ji.ContentText), ""
		}
		return textHTML(ji.Summary), ""
	}
	if strings.TrimSpace(fi.Content) != "" {
		return fi.Content, "encoded"
	}
	return fi.Description, "description"
}

// textHTML is plain text as HTML: escaped, line breaks kept.
func textHTML(s string) string {
	return strings.ReplaceAll(html.EscapeString(strings.TrimSpace(s)), "\n", "<br>\n")
}

func (n *normalizer) itemExtensions(i int, fi *gofeed.Item, base *url.URL) []dynamo.Extension {
	published, updated := fi.Published, fi.Updated
	if published == "" {
		published = updated
	}
	exts := n.dates(fmt.Sprintf("item %d", i+1), published, fi.PublishedParsed, updated, fi.UpdatedParsed)
	exts = append(exts, people(fi.Authors)...)
	for _, c := range fi.Categories {
		if c = plainText(c); c != "" {
			exts = append(exts, dc("subject", c))
		}
	}
	return append(exts, iTunes(fi.ITunesExt)...)
}

// takeModified removes a dcterms:modified extension that holds a time and
// returns that time: the item's Updated. One whose text could not be read
// stays an extension, as unreadable dates do.
func takeModified(exts *[]dynamo.Extension) time.Time {
	for i, e := range *exts {
		if dynamo.IsModifiedExtension(e) {
			if t, err := time.Parse(time.RFC3339, e.Value); err == nil {
				*exts = slices.Delete(*exts, i, i+1)
				return t
			}
		}
	}
	return time.Time{}
}

// enclosures are the item's files: RSS <enclosure>, Atom link
// rel="enclosure" and JSON Feed attachments (gofeed gathers the three),
// then Media RSS media:content that is not a picture (the picture is the
// item's image), each URL once. A length or type that is not one is left
// out, with a warning.
func (n *normalizer) enclosures(i int, fi *gofeed.Item, base *url.URL) []dynamo.Enclosure {
	var out []dynamo.Enclosure
	add := func(rawURL, mediaType, length string) {
		if strings.TrimSpace(rawURL) == "" {
			return
		}
		u, problem := resolveLink(base, rawURL)
		if problem != "" {
			n.w.add("item %d: the enclosure %s; left out", i+1, problem)
			return
		}
		if k := slices.IndexFunc(out, func(e dynamo.Enclosure) bool { return e.URL == u }); k >= 0 {
			// The same file again (an enclosure and its media:content):
			// it completes what the first mention left out.
			if out[k].Type == "" {
				out[k].Type, _ = values.MediaType(mediaType)
			}
			if out[k].Length == 0 {
				out[k].Length, _ = values.Size(length)
			}
			return
		}
		e := dynamo.Enclosure{URL: u}
		var ok bool
		if e.Type, ok = values.MediaType(mediaType); !ok {
			n.w.add("item %d: the enclosure's type %q is not a media type; left out", i+1, truncate(strings.TrimSpace(mediaType), 60))
		}
		if e.Length, ok = values.Size(length); !ok {
			n.w.add("item %d: the enclosure's length %q is not a size in bytes; left out", i+1, truncate(strings.TrimSpace(length), 60))
		}
		out = append(out, e)
	}
	for _, e := range fi.Enclosures {
		if e != nil {
			add(e.URL, e.Type, e.Length)
		}
	}
	for _, c := range mediaElements(fi, "content") {
		if c.Attrs["medium"] == "image" || strings.HasPrefix(c.Attrs["type"], "image/") {
			continue
		}
		add(c.Attrs["url"], c.Attrs["type"], c.Attrs["fileSize"])
	}
	return out
}

// mediaElements returns the item's Media RSS elements named local: those
// of the item, then those in its media:group elements (YouTube puts
// everything in a group).
func mediaElements(fi *gofeed.Item, local string) []gofeedext.Extension {
	media := fi.Extensions["media"]
	list := slices.Clone(media[local])
	for _, g := range media["group"] {
		list = append(list, g.Children[local]...)
	}
	return list
}

// mediaPicture is the item's picture in Media RSS, for an item the parser
// found none for: its media:thumbnail (YouTube, Reddit, Blogger, GitHub),
// else a media:content that is a picture.
func mediaPicture(fi *gofeed.Item) *gofeed.Image {
	for _, th := range mediaElements(fi, "thumbnail") {
		if u := strings.TrimSpace(th.Attrs["url"]); u != "" {
			return &gofeed.Image{URL: u}
		}
	}
	for _, c := range mediaElements(fi, "content") {
		if u := strings.TrimSpace(c.Attrs["url"]); u != "" && (c.Attrs["medium"] == "image" || strings.HasPrefix(c.Attrs["type"], "image/")) {
			return &gofeed.Image{URL: u}
		}
	}
	return nil
}

// mediaDescription is the item's media:description as HTML, the text of
// an item that has no description of its own (a YouTube video): plain
// text unless its type says html.
func mediaDescription(fi *gofeed.Item) string {
	for _, d := range mediaElements(fi, "description") {
		if strings.TrimSpace(d.Value) == "" {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(d.Attrs["type"]), "html") {
			return d.Value
		}
		return textHTML(d.Value)
	}
	return ""
}

// placeholderDate reports whether t is what a generator writes for "no
// date": Go's zero time (Hugo's "Mon, 01 Jan 0001 00:00:00 +0000"), a year
// before 100, or the Unix epoch's first second.
func placeholderDate(t time.Time) bool {
	return t.Year() < 100 || t.Equal(time.Unix(0, 0))
}

// rfc822Weekday matches a date that starts with a word and a comma, the
// place of RFC 822's day of the week; the submatch is the rest.
var rfc822Weekday = regexp.MustCompile(`^\p{L}+\.?,\s*(\S.*)$`)

var (
	itunesDuration = regexp.MustCompile(`^\d+(:\d{1,2}){0,2}$`)
	positiveNumber = regexp.MustCompile(`^[1-9]\d{0,8}$`)
)

// iTunes keeps the podcast fields of an item that readers use (duration,
// episode, season, explicit) as itunes: extensions, when their values have
// the form Apple's specification gives them. The episode's picture is the
// item's image already.
func iTunes(x *gofeedext.ITunesItemExtension) []dynamo.Extension {
	if x == nil {
		return nil
	}
	var exts []dynamo.Extension
	add := func(local, value string, ok bool) {
		if ok {
			exts = append(exts, dynamo.Extension{URI: nsITunes, Prefix: "itunes", LocalName: local, Value: value})
		}
	}
	d, ep, season := strings.TrimSpace(x.Duration), strings.TrimSpace(x.Episode), strings.TrimSpace(x.Season)
	add("duration", d, itunesDuration.MatchString(d))
	add("episode", ep, positiveNumber.MatchString(ep))
	add("season", season, positiveNumber.MatchString(season))
	switch explicit := strings.ToLower(strings.TrimSpace(x.Explicit)); explicit {
	case "true", "yes":
		add("explicit", "true", true)
	case "false", "no", "clean":
		add("explicit", "false", true)
	}
	return exts
}

// dates returns the dc:date extension (the publication date, else the
// update date) and, when the item was updated later, dcterms:modified,
// both in RFC 3339 as the wrapper writes dates. A date that cannot be read
// keeps its text, with a warning, as in the wrapper.
func (n *normalizer) dates(what, published string, publishedParsed *time.Time, updated string, updatedParsed *time.Time) []dynamo.Extension {
	var exts []dynamo.Extension
	pub, pubOK := n.date(what, published, publishedParsed)
	if pub != "" {
		exts = append(exts, dc("date", pub))
	}
	if strings.TrimSpace(updated) == "" || strings.TrimSpace(updated) == strings.TrimSpace(published) {
		return exts
	}
	if upd, updOK := n.date(what, updated, updatedParsed); upd != "" && (upd != pub || !pubOK || !updOK) {
		exts = append(exts, dynamo.Extension{URI: dynamo.NamespaceDCTerms, Prefix: "dcterms", LocalName: "modified", Value: upd})
	}
	return exts
}

// date normalizes one date: the dates package first (it knows the
// feed's zone for dates written without one), then gofeed's reading.
func (n *normalizer) date(what, raw string, parsed *time.Time) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	t, ok := dates.Parse(raw, n.loc)
	if !ok && parsed != nil && !parsed.IsZero() {
		t, ok = *parsed, true
	}
	if m := rfc822Weekday.FindStringSubmatch(raw); !ok && m != nil {
		// RFC 822's optional day of the week, in a language the date
		// parsers do not know ("mar," is Spanish Tuesday, and March):
		// the date says the day without it.
		t, ok = dates.Parse(m[1], n.loc)
	}
	switch {
	case ok && placeholderDate(t):
		n.w.add("%s: the date %q is a zero value, not a date; left out", what, truncate(raw, 60))
		return "", false
	case ok:
		return t.Format(time.RFC3339), true
	}
	n.w.add("%s: the date %q cannot be read; the text is kept", what, truncate(raw, 60))
	return collapseSpace(raw), false
}

func dc(local, value string) dynamo.Extension {
	return dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: local, Value: value}
}

// people are dc:creator extensions, one per author: the name, else the
// e-mail address.
func people(ps []*gofeed.Person) []dynamo.Extension {
	var exts []dynamo.Extension
	for _, p := range ps {
		if p == nil {
			continue
		}
		name := plainText(p.Name)
		if name == "" {
			name = strings.TrimSpace(p.Email)
		}
		if name != "" {
			exts = append(exts, dc("creator", name))
		}
	}
	return exts
}

// uniqueID gives the n-th item with an id a derived id, the same on every
// poll, as the wrapper does: ids stay unique (the schema requires it) and
// stable across versions.
func uniqueID(key idKey, seen map[string]int, used map[string]bool) string {
	id := key.id
	seen[id]++
	for nth := seen[id]; used[id]; {
		sum := sha256.Sum256([]byte(id + "\x00" + strconv.Itoa(nth)))
		id = hex.EncodeToString(sum[:16])
	}
	used[id] = true
	return id
}

// defaultLink is the link of an item without one: the channel link with a
// fragment naming the item, as the wrapper does for pages.
func defaultLink(channelLink string, index int) string {
	fragment := "item-" + strconv.Itoa(index)
	u, err := url.Parse(channelLink)
	if err != nil || channelLink == "" {
		return "#" + fragment
	}
	u.Fragment, u.RawFragment = fragment, ""
	return uriString(u.String())
}

// ttl is the feed's own idea of how often to poll it.
func (f *parsed) ttl(w *warnings) time.Duration {
	if f.rss == nil {
		return 0
	}
	var d time.Duration
	if s := strings.TrimSpace(f.rss.TTL); s != "" {
		minutes, err := strconv.Atoi(s)
		if err != nil || minutes < 0 {
			w.add("<ttl>%s</ttl> is not a number of minutes; ignored", truncate(s, 20))
		} else {
			d = time.Duration(min(minutes, int(MaxTTL/time.Minute))) * time.Minute
		}
	}
	if d == 0 {
		d = syndicationPeriod(f.feed)
	}
	return min(d, MaxTTL)
}

// syndicationPeriod reads the RSS syndication module: sy:updatePeriod
// (hourly, daily, …) divided by sy:updateFrequency.
func syndicationPeriod(f *gofeed.Feed) time.Duration {
	sy := f.Extensions["sy"]
	if sy == nil {
		return 0
	}
	period := map[string]time.Duration{
		"hourly": time.Hour, "daily": 24 * time.Hour, "weekly": 7 * 24 * time.Hour,
		"monthly": 30 * 24 * time.Hour, "yearly": 365 * 24 * time.Hour,
	}[strings.ToLower(strings.TrimSpace(first(sy["updatePeriod"])))]
	if period == 0 {
		return 0
	}
	freq, err := strconv.Atoi(strings.TrimSpace(first(sy["updateFrequency"])))
	if err != nil || freq < 1 {
		freq = 1
	}
	return period / time.Duration(freq)
}

func first(list []gofeedext.Extension) string {
	if len(list) == 0 {
		return ""
	}
	return list[0].Value
}
