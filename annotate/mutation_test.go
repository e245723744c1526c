package annotate_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/annotate"
)

var (
	mutations = flag.Int("mutations", 700, "TestMutatedPages: how many mutants of the corpus pages each page-level fuzz target's check runs on")
	mutSeed   = flag.Uint64("mutseed", 1, "TestMutatedPages: the seed its mutants are made from")
	mutKeep   = flag.Bool("mutkeep", false, "TestMutatedPages: write each mutant a check fails on as a seed file under testdata/fuzz/<Target>/")
)

// mutFailures is how many failing mutants of one target TestMutatedPages
// reports before it leaves the target: past a few, one defect is likely
// being found again.
const mutFailures = 3

// pageTargets are the fuzz targets that read a whole page, each with the
// check it runs on one input.
func pageTargets() []annotate.PageTarget {
	return append([]annotate.PageTarget{
		{Name: "FuzzSuggest", Check: checkSuggest},
		{Name: "FuzzFollow", Check: checkFollow},
		{Name: "FuzzSelectors", Check: checkSelectors},
	}, annotate.PageTargets...)
}

// TestMutatedPages runs every page-level fuzz target's check on mutants
// of the corpus pages: each a page edited one to three times by deleting,
// repeating, moving or copying in a stretch of bytes, a token or a whole
// element, by cutting it short, or by dropping, adding or renaming a tag.
// The fuzzer, seeded with the same pages, runs these targets at about one
// input a second, so that a short run barely mutates them.
// The mutants are the same on every run (-mutseed chooses others);
// -mutations sets how many each check runs on; a failure names the mutant
// (its subtest is its number) and, with -mutkeep, is written as a seed of
// the target, so that the fuzz target runs it from then on.
func TestMutatedPages(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	var pages [][]byte
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
		names = append(names, filepath.Base(f))
	}
	if len(pages) == 0 {
		t.Fatal("no corpus pages in testdata/corpus")
	}
	for _, target := range pageTargets() {
		t.Run(target.Name, func(t *testing.T) {
			failed := 0
			for i := range *mutations {
				page, how := mutant(pages, names, *mutSeed, i)
				if t.Run(fmt.Sprint(i), func(t *testing.T) { runCheck(t, target.Check, page) }) {
					continue
				}
				failed++
				t.Errorf("%s fails on mutant %d of seed %d (%s); again: go test ./annotate -run 'TestMutatedPages/^%s$/^%d$' -mutseed %d -mutations %d",
					target.Name, i, *mutSeed, how, target.Name, i, *mutSeed, i+1)
				if *mutKeep {
					if err := keepSeed(target, fmt.Sprintf("mutant-%d-%d", *mutSeed, i), page); err != nil {
						t.Error(err)
					}
				}
				if failed == mutFailures {
					t.Errorf("%s: %d mutants fail; the rest are left", target.Name, failed)
					return
				}
			}
		})
	}
}

// runCheck runs check on page, failing t, rather than the whole test
// binary, when it panics.
func runCheck(t *testing.T, check func(*testing.T, []byte), page []byte) {
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	check(t, page)
}

// keepSeed writes page as a seed of target in Go's corpus file format,
// under testdata/fuzz/<Target>/name.
func keepSeed(target annotate.PageTarget, name string, page []byte) error {
	dir := filepath.Join("testdata", "fuzz", target.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	typ := "[]byte"
	if target.String {
		typ = "string"
	}
	body := fmt.Sprintf("go test fuzz v1\n%s(%q)\n", typ, page)
	return os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
}

// mutant makes mutant i of seed from one of pages, and says how: a
// generator of its own, seeded with (seed, i), picks the page and its
// edits, so that any mutant is made again alone.
func mutant(pages [][]byte, names []string, seed uint64, i int) (page []byte, how string) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	k := r.IntN(len(pages))
	page = slices.Clone(pages[k])
	steps := []string{names[k]}
	for range 1 + r.IntN(3) {
		op := mutationOps[r.IntN(len(mutationOps))]
		var did string
		page, did = op(r, page, pages)
		steps = append(steps, did)
	}
	return page, strings.Join(steps, "; ")
}

// mutationOps are the edits mutant makes: byte-level ones on a stretch
// of bytes, a token or a whole element (span), and tag-aware ones.
var mutationOps = []func(r *rand.Rand, page []byte, pages [][]byte) ([]byte, string){
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		from, to, what := span(r, page)
		return slices.Delete(page, from, to), "deleted " + what
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		from, to, what := span(r, page)
		return slices.Insert(page, to, slices.Clone(page[from:to])...), "repeated " + what
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		from, to, what := span(r, page)
		at, where := place(r, page)
		return slices.Insert(page, at, slices.Clone(page[from:to])...), fmt.Sprintf("copied %s to %s", what, where)
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		from, to, what := span(r, page)
		cut := slices.Clone(page[from:to])
		page = slices.Delete(page, from, to)
		at, where := place(r, page)
		return slices.Insert(page, at, cut...), fmt.Sprintf("moved %s to %s", what, where)
	},
	func(r *rand.Rand, page []byte, pages [][]byte) ([]byte, string) {
		other := pages[r.IntN(len(pages))]
		from, to, what := span(r, other)
		at, where := place(r, page)
		return slices.Insert(page, at, other[from:to]...), fmt.Sprintf("copied %s of another page to %s", what, where)
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		at := r.IntN(len(page) + 1)
		return page[:at], fmt.Sprintf("cut the page at %d", at)
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		tok, ok := pickToken(r, tokens(page), html.EndTagToken)
		if !ok {
			return page, "no end tag to drop"
		}
		what := "dropped " + tok.String(page)
		return slices.Delete(page, tok.from, tok.to), what
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		tok, ok := pickToken(r, tokens(page), html.StartTagToken)
		if !ok {
			return page, "no start tag to drop"
		}
		what := "dropped " + tok.String(page)
		return slices.Delete(page, tok.from, tok.to), what
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		toks := tokens(page)
		tok, ok := pickToken(r, toks, html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken)
		if !ok {
			return page, "no tag to add"
		}
		tag := slices.Clone(page[tok.from:tok.to])
		if r.IntN(2) == 0 { // the end tag of any element
			tag = []byte("</" + tok.name + ">")
		}
		at := toks[r.IntN(len(toks))].from
		return slices.Insert(page, at, tag...), fmt.Sprintf("added %s at %d", tag, at)
	},
	func(r *rand.Rand, page []byte, _ [][]byte) ([]byte, string) {
		toks := tokens(page)
		tok, ok := pickToken(r, toks, html.EndTagToken)
		other, ok2 := pickToken(r, toks, html.StartTagToken)
		if !ok || !ok2 {
			return page, "no end tag to rename"
		}
		what := fmt.Sprintf("made %s </%s>", tok.String(page), other.name)
		return slices.Replace(page, tok.from, tok.to, []byte("</"+other.name+">")...), what
	},
}

// token is one of the tokenizer's tokens: its bytes page[from:to].
type token struct {
	from, to int
	typ      html.TokenType
	name     string
}

// String says what the token is and where.
func (k token) String(page []byte) string {
	s := string(page[k.from:k.to])
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q at %d", s, k.from)
}

// tokens are page's tokens as the HTML tokenizer reads them, one after
// another to the page's end.
func tokens(page []byte) []token {
	var toks []token
	z := html.NewTokenizer(bytes.NewReader(page))
	at := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return toks
		}
		k := token{from: at, to: at + len(z.Raw()), typ: tt}
		if tt == html.StartTagToken || tt == html.EndTagToken || tt == html.SelfClosingTagToken {
			name, _ := z.TagName()
			k.name = string(name)
		}
		toks = append(toks, k)
		at = k.to
	}
}

// pickToken picks one of toks of the types given, trying a few at random
// before looking through them all.
func pickToken(r *rand.Rand, toks []token, types ...html.TokenType) (token, bool) {
	if len(toks) == 0 {
		return token{}, false
	}
	start := r.IntN(len(toks))
	for j := range toks {
		k := toks[(start+j)%len(toks)]
		if slices.Contains(types, k.typ) {
			return k, true
		}
	}
	return token{}, false
}

// span picks a stretch of page: a few bytes up to a kilobyte from
// anywhere, one token (a tag, a text, a comment), or a whole element from
// its start tag to the end tag that closes it, and says which.
func span(r *rand.Rand, page []byte) (from, to int, what string) {
	if len(page) == 0 {
		return 0, 0, "nothing"
	}
	switch r.IntN(3) {
	case 0:
		from = r.IntN(len(page))
		to = min(len(page), from+1+r.IntN(1<<r.IntN(11)))
		return from, to, fmt.Sprintf("bytes %d to %d", from, to)
	case 1:
		toks := tokens(page)
		if len(toks) == 0 {
			return 0, 0, "nothing"
		}
		k := toks[r.IntN(len(toks))]
		return k.from, k.to, k.String(page)
	}
	toks := tokens(page)
	start, ok := pickToken(r, toks, html.StartTagToken)
	if !ok {
		return 0, 0, "nothing"
	}
	k := slices.IndexFunc(toks, func(k token) bool { return k.from == start.from })
	depth := 0
	for _, e := range toks[k:] {
		if e.name != start.name {
			continue
		}
		switch e.typ {
		case html.StartTagToken:
			depth++
		case html.EndTagToken:
			depth--
		}
		if depth == 0 {
			return start.from, e.to, fmt.Sprintf("the element <%s> at %d to %d", start.name, start.from, e.to)
		}
	}
	return start.from, start.to, start.String(page)
}

// place picks where to put something in page: before a token, or at any
// byte.
func place(r *rand.Rand, page []byte) (at int, where string) {
	if r.IntN(2) == 0 {
		if toks := tokens(page); len(toks) > 0 {
			k := toks[r.IntN(len(toks))]
			return k.from, fmt.Sprintf("before %s", k.String(page))
		}
	}
	at = r.IntN(len(page) + 1)
	return at, fmt.Sprintf("byte %d", at)
}
