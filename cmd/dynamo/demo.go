package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// The demo's pace. A new story reaches the news page every demoEvery, and
// the two sources that carry it (the news page and the wire feed) are
// polled every demoPoll under the flat policy, so that a newcomer sees a
// new version, new items and the charts move within a minute. The example
// pages that never change are polled at a normal pace.
const (
	demoEvery       = 20 * time.Second
	demoPoll        = 10 * time.Second
	demoStaticEvery = 15 * time.Minute
	// demoShown is how many live stories the news page carries: older
	// ones drop off the page (a version with items removed) and stay in
	// the archive.
	demoShown = 5
)

// demoSite is the loopback web site of `serve --demo`: the example pages,
// with the news page gaining a story every period, and a native RSS feed
// ("the wire") that carries the same stories.
type demoSite struct {
	*httptest.Server
	every time.Duration
	now   func() time.Time
	// moved is the last run's origin when its port was taken and the
	// demo started again at a new one ("" otherwise).
	moved string
	news  []byte         // examples/news.html with its item indexes moved up to make room
	zone  *time.Location // the news page's, for its dates
}

// startDemoSite serves the demo site on loopback and registers each of its
// pages as a source, so a first run has something to poll and show within
// seconds. A restart serves the site at the last run's address (see
// listenDemo); when that port is taken, the demo's sources start again,
// archive and all, at the new one. every is the
// pace of new stories and poll the news and wire sources' interval (0 for
// the defaults). The demo's sources are built in, of known kinds, and
// polled faster than a registration may ask for, so they are stored
// without the checks of sources.Service.
func startDemoSite(ctx context.Context, store dynamo.Store, every, poll time.Duration) (*demoSite, error) {
	if every <= 0 {
		every = demoEvery
	}
	if poll <= 0 {
		poll = demoPoll
	}
	news, err := examples.Read("news.html")
	if err != nil {
		return nil, err
	}
	d := &demoSite{every: every, now: time.Now, news: shiftIndexes(news, demoShown), zone: time.UTC}
	if zone, err := time.LoadLocation("America/New_York"); err == nil {
		d.zone = zone
	}
	mux := http.NewServeMux()
	for _, p := range examples.List {
		if p.File == "news.html" {
			mux.HandleFunc("GET "+p.Path, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", p.ContentType)
				w.Write(d.newsPage(d.now()))
			})
			continue
		}
		body, err := examples.Read(p.File)
		if err != nil {
			return nil, err
		}
		mux.HandleFunc("GET "+p.Path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", p.ContentType)
			w.Write(body)
		})
	}
	ln, previous, err := listenDemo(ctx, store)
	if err != nil {
		return nil, err
	}
	d.Server = httptest.NewUnstartedServer(mux)
	d.Server.Listener.Close()
	d.Server.Listener = ln
	d.Server.Start()
	mux.HandleFunc("GET /wire/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		feed, err := d.wireFeed(d.now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(feed)
	})

	// The kinds are known: naming them spares a fetch of each page at
	// start (the fetcher spaces requests to one host a second apart).
	demo := []dynamo.Source{{ID: "wire", URL: d.URL + "/wire/feed.xml", Kind: dynamo.KindFeed, Category: "news", Interval: dynamo.Duration(poll), Policy: policy.Flat}}
	for _, p := range examples.List {
		id := strings.TrimSuffix(p.File, ".html")
		src := dynamo.Source{ID: id, URL: d.URL + p.Path, Kind: dynamo.KindHTML, Timezone: p.TimeZone, Category: "examples", Interval: dynamo.Duration(demoStaticEvery)}
		if p.File == "news.html" {
			src.Category, src.Interval, src.Policy = "news", dynamo.Duration(poll), policy.Flat
		}
		demo = append(demo, src)
	}
	if previous != "" && previous != d.URL {
		d.moved = previous
	}
	for i := range demo {
		if d.moved != "" {
			// The old origin's port is gone: every link the archive holds
			// would point at it, and the same stories would come back at
			// new links (new items). The demo's archive is the demo's own,
			// so it starts again rather than serving dead links.
			if err := store.DeleteSource(ctx, demo[i].ID, true); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
				d.Close()
				return nil, fmt.Errorf("demo source %s: %w", demo[i].ID, err)
			}
		}
		demo[i].CreatedAt = time.Now().UTC()
		if err := sources.Upsert(ctx, store, &demo[i]); err != nil {
			d.Close()
			return nil, fmt.Errorf("demo source %s: %w", demo[i].ID, err)
		}
	}
	return d, nil
}

// demoSourceIDs are the ids the demo registers whose URL tells where the
// last run's demo site listened.
var demoSourceIDs = []string{"news", "wire"}

// listenDemo opens the demo site's listener at the address the last run's
// site had, which the demo's sources keep in their URLs, so that a
// restarted demo serves the links it archived before (and the same stories
// at the same links, not again as new items). previous is that run's
// origin ("" for a first run). When its port is taken, the site listens on
// a fresh loopback port and previous differs from the new origin.
func listenDemo(ctx context.Context, store dynamo.Store) (ln net.Listener, previous string, err error) {
	for _, id := range demoSourceIDs {
		src, err := store.Source(ctx, id)
		if errors.Is(err, dynamo.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("demo: %w", err)
		}
		u, err := url.Parse(src.URL)
		if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "" {
			continue
		}
		previous = u.Scheme + "://" + u.Host
		if ln, err := net.Listen("tcp", u.Host); err == nil {
			return ln, previous, nil
		}
		break
	}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("demo: listen: %w", err)
	}
	return ln, previous, nil
}

// indexAttr is an annotation's index attribute in the news example.
var indexAttr = regexp.MustCompile(`(<item:[a-z]+ index=")([0-9]+)(")`)

// shiftIndexes adds n to every item index of an annotated page, so that n
// new items can take indexes 1 to n and come first.
func shiftIndexes(page []byte, n int) []byte {
	return indexAttr.ReplaceAllFunc(page, func(m []byte) []byte {
		sub := indexAttr.FindSubmatch(m)
		i, _ := strconv.Atoi(string(sub[2])) // digits only, by the expression
		return []byte(string(sub[1]) + strconv.Itoa(i+n) + string(sub[3]))
	})
}

// topStories is where the live stories go on the news page.
const topStories = "<h2><font face=\"Georgia\">Top Stories</font></h2>\n"

// newsPage is the news example as it stands at now: its own nine items
// after the demoShown newest live stories, annotated the way the page
// annotates its own.
func (d *demoSite) newsPage(now time.Time) []byte {
	var b strings.Builder
	b.WriteString("<p><font face=\"Verdana\" size=\"1\" color=\"#996600\">Dynamo demo: a new story appears here every ")
	b.WriteString(d.every.String())
	b.WriteString(".</font></p>\n")
	for i, s := range d.liveStories(now) {
		fmt.Fprintf(&b, `<!-- live story %d -->
<table width="100%%" border="0" cellpadding="2" cellspacing="0">
<tr valign="top">
  <td>
    <font face="Georgia" size="4"><b>
    <!-- <item:link index="%[2]d"> --><a href="%[3]s"><!-- </item:link> --><!-- <item:title index="%[2]d"> -->%[4]s<!-- </item:title> --></a>
    </b></font><br>
    <font face="Verdana" size="1" color="#666666">Posted <!-- <item:extension index="%[2]d" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"> -->%[5]s<!-- </item:extension> --> by <!-- <item:extension index="%[2]d" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="creator"> -->%[6]s<!-- </item:extension> --></font>
    <!-- <item:description index="%[2]d"> -->
    <p>%[7]s <a href="%[3]s">Full story</a></p>
    <!-- </item:description> -->
  </td>
</tr>
</table>
<hr size="1" noshade>
`, s.Seq, i+1, s.Link, html.EscapeString(s.Title), s.Posted, html.EscapeString(s.Author), html.EscapeString(s.Text))
	}
	page := string(d.news)
	at := strings.Index(page, topStories)
	if at < 0 { // the example is golden-tested; this would be a broken build
		panic("demo: the news example has no Top Stories heading")
	}
	at += len(topStories)
	return []byte(page[:at] + b.String() + page[at:])
}

// wireFeed is the news page at now as an RSS 2.0 feed, standing in for a
// native feed that carries the same stories.
func (d *demoSite) wireFeed(now time.Time) ([]byte, error) {
	res := wrapper.Wrap(d.newsPage(now), wrapper.Options{URL: d.URL + "/wire/", RSSID: "wire", Location: d.zone})
	res.Resource.Channel.Title = "Upper Valley Wire (Dynamo demo feed)"
	res.Resource.Channel.Description = "The Millbrook Courier's stories as a native RSS feed, for the demo: Dynamo recognizes them as the news page's."
	var b strings.Builder
	if err := transform.Render(&b, res.Resource, transform.RSS2); err != nil {
		return nil, fmt.Errorf("demo feed: %w", err)
	}
	return []byte(b.String()), nil
}

// liveStory is one story of the demo, as the page shows it.
type liveStory struct {
	Seq                 int64
	Title, Text, Author string
	Link                string // relative to the news page
	Posted              string // the page's own date format, New York time
}

// liveStories are the demoShown newest stories at now, newest first. Story
// n appeared at n·every after the Unix epoch, so the stories and their
// links follow from the clock alone: a restarted demo shows the same story
// at the same time, and each period brings a story never seen before (the
// pool's texts come round again, at new links and dates).
func (d *demoSite) liveStories(now time.Time) []liveStory {
	newest := now.UnixNano() / int64(d.every)
	var out []liveStory
	for seq := newest; seq > newest-demoShown; seq-- {
		p := storyPool[int(seq%int64(len(storyPool)))]
		at := time.Unix(0, seq*int64(d.every)).In(d.zone)
		out = append(out, liveStory{
			Seq:    seq,
			Title:  p.title,
			Text:   p.text,
			Author: p.author,
			Link:   fmt.Sprintf("stories/live/%s/%s-%d.html", at.Format("2006/01/02"), p.slug, seq),
			Posted: at.Format("January 02, 2006 @ 03:04 PM"),
		})
	}
	return out
}

// storyPool is what the demo newsroom writes about, in turn.
var storyPool = []struct{ slug, title, text, author string }{
	{"snowplow-contract", "Council Renews Snowplow Contract for Three Winters", "The town will pay Valley Excavating $412,000 a season to clear 38 miles of road, with a penalty for streets left unplowed past 7 a.m.", "Ellen Marsh"},
	{"mill-street-detour", "Mill Street Detour Signs Go Up Ahead of Bridge Work", "Crews posted orange detour signs along Cobb Road on Tuesday; the bridge closes to traffic at noon on the ninth.", "Tom Reyes"},
	{"library-book-sale", "Friends of the Library Book Sale Raises $3,100", "Volunteers sold more than 4,000 books over two days; the money will buy large-print titles and a second audiobook player.", "Ruth Okafor"},
	{"hawks-schedule", "Hawks Open Tournament Play Against Granville Saturday", "The Upper Valley champions tip off at 2 p.m. in the high school gym; tickets are $4 at the door, free for students.", "Dan Whitcomb"},
	{"water-main", "Water Main Break Closes Two Blocks of Elm Street", "Residents between Oak and Birch should expect low pressure until evening while the public works crew replaces a 1950s pipe.", "Tom Reyes"},
	{"school-lunch", "School Board Weighs Free Breakfast for Every Student", "The plan would cost about $61,000 a year, half of it covered by a state grant; the board votes at its next meeting.", "Ruth Okafor"},
	{"fire-station", "Volunteer Fire Department Shows Off New Engine", "Engine 3 replaces a 1987 truck and carries 1,000 gallons; the department holds an open house at the station on Sunday.", "Ellen Marsh"},
	{"farmers-market", "Winter Farmers Market Moves Into the Grange Hall", "Eleven vendors will sell eggs, cheese, bread and root vegetables every other Saturday from 9 to noon until April.", "Grace Lindqvist"},
	{"budget-hearing", "Residents Pack Hearing on Proposed Tax Rate", "More than 120 people came to the town hall to question a 2.1 percent increase; the selectboard will publish answers online.", "Ellen Marsh"},
	{"ice-rink", "Town Green Ice Rink Opens After Cold Snap", "Parks staff flooded the rink three nights running; skating is free, with lights on until 9 p.m. on weekdays.", "Grace Lindqvist"},
	{"bus-route", "Valley Transit Adds Saturday Run to Granville", "The new route leaves the post office at 8:15 and 1:15 and stops at the hospital and the mall; fares stay at $1.", "Tom Reyes"},
	{"spelling-bee", "Fourth-Grader Wins County Spelling Bee", "Maya Chen of Millbrook Elementary won on \"rhinoceros\" after 14 rounds and goes on to the state bee in March.", "Ruth Okafor"},
	{"diner-reopens", "Route 9 Diner Reopens Under New Owners", "The Petrakis family kept the counter, the booths and the pie case, and added a breakfast menu served all day.", "Grace Lindqvist"},
	{"power-outage", "Wind Knocks Out Power to 900 Homes Overnight", "Utility crews restored most customers by 6 a.m.; a few on Ridge Road may wait until afternoon for a new pole.", "Dan Whitcomb"},
	{"recycling-change", "Recycling Center Now Takes Plastic Film", "Bags and wrap go in the new blue bins by the gate, clean and dry; the center is open Wednesdays and Saturdays.", "Tom Reyes"},
	{"historical-society", "Historical Society Digitizes 1880s Town Reports", "Scans of forty annual reports, with the names of every taxpayer, are free to read at the library's computers.", "Ruth Okafor"},
	{"crossing-guard", "Crossing Guard Honored for 30 Years at Main and High", "Students lined the sidewalk with cards for Walt Benoit, who has stopped traffic for them since 1976.", "Ellen Marsh"},
	{"wrestling", "Millbrook Wrestlers Take Four Titles at Invitational", "The team finished second overall; senior Luis Ortega pinned his way to the 152-pound crown.", "Dan Whitcomb"},
	{"paving-plan", "Road Agent Lists Streets to Be Paved Next Summer", "Maple, Church and the upper end of Depot Street top the list, which depends on the town meeting's vote in March.", "Tom Reyes"},
	{"choir-concert", "Community Choir Sings Holiday Concert Friday", "Sixty voices and a brass quintet perform at the Congregational church at 7:30; admission is a canned good for the food shelf.", "Grace Lindqvist"},
	{"dog-licenses", "Town Clerk Reminds Owners: Dog Licenses Due", "Licenses cost $7.50 for spayed or neutered dogs and $10 for others; a rabies certificate is required.", "Ruth Okafor"},
	{"clinic-hours", "Health Clinic Adds Evening Hours on Thursdays", "The clinic on School Street will see patients until 8 p.m., with flu shots available without an appointment.", "Ellen Marsh"},
	{"ski-club", "Ski Club Buses Leave Saturdays From the Middle School", "Students in grades 5 to 12 can still sign up for the six-week program; scholarships cover lift tickets for a dozen.", "Dan Whitcomb"},
	{"trail-grant", "Rail Trail Wins Grant to Extend Path to Granville", "A $250,000 state grant will pay for 3.4 miles of gravel path and a new bridge over Beaver Brook.", "Grace Lindqvist"},
}
