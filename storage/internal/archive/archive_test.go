package archive

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

func TestValidDocument(t *testing.T) {
	good := &dynamo.Resource{URL: "http://x/", RSSID: "x", Channel: dynamo.Channel{Title: "T"},
		Items: []dynamo.Item{{ID: "a", Title: "é", Image: &dynamo.Image{URL: "http://x/i.png"}}}}
	if err := ValidDocument(good); err != nil {
		t.Fatalf("a valid document: %v", err)
	}
	for where, change := range map[string]func(*dynamo.Resource){
		"document":          func(d *dynamo.Resource) { d.Channel.Title = "a\x00b" },
		"item 1 image":      func(d *dynamo.Resource) { d.Items[0].Image = &dynamo.Image{Title: "\xff"} },
		"item 1":            func(d *dynamo.Resource) { d.Items[0].Text = "\xc3" },
		"channel extension": func(d *dynamo.Resource) { d.Channel.Extensions = []dynamo.Extension{{Value: "\x00"}} },
	} {
		d := *good
		d.Items = append([]dynamo.Item(nil), good.Items...)
		change(&d)
		if err := ValidDocument(&d); err == nil || !errors.Is(err, dynamo.ErrInvalid) || !strings.HasPrefix(err.Error(), where) {
			t.Errorf("%s: %v, want an ErrInvalid naming it", where, err)
		}
	}
}

func TestRevisionHashTellsContentApart(t *testing.T) {
	a := dynamo.Item{ID: "a", Title: "x", Link: "y"}
	b := dynamo.Item{ID: "a", Title: "xy"}
	if string(RevisionHash(&a)) == string(RevisionHash(&b)) || len(RevisionHash(&a)) != 16 {
		t.Error("fields run together hash alike")
	}
	c := a
	if string(RevisionHash(&a)) != string(RevisionHash(&c)) {
		t.Error("one content, two hashes")
	}
}

// summaries holds sources with summaries only.
type summaries struct {
	active, all []dynamo.Source
}

func (s summaries) EachSource(_ context.Context, collections bool, fn func(*dynamo.Source) error) error {
	list := s.active
	if collections {
		list = s.all
	}
	for i := range list {
		if err := fn(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

func TestStats(t *testing.T) {
	a := dynamo.Source{ID: "a", Summary: dynamo.SourceSummary{Versions: 2, Items: 10, Duplicates: 5, Polls: map[string]int{"changed": 2}}}
	b := dynamo.Source{ID: "b", Summary: dynamo.SourceSummary{Versions: 1, Items: 10, Polls: map[string]int{"changed": 1, "error": 4}}}
	st, err := Listing{Each: summaries{active: []dynamo.Source{a}, all: []dynamo.Source{a, b}}.EachSource}.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Sources != 1 || st.Versions != 3 || st.Items != 20 || st.Duplicates != 5 || st.DuplicateShare != 0.25 ||
		st.Polls["changed"] != 3 || st.Polls["error"] != 4 || len(st.PerSource) != 2 || st.PerSource[0].DuplicateShare != 0.5 {
		t.Errorf("stats %+v", st)
	}
	if st, _ := (Listing{Each: summaries{}.EachSource}).Stats(context.Background()); st.DuplicateShare != 0 || st.PerSource == nil {
		t.Errorf("stats of an empty store %+v", st)
	}
}

func TestLoadMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0003_c.sql": {Data: []byte("C")},
		"m/0001_a.sql": {Data: []byte("A")},
	}
	ms, err := LoadMigrations(fsys, "m", Migration[int]{Version: 2, Name: "0002_code", Code: func(context.Context, int) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "0001_a.sql,0002_code,0003_c.sql" || ms[0].SQL != "A" {
		t.Errorf("migrations %v", names)
	}
	if _, err := LoadMigrations(fsys, "m", Migration[int]{Version: 3, Name: "0003_again"}); err == nil {
		t.Error("two migrations of one version loaded")
	}
	fsys["m/x.sql"] = &fstest.MapFile{Data: []byte("X")}
	if _, err := LoadMigrations[int](fsys, "m"); err == nil {
		t.Error("a migration without a number loaded")
	}
	var ran []string
	apply := func(_ context.Context, m Migration[int]) (bool, error) {
		if m.Version == 3 {
			return false, errors.New("boom")
		}
		ran = append(ran, m.Name)
		return m.Version != 2, nil
	}
	applied, err := Migrate(context.Background(), apply, ms)
	if err == nil || !strings.Contains(err.Error(), "0003_c.sql: boom") || strings.Join(applied, ",") != "0001_a.sql" || len(ran) != 2 {
		t.Errorf("Migrate: %v, applied %v, ran %v", err, applied, ran)
	}
}

// TestFolded checks that a folded copy is kept exactly when lowering the
// ASCII letters (what the stores' SQL lower computes) does not fold the
// text.
func TestFolded(t *testing.T) {
	for _, tc := range []struct {
		in, copy string
		kept     bool
	}{
		{"plain news", "", false},
		{"Council BUDGET", "", false},
		{"café crème", "", false},
		{"STRASSE or Straße", "", false},
		{"École", "école", true},
		{"\u212A Kelvin", "k kelvin", true},
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ", true},
		{"bad \xff byte", "bad \uFFFD byte", true},
	} {
		copy, kept := Folded(tc.in)
		if copy != tc.copy || kept != tc.kept {
			t.Errorf("Folded(%q) = %q, %v; want %q, %v", tc.in, copy, kept, tc.copy, tc.kept)
		}
	}
}

// The digests stored revisions are found by: a change of RevisionHash's
// bytes would make every stored item look edited at its next poll.
func TestRevisionHashStable(t *testing.T) {
	for _, c := range []struct {
		item dynamo.Item
		want string
	}{
		{dynamo.Item{}, "26bbc868cb25a7557fad3b07cabe45e1"},
		{dynamo.Item{ID: "a", Title: "x", Link: "y", Description: "<p>d</p>", Text: "d"}, "88f2b37aaeafadcd098daf6c8592c5e1"},
		{dynamo.Item{ID: "b", Title: "é t", Image: &dynamo.Image{URL: "http://x/i.png"}, Extensions: []dynamo.Extension{},
			IDFromContent: true}, "e9bb7b359989bd53a2fcadd8c88a447f"},
		{dynamo.Item{ID: "c", Extensions: []dynamo.Extension{{Value: "v"}}, Enclosures: []dynamo.Enclosure{{URL: "http://x/a.mp3"}},
			Updated: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}, "ce6f74be7b0a8617224926bbd65b5764"},
		{dynamo.Item{ID: "d", Description: strings.Repeat("long ", 2000)}, "431937f3c11a0ff2b255069e3682b8f4"},
	} {
		if got := hex.EncodeToString(RevisionHash(&c.item)); got != c.want {
			t.Errorf("RevisionHash of item %q = %s, want %s", c.item.ID, got, c.want)
		}
	}
}
