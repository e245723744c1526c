package annotate_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Dense pages: many small items up to the wrapper's 10 MiB, the pages
// whose annotations weigh most beside them (issue 19).

var (
	denseWords = strings.Fields("build fails kernel update wifi mirror package version release notes patch review config loader memory leak regression docs typo arm64 gcc clang test flaky timeout socket cache")
	denseNames = []string{"Anna Berg", "Tom Hale", "Mia Chen", "Ola Nordmann", "Raj Iyer", "Sven Olsen", "Li Wei", "Zoe Park"}
)

// denseArchive is a mailing list's archive of about size bytes, by
// thread: a line of links to the other orders, then an item per message
// (a link whose text is the subject, often with a number in it, and the
// author), without dates.
func denseArchive(size int) []byte {
	r := rand.New(rand.NewPCG(19, 3))
	var sb strings.Builder
	sb.WriteString(`<html><head><title>dev archive by thread</title></head><body><h1>2024-March Archives by thread</h1>` +
		`<ul><li><b>Messages sorted by:</b> <a href="subject.html#start">[ subject ]</a> <a href="author.html#start">[ author ]</a> <a href="date.html#start">[ date ]</a></li></ul>` + "\n<ul>\n")
	for i := 0; sb.Len() < size-300; i++ {
		var words []string
		for k := 2 + r.IntN(5); k > 0; k-- {
			words = append(words, denseWords[r.IntN(len(denseWords))])
		}
		prefix := []string{"", "Re: ", fmt.Sprintf("[PATCH %d/%d] ", 1+r.IntN(9), 1+r.IntN(9)), fmt.Sprintf("Re: [PATCH v%d] ", 2+r.IntN(3))}[r.IntN(4)]
		fmt.Fprintf(&sb, "<li><a href=\"msg%06d.html\">%s%s in %d.%d</a>\n<i>%s &lt;%s@lists.example.org&gt;</i></li>\n",
			i, prefix, strings.Join(words, " "), 1+r.IntN(3), r.IntN(21), denseNames[r.IntN(len(denseNames))], denseWords[r.IntN(len(denseWords))])
	}
	sb.WriteString("</ul></body></html>\n")
	return []byte(sb.String())
}

// BenchmarkDense measures the suggester beside the wrapper on the dense
// archive page: per-item work counts most there.
func BenchmarkDense(b *testing.B) {
	benchSuggestBesideWrap(b, "archive", denseArchive(10<<20))
}

// denseDated is a register of notices of about size bytes: a paragraph
// per notice, with its date in bold, a link whose text is the title and a
// line of text, about 200 bytes each.
func denseDated(size int) []byte {
	r := rand.New(rand.NewPCG(19, 2))
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Notices</title></head><body><h1>Public notices</h1><div id="notices">` + "\n")
	for i := 0; sb.Len() < size-300; i++ {
		var words []string
		for k := 3 + r.IntN(4); k > 0; k-- {
			words = append(words, denseWords[r.IntN(len(denseWords))])
		}
		fmt.Fprintf(&sb, "<p><b>%d %s %d</b> <a href=\"/notices/%d.html\">Notice %d: %s</a><br>\nFiled by %s for the %s office; objections in writing within 21 days, to the clerk of the council.</p>\n",
			1+r.IntN(28), months[r.IntN(12)], 2015+r.IntN(10), i, i, strings.Join(words, " "), denseNames[r.IntN(len(denseNames))], denseWords[r.IntN(len(denseWords))])
	}
	sb.WriteString("</div></body></html>\n")
	return []byte(sb.String())
}
