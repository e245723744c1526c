package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// SizePage returns version v (from 1) of the page that both stores'
// bytes-on-disk benchmarks store a thousand versions of: 50 items, newest
// first, one new item per version. Short items have a one-sentence
// description (about 360 bytes of XMLData an item); long ones three
// paragraphs of English sentences with a link, about 1.6 KB of description,
// as a news site's summaries are. An item's content depends only on its
// number, so it is stored once however many versions hold it.
func SizePage(source string, v int, long bool) *dynamo.Resource {
	r := &dynamo.Resource{URL: "http://127.0.0.1/" + source, RSSID: source,
		Timestamp: t0.Add(time.Duration(v) * time.Minute),
		Channel:   dynamo.Channel{Title: source + " news", Link: "http://127.0.0.1/" + source}}
	for i := v + 49; i >= v; i-- {
		it := sizeItem(i, long)
		it.Index = len(r.Items) + 1
		r.Items = append(r.Items, it)
	}
	return r
}

// SizeItems returns how many distinct items the first versions of
// SizePage hold (version v holds items v to v+49) and the bytes of their
// XMLData: a document of them all less an empty one.
func SizeItems(versions int, long bool) (items int, xml int) {
	d := SizePage("a", 1, long)
	d.Items = nil
	empty := len(d.XML())
	for n := 1; n <= versions+49; n++ {
		it := sizeItem(n, long)
		it.Index = n
		d.Items = append(d.Items, it)
	}
	return len(d.Items), len(d.XML()) - empty
}

func sizeItem(n int, long bool) dynamo.Item {
	link := fmt.Sprintf("http://127.0.0.1/news/%d", n)
	it := dynamo.Item{ID: dynamo.ItemID(link, true, "", ""), Link: link,
		Title: fmt.Sprintf("Council approves budget for district %d after long debate", n)}
	if !long {
		it.Text = fmt.Sprintf("The council voted on item %d of the agenda; the budget covers roads, schools and the library, and takes effect next month.", n)
		it.Description = "<p>" + it.Text + "</p>"
		return it
	}
	rng := rand.New(rand.NewPCG(uint64(n), 21))
	var desc, text strings.Builder
	for p := range 3 {
		desc.WriteString("<p>")
		for s := range 4 {
			sentence := fmt.Sprintf("%s %s %s %s, %s.", subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))],
				objects[rng.IntN(len(objects))], places[rng.IntN(len(places))], tails[rng.IntN(len(tails))])
			if p == 1 && s == 0 {
				desc.WriteString(`<a href="` + link + `/details">` + sentence + `</a>`)
			} else {
				desc.WriteString(sentence)
			}
			if text.Len() > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(sentence)
			if s < 3 {
				desc.WriteByte(' ')
			}
		}
		desc.WriteString("</p>")
	}
	it.Description, it.Text = desc.String(), text.String()
	return it
}

// The words of SizePage's long descriptions.
var (
	subjects = []string{"The city council", "A local school board", "The regional transport authority", "Residents of the old town",
		"The mayor's office", "A coalition of small businesses", "The county health department", "Volunteers from the library",
		"The planning committee", "Engineers working on the bridge", "The police commissioner", "A group of parents"}
	verbs = []string{"approved a plan to rebuild", "raised concerns about", "published a report on", "voted to delay work on",
		"asked for more money for", "opened a public consultation on", "announced new rules for", "criticised the cost of",
		"agreed to review", "celebrated the reopening of"}
	objects = []string{"the main railway station", "three primary schools", "the northern cycle path", "the public swimming pool",
		"street lighting in the harbour district", "the weekly farmers' market", "the emergency shelter", "bus services at night",
		"the historic town hall", "parking on residential streets", "the water treatment plant", "the new housing estate"}
	places = []string{"near the river", "in the east of the city", "after last winter's floods", "before the elections in May",
		"despite strong opposition", "at Tuesday's meeting", "for the third time this year", "on the edge of town"}
	tails = []string{"according to documents seen by this newspaper", "and a final decision is expected next month",
		"although critics say the budget is far too small", "which officials said would take at least two years",
		"in a move welcomed by most local residents", "while the opposition demanded a full public inquiry",
		"after a debate that lasted well into the night", "and work could begin as early as next spring"}
)

// HeldOut is a bytes-on-disk workload that the stores' size benchmarks
// report beside SizePage's two but that no storage change was tuned on
// (issue 21: an aim judged only on the data it was tuned on says little).
// Version v (from 1) of its page holds Size items, newest first, of which
// New are new in v; an item's content depends only on its number.
type HeldOut struct {
	Name     string
	Source   string // the source's id: every key of the stores carries it
	Versions int
	Size     int // items on a page
	New      int // new items a version
	item     func(n int) dynamo.Item
}

// HeldOutWorkloads are the held-out workloads: "medium" has two-paragraph
// descriptions of about 700 bytes and three new items a version; "rich"
// has a short description, an image, an audio enclosure and an author
// (dc:creator) on every item, a 30-item page, 3,000 versions and a source
// id as long as a site's name.
var HeldOutWorkloads = []HeldOut{
	{Name: "medium", Source: "m", Versions: 1000, Size: 50, New: 3, item: mediumItem},
	{Name: "rich", Source: "radio-riverside-weekly", Versions: 3000, Size: 30, New: 1, item: richItem},
}

// Page returns version v (from 1) of w's page.
func (w HeldOut) Page(v int) *dynamo.Resource {
	r := &dynamo.Resource{URL: "http://127.0.0.1/" + w.Source, RSSID: w.Source,
		Timestamp: t0.Add(time.Duration(v) * time.Minute),
		Channel:   dynamo.Channel{Title: w.Source + " news", Link: "http://127.0.0.1/" + w.Source}}
	first := (v-1)*w.New + 1
	for n := first + w.Size - 1; n >= first; n-- {
		it := w.item(n)
		it.Index = len(r.Items) + 1
		r.Items = append(r.Items, it)
	}
	return r
}

// Items returns how many distinct items w's versions hold and the bytes of
// their XMLData, as SizeItems does for SizePage.
func (w HeldOut) Items() (items int, xml int) {
	d := w.Page(1)
	d.Items = nil
	empty := len(d.XML())
	for n := 1; n <= (w.Versions-1)*w.New+w.Size; n++ {
		it := w.item(n)
		it.Index = n
		d.Items = append(d.Items, it)
	}
	return len(d.Items), len(d.XML()) - empty
}

// mediumItem has a title of its own words and two paragraphs of three
// sentences, one with emphasis: about 700 bytes of description.
func mediumItem(n int) dynamo.Item {
	rng := rand.New(rand.NewPCG(uint64(n), 700))
	link := fmt.Sprintf("http://127.0.0.1/m/stories/%d-%d", 2026, n)
	it := dynamo.Item{ID: dynamo.ItemID(link, true, "", ""), Link: link,
		Title: fmt.Sprintf("%s %s %s", subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))], objects[rng.IntN(len(objects))])}
	var desc, text strings.Builder
	for p := range 2 {
		desc.WriteString("<p>")
		for s := range 3 {
			sentence := fmt.Sprintf("%s %s %s %s, %s.", subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))],
				objects[rng.IntN(len(objects))], places[rng.IntN(len(places))], tails[rng.IntN(len(tails))])
			if p == 0 && s == 1 {
				desc.WriteString("<em>" + sentence + "</em>")
			} else {
				desc.WriteString(sentence)
			}
			if text.Len() > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(sentence)
			if s < 2 {
				desc.WriteByte(' ')
			}
		}
		desc.WriteString("</p>")
	}
	it.Description, it.Text = desc.String(), text.String()
	return it
}

// richItem is a podcast episode: a one-sentence description, an image, an
// audio enclosure and its author.
func richItem(n int) dynamo.Item {
	rng := rand.New(rand.NewPCG(uint64(n), 3000))
	link := fmt.Sprintf("http://127.0.0.1/radio/episodes/%d", n)
	it := dynamo.Item{ID: dynamo.ItemID(link, true, "", ""), Link: link,
		Title: fmt.Sprintf("Episode %d: %s %s", n, verbs[rng.IntN(len(verbs))], objects[rng.IntN(len(objects))])}
	it.Text = fmt.Sprintf("%s %s %s %s.", subjects[rng.IntN(len(subjects))], verbs[rng.IntN(len(verbs))],
		objects[rng.IntN(len(objects))], places[rng.IntN(len(places))])
	it.Description = "<p>" + it.Text + "</p>"
	it.Image = &dynamo.Image{URL: fmt.Sprintf("http://127.0.0.1/radio/art/%d.jpg", n), Link: link, Title: it.Title}
	it.Enclosures = []dynamo.Enclosure{{URL: fmt.Sprintf("http://127.0.0.1/radio/audio/episode-%d.mp3", n),
		Type: "audio/mpeg", Length: 20_000_000 + int64(rng.IntN(40_000_000))}}
	it.Extensions = []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "creator",
		Value: hosts[rng.IntN(len(hosts))]}}
	return it
}

// The hosts of richItem's episodes.
var hosts = []string{"Ana Lima", "Ben Okafor", "Chloé Martin", "Dariusz Nowak", "Elif Yılmaz", "Femi Adeyemi"}
