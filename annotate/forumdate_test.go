package annotate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// Forum topic lists whose rows show the topic's start and its last post
// (docs/ANNOTATE.md, "Dates", "Which date"): each item's date is the
// topic's start, whichever of the two rules tells it (the date nearest
// the title; a date labelled as the last post's, in a class name or in
// words, in several languages); a list whose rows show only the last
// post's date keeps it.

// fdStart is topic i's start date (a day above 12, no order to guess),
// fdLast its last post's, one or two days later.
func fdStart(i int) time.Time { return time.Date(2024, 3, 28-i%14, 0, 0, 0, 0, time.UTC) }
func fdLast(i int) time.Time  { return fdStart(i).AddDate(0, 0, 1+i%2) }

// fdLayout writes one topic row: its title, link, start and last post
// dates (formatted), and the poster names.
type fdLayout struct {
	name     string
	head     string // the list's opening markup, after <body>
	tail     string
	row      func(i int, title, link, start, last string) string
	format   string
	lastOnly bool // the rows show the last post's date only: it is the item's
}

var fdLayouts = []fdLayout{
	{
		// phpBB 3: the start in the title's block, the last post in a
		// <dd class="lastpost"> labelled "Last post".
		name:   "phpbb3",
		head:   `<div class="forumbg"><ul class="topiclist"><li class="header"><dl><dt>Topics</dt><dd class="posts">Replies</dd><dd class="lastpost">Last post</dd></dl></li></ul><ul class="topiclist topics">`,
		tail:   `</ul></div>`,
		format: "Mon Jan 02, 2006 3:04 pm",
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<li class="row bg%d"><dl class="row-item topic_read"><dt title="No unread posts"><div class="list-inner"><a href="%s" class="topictitle">%s</a><br><div class="topic-poster responsive-hide left-box">by <a href="/memberlist.php?u=%d" class="username">alice%d</a> &raquo; %s</div></div></dt><dd class="posts">%d <dfn>Replies</dfn></dd><dd class="views">%d <dfn>Views</dfn></dd><dd class="lastpost"><span><dfn>Last post </dfn>by <a href="/memberlist.php?u=%d" class="username">bob%d</a> <a href="%s#p%d" title="Go to last post">&#187;</a><br>%s</span></dd></dl></li>`,
				1+i%2, link, title, 50+i, i, start, 3+i, 100+7*i, 60+i, i, link, 900+i, last)
		},
	},
	{
		// phpBB 2: a table; the start under the title in its cell, the
		// last post in a cell of its own, unlabelled.
		name:   "phpbb2",
		head:   `<table class="forumline" width="100%"><tr><th>Topics</th><th>Replies</th><th>Author</th><th>Views</th><th>Last Post</th></tr>`,
		tail:   `</table>`,
		format: "Mon Jan 02, 2006 3:04 pm",
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<tr><td class="row1" width="100%%"><span class="topictitle"><a href="%s" class="topictitle">%s</a></span><br><span class="gensmall">%s</span></td><td class="row2" align="center"><span class="postdetails">%d</span></td><td class="row3" align="center"><span class="name"><a href="/profile.php?u=%d">alice%d</a></span></td><td class="row2" align="center"><span class="postdetails">%d</span></td><td class="row3Right" align="center" nowrap="nowrap"><span class="postdetails">%s<br><a href="/profile.php?u=%d">bob%d</a> <a href="%s#%d">&raquo;</a></span></td></tr>`,
				link, title, start, 3+i, 50+i, i, 100+7*i, last, 60+i, i, link, 900+i)
		},
	},
	{
		// vBulletin 4: "Started by alice, date" under the title, the
		// last post in a <dl class="threadlastpost">.
		name:   "vbulletin",
		head:   `<ol id="threads" class="threads">`,
		tail:   `</ol>`,
		format: "Jan 2, 2006",
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<li class="threadbit" id="thread_%d"><div class="rating0 nonsticky"><div class="threadinfo"><div class="inner"><h3 class="threadtitle"><a class="title" href="%s" id="thread_title_%d">%s</a></h3><div class="threadmeta"><div class="author"><span class="label">Started by <a href="/member.php?u=%d" class="username">alice%d</a>, %s</span></div></div></div></div><ul class="threadstats td alt"><li>Replies: <a href="#">%d</a></li><li>Views: %d</li></ul><dl class="threadlastpost td"><dt class="lastpostby hidden">Last Post By:</dt><dd><div class="popupmenu memberaction"><a class="username" href="/member.php?u=%d">bob%d</a></div></dd><dd>%s <span class="time">10:02 PM</span> <a href="%s#post%d" class="lastpostdate understate" title="Go to last post">&raquo;</a></dd></dl></div></li>`,
				700+i, link, 700+i, title, 50+i, i, start, 3+i, 100+7*i, 60+i, i, last, link, 900+i)
		},
	},
	{
		// XenForo 2 on a German board: the last post's <time datetime>
		// in a cell named "latest".
		name:   "xenforo-de",
		head:   `<div class="structItemContainer"><div class="structItemContainer-group js-threadList">`,
		tail:   `</div></div>`,
		format: "2. Jan. 2006",
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<div class="structItem structItem--thread js-threadListItem-%d"><div class="structItem-cell structItem-cell--main"><div class="structItem-title"><a href="%s">%s</a></div><div class="structItem-minor"><ul class="structItem-parts"><li><a href="/members/alice.%d/" class="username">alice%d</a></li><li class="structItem-startDate"><a href="%s"><time class="u-dt" datetime="%s">%s</time></a></li></ul></div></div><div class="structItem-cell structItem-cell--meta"><dl class="pairs"><dt>Antworten</dt><dd>%d</dd></dl></div><div class="structItem-cell structItem-cell--latest"><a href="%slatest"><time class="structItem-latestDate u-dt" datetime="%s">%s</time></a><div class="structItem-minor"><a href="/members/bob.%d/" class="username">bob%d</a></div></div></div>`,
				700+i, link, title, 50+i, i, link, fdStart(i).Format("2006-01-02T15:04:05-0700"), "Heute um 10:02", 3+i, link, fdLast(i).Format("2006-01-02T15:04:05-0700"), "Heute um 11:40", 60+i, i)
		},
	},
	{
		// A board whose cells say nothing: the start in the title's
		// cell, the last post in a cell of its own, unlabelled (its
		// place's name would win the vote's tie).
		name:   "plain-cells",
		head:   `<table class="board">`,
		tail:   `</table>`,
		format: "2 Jan 2006",
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<tr><td class="topic"><a href="%s">%s</a><div class="starter">alice%d, %s</div></td><td class="count">%d</td><td class="activity"><div class="info">%s<br><a href="/u/%d">bob%d</a></div></td></tr>`,
				link, title, i, start, 3+i, last, 60+i, i)
		},
	},
	{
		// SMF 2.0: only the last post's date is shown; it is the item's.
		name:     "smf-lastonly",
		head:     `<div class="tborder topic_table" id="messageindex"><table class="table_grid" cellspacing="0"><thead><tr class="catbg"><th>Subject / Started by</th><th>Replies / Views</th><th>Last post</th></tr></thead><tbody>`,
		tail:     `</tbody></table></div>`,
		format:   "January 02, 2006, 03:04:05 pm",
		lastOnly: true,
		row: func(i int, title, link, start, last string) string {
			return fmt.Sprintf(`<tr><td class="subject windowbg2"><div><span id="msg_%d"><a href="%s">%s</a></span><p>Started by <a href="/index.php?action=profile;u=%d">alice%d</a></p></div></td><td class="stats windowbg">%d Replies<br>%d Views</td><td class="lastpost windowbg2"><a href="%s#new"><img src="/Themes/default/images/icons/last_post.gif" alt="Last post" title="Last post"></a>%s<br>by <a href="/index.php?action=profile;u=%d">bob%d</a></td></tr>`,
				900+i, link, title, 50+i, i, 3+i, 100+7*i, link, last, 60+i, i)
		},
	},
}

// fdLabels are the words a last post's cell is labelled with, by
// language, on a plain table whose cells are not named: the start and
// the last post each in a cell of its own, beside the title's.
var fdLabels = []struct{ lang, started, label, format string }{
	{"en", "Started", "Last post", "2 January 2006"},
	{"de", "Erstellt", "Letzter Beitrag", "02.01.2006"},
	{"fr", "Créé le", "Dernier message", "02/01/2006"},
	{"es", "Creado", "Último mensaje", "02/01/2006"},
	{"ja", "作成", "最終投稿", "2006-01-02"},
}

func fdPage(head, tail string, n int, row func(i int) (string, lineItem)) ([]byte, []lineItem) {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>General discussion</title></head><body><div id="wrap"><h1>General discussion</h1>`)
	sb.WriteString(head)
	var items []lineItem
	for i := 0; i < n; i++ {
		s, it := row(i)
		sb.WriteString(s)
		items = append(items, it)
	}
	sb.WriteString(tail)
	sb.WriteString(`<p class="copyright">Powered by a forum</p></div></body></html>`)
	return []byte(sb.String()), items
}

func TestForumDates(t *testing.T) {
	opts := annotate.Options{URL: d8Base}
	check := func(t *testing.T, name string, page []byte, want []lineItem) {
		writeStylePage(t, "forumdate-"+name+".html", page)
		checkItems(t, page, want, opts)
	}
	for _, l := range fdLayouts {
		for _, n := range []int{4, 12} {
			t.Run(fmt.Sprintf("%s/n=%d", l.name, n), func(t *testing.T) {
				page, want := fdPage(l.head, l.tail, n, func(i int) (string, lineItem) {
					title := oddTitle(i)
					link := fmt.Sprintf("/viewtopic.php?t=%d", 4000+i)
					date := fdStart(i)
					if l.lastOnly {
						date = fdLast(i)
					}
					return l.row(i, title, link, fdStart(i).Format(l.format), fdLast(i).Format(l.format)), lineItem{title: title, link: "https://www.example.org" + link, date: date}
				})
				check(t, fmt.Sprintf("%s-%d", l.name, n), page, want)
			})
		}
	}
	for _, lb := range fdLabels {
		for _, lastFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("labels/%s/lastfirst=%v", lb.lang, lastFirst), func(t *testing.T) {
				page, want := fdPage(`<table class="topics">`, `</table>`, 8, func(i int) (string, lineItem) {
					title := oddTitle(i)
					link := fmt.Sprintf("/topic/%d", 4000+i)
					started := fmt.Sprintf(`<td>%s: %s</td>`, lb.started, fdStart(i).Format(lb.format))
					last := fmt.Sprintf(`<td>%s: %s<br><a href="/u/%d">bob%d</a></td>`, lb.label, fdLast(i).Format(lb.format), 60+i, i)
					cells := started + fmt.Sprintf(`<td>%d</td>`, 3+i) + last
					if lastFirst {
						cells = last + fmt.Sprintf(`<td>%d</td>`, 3+i) + started
					}
					return fmt.Sprintf(`<tr><td><a href="%s">%s</a></td>%s</tr>`, link, title, cells), lineItem{title: title, link: "https://www.example.org" + link, date: fdStart(i)}
				})
				check(t, fmt.Sprintf("labels-%s-%v", lb.lang, lastFirst), page, want)
			})
		}
	}
	// A news list whose stories show when each was published and when
	// it was updated, the update first: the published date.
	t.Run("news/updated-first", func(t *testing.T) {
		page, want := fdPage(`<div class="stories">`, `</div>`, 6, func(i int) (string, lineItem) {
			title := oddTitle(i)
			link := fmt.Sprintf("/news/%d", 4000+i)
			return fmt.Sprintf(`<article class="story"><h2><a href="%s">%s</a></h2><p class="byline"><span>Updated %s</span> · <span>Published %s</span></p><p>%s, and more of it, as a story's first lines are.</p></article>`,
				link, title, fdLast(i).Format("2 January 2006"), fdStart(i).Format("2 January 2006"), title), lineItem{title: title, link: "https://www.example.org" + link, date: fdStart(i)}
		})
		check(t, "news-updated-first", page, want)
	})
}
