package annotate

import (
	"hash/maphash"
	"testing"
)

// FuzzNumberedLook checks that a look copied from an element whose id and
// class differ in their digits alone is the look made afresh: every part
// but the id and the class is shared, so none may read a digit's value.
func FuzzNumberedLook(f *testing.F) {
	for _, s := range [][3]string{
		{"article", "", "post post-12 type-post"}, {"div", "post-412", "entry"}, {"li", "nav3", "menu-item menu-item-77"},
		{"h2", "", "title2"}, {"div", "Main-1", "Content 9menu x_nav7"}, {"span", "1", "2 3"}, {"p", "\xff1", "\xc3\xa91"},
	} {
		f.Add(s[0], s[1], s[2], uint8(3))
	}
	seed := maphash.MakeSeed()
	f.Fuzz(func(t *testing.T, tag, id, class string, shift uint8) {
		renumber := func(s string) string {
			b := []byte(s)
			for i, c := range b {
				if isDigit(c) {
					b[i] = '0' + (c-'0'+shift)%10
				}
			}
			return string(b)
		}
		id2, class2 := renumber(id), renumber(class)
		shared := &treeBuilder{seed: seed}
		shared.lookOf(tag, []byte(id), []byte(class))
		got := shared.lookOf(tag, []byte(id2), []byte(class2))
		want := (&treeBuilder{seed: seed}).lookOf(tag, []byte(id2), []byte(class2))
		gotStep, wantStep := got.stepName(), want.stepName()
		if got.tag != want.tag || got.id != want.id || got.class != want.class || got.key != want.key || gotStep != wantStep ||
			got.nav != want.nav || got.mainish != want.mainish || got.raw != want.raw || got.hide != want.hide ||
			got.skip != want.skip || got.void != want.void || got.endsP != want.endsP || len(got.classes) != len(want.classes) {
			t.Fatalf("%s#%q.%q after #%q.%q: look %+v, made afresh %+v", tag, id2, class2, id, class, *got, *want)
		}
		for i := range got.classes {
			if got.classes[i] != want.classes[i] {
				t.Fatalf("%s#%q.%q: classes %q, made afresh %q", tag, id2, class2, got.classes, want.classes)
			}
		}
	})
}
