package annotate

import (
	"html"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

// Which of a record's dates is the item's (docs/ANNOTATE.md, "Dates",
// "Which date"). A forum's topic row shows the topic's start ("by alice
// » 12 Mar 2024", beside the title) and its last post ("Last post by bob
// « 14 Mar 2024", in a cell of its own); a story may show when it was
// published and when it was last updated. The item's date is the one
// that does not move with each reply or edit, as phpBB's and Discourse's
// own feeds date a topic by its creation. Two rules, on the scores the
// vote of the date's place weighs (the place most records have a date at
// still wins: a page whose rows show only the last post's date keeps
// it):
//
//   - nearer the title: of a record's dates, those whose common ancestor
//     with the title is deepest (the title's cell, its block) score more
//     than those farther off (another cell of the row);
//   - not a latest-activity date: a date plainly labelled as the last
//     post, reply or update (an element named so, "structItem-latestDate",
//     "lastpost", "bbp-topic-freshness", "updated"; or the words before
//     it in its block, "Last post by bob «", "Letzter Beitrag",
//     "Dernier message", "Último mensaje", "最終投稿", "Updated:") scores
//     a quarter of what it would.

// nearTitleBonus is what a date nearest the title adds to its score;
// latestFactor what a latest-activity date's score is multiplied by.
const (
	nearTitleBonus = 0.5
	latestFactor   = 0.25
)

// latestHints are words in class names or ids that name an element as
// the last post's, the last reply's or the last update's.
var latestHints = &hints{1 << 6, []string{"latest", "lastpost", "last-post", "last_post", "lastreply", "last-reply", "last_reply", "lastactivity", "last-activity", "last_activity", "lastupdate", "last-update", "last_update", "freshness", "updated", "modified", "lastmod"}}

// latestLabels are the words, lower-case, that label a date as the last
// post's, reply's or update's, in the languages forums are commonly
// written in.
var latestLabels = []string{
	"last post", "latest post", "last reply", "latest reply", "last message", "last activity", "last updated", "last update", "updated", "modified", "latest:",
	"letzter beitrag", "letzte antwort", "aktualisiert", "geändert",
	"dernier message", "dernière réponse", "derniere reponse", "mis à jour", "modifié",
	"último mensaje", "ultimo mensaje", "última respuesta", "ultima respuesta", "último post", "ultimo post", "actualizado", "modificado",
	"ultimo messaggio", "ultima risposta", "aggiornato", "modificato",
	"laatste bericht", "laatste reactie", "bijgewerkt", "gewijzigd",
	"ostatni post", "ostatnia odpowiedź", "zaktualizowano",
	"senaste inlägg", "senaste svar", "uppdaterad",
	"viimeisin viesti", "son mesaj", "последнее сообщение", "последний ответ", "обновлено",
	"最終投稿", "最新の投稿", "最終更新", "更新日", "最后回复", "最後回覆", "最新回复", "最后发表", "最後發表", "마지막 글", "최근 글",
}

// rankDates adjusts the scores of the date candidates dateCandidates
// found in record r, cands (in document order), by the two rules above.
func (ch *chooser) rankDates(cands []scored, r record, title *node) {
	if len(cands) == 0 {
		return
	}
	top := r.nodes[0].depth
	// Nearer the title: only when the record's dates are not all as
	// near (a record with one date, or all in one block, is as before).
	if title != nil && len(cands) > 1 {
		depths := make([]int32, len(cands))
		deepest, shallowest := int32(-1), int32(1<<30)
		for i := range cands {
			depths[i] = commonDepth(cands[i].n, title)
			deepest, shallowest = max(deepest, depths[i]), min(shallowest, depths[i])
		}
		if deepest > shallowest && deepest >= top {
			for i := range cands {
				if depths[i] == deepest {
					cands[i].score += nearTitleBonus
				}
			}
		}
	}
	for i := range cands {
		// The words looked at start after the record's previous date at
		// the same place ("Updated 14 March · Published 12 March"): not
		// after one at another place, which a record's dates looked for
		// at one place only (choose, past the records voted on) would
		// not know of.
		from := r.start()
		for k := i - 1; k >= 0; k-- {
			if cands[k].key == cands[i].key {
				from = cands[k].end
				break
			}
		}
		if ch.latestDate(cands[i].n, cands[i].end, from, top, title) {
			cands[i].score *= latestFactor
		}
	}
}

// commonDepth is the depth of the deepest node holding both a and b.
func commonDepth(a, b *node) int32 {
	for a != nil && b != nil && a != b {
		if a.depth >= b.depth {
			a = a.parent()
		} else {
			b = b.parent()
		}
	}
	if a == nil || b == nil {
		return -1
	}
	return a.depth
}

// latestDate reports whether the date ending at end in n is labelled as
// a latest activity's: n, or one of its ancestors below the record's top
// nodes (at depth top) and not holding the title, is named so
// (latestHints), or the words of the outermost of them up to the date's
// end, after from (the end of the record's previous date at its place), say so
// (latestLabels): the date's own text may hold its label, "Last post:
// 14 March 2024" being read as a date whole.
func (ch *chooser) latestDate(n *node, end, from int, top int32, title *node) bool {
	block := n
	for a, k := n, 0; a != nil && a.depth > top && k < 4; a, k = a.parent(), k+1 {
		if title != nil && isAncestor(a, title) {
			break
		}
		if !a.isText() && hasHint(a, latestHints) {
			return true
		}
		block = a
	}
	lo := max(int(block.start), from, end-300)
	if lo >= end {
		return false
	}
	prefix := strings.ToLower(html.UnescapeString(ch.p.decode(stripTags(ch.p.text[lo:end]))))
	for _, w := range latestLabels {
		if strings.Contains(prefix, w) {
			return true
		}
	}
	return false
}

// stripTags returns s without its tags (a tag cut at s's start, its
// tail, is left out too), each replaced by a space.
func stripTags(s string) string {
	if i, j := strings.IndexByte(s, '>'), strings.IndexByte(s, '<'); i >= 0 && (j < 0 || i < j) {
		s = s[i+1:]
	}
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			in = true
			b.WriteByte(' ')
		case c == '>' && in:
			in = false
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// machineDateRead reports whether the wrapper reads the machine date m
// of element n from an annotation holding n (wrapper.ShownDayAgrees):
// not when n's text is a whole date of another day, which the wrapper
// keeps with a warning ("the text … and the <time datetime> it holds are
// different days"). Such an element is no date candidate of its own; its
// text may be one.
func (ch *chooser) machineDateRead(n *node, m time.Time) bool {
	return wrapper.ShownDayAgrees(ch.p.plain(ch.p.text[n.open:n.close]), m, ch.loc)
}
