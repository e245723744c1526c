package annotate

import (
	"testing"
)

// FuzzPlain checks that plainSimple, whenever it reads a stretch of
// markup, gives what the tokenizer gives.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{
		`<a href="/x">Title &amp; more</a>`,
		`<h2 class="t"><a href=/p/1/>One</a></h2><p>Two<br>three</p>`,
		`a < b <br/> c <p a=/>d</p> <div/>e`,
		`<td>1<td>2</tr><li>x</li>`,
		`<a =x b='>' c="<">y</a>`,
		`<b>x</b><!-- c --><script>z</script>`,
		`&notit; &amp &#x41;<i>q</i>`,
		"<p\tclass=a\n>x\r\ny</p >",
		`<a href="x`,
		`<`,
		`</>x</ y>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainSimple(s)
		if !ok {
			return
		}
		if want := plainTokenized(s); got != want {
			t.Fatalf("plainSimple(%q) = %q, the tokenizer gives %q", s, got, want)
		}
	})
}

// TestPlainSimpleReads checks that the fast reading is taken for the
// markup it is meant for, and left for what it is not.
func TestPlainSimpleReads(t *testing.T) {
	for s, want := range map[string]bool{
		`<h2 class="entry-title"><a href="/2024/03/post/">Post &amp; more</a></h2>`: true,
		`<p>One<br>two</p><div id=x>three</div>`:                                    true,
		`a < b`:                                                                     true,
		`<br/>`:                                                                     false,
		`<b>x</b><!-- c -->`:                                                        false,
		`<span>x</span><script>y</script>`:                                          false,
		`<a href="x`:                                                                false,
		"x\x00y<b>":                                                                 false,
	} {
		got, ok := plainSimple(s)
		if ok != want {
			t.Errorf("plainSimple(%q): ok %v, want %v", s, ok, want)
		}
		if ok && got != plainTokenized(s) {
			t.Errorf("plainSimple(%q) = %q, the tokenizer gives %q", s, got, plainTokenized(s))
		}
	}
}
