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
