package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// FuzzConditionSQL holds the SQL that conditions compile to to
// dynamo.Match, the reference semantics, on arbitrary text: Unicode, case
// pairs whose folding changes their length, invalid UTF-8, NUL bytes and
// characters that are special in SQL patterns.
func FuzzConditionSQL(f *testing.F) {
	f.Add("Straße", "http://127.0.0.1/A", "ÄRGER", "strasse", "ärger", uint8(0))
	f.Add("100% sicher", "a_b", `back\slash`, "%", "_", uint8(7))
	f.Add("İstanbul", "\x80\xff", "a\x00b", "i̇", "\x00", uint8(5))
	f.Add("ΣΊΣΥΦΟΣ", "K", "ǅemal", "σ", "ǆ", uint8(2))
	f.Add("", "", "", "", "", uint8(3))
	s := open(f)
	f.Fuzz(func(t *testing.T, title, link, text, v1, v2 string, shape uint8) {
		fields := []dynamo.Field{dynamo.FieldTitle, dynamo.FieldLink, dynamo.FieldDescription}
		conds := []dynamo.Condition{
			{Field: fields[shape%3], Value: v1},
			{Field: fields[shape/3%3], Value: v2, Or: shape&0x10 != 0},
		}
		it := &dynamo.Item{Title: title, Link: link, Text: text}
		for n := 1; n <= len(conds); n++ {
			where, args, err := conditionSQL(conds[:n])
			if err != nil {
				t.Fatalf("conditionSQL: %v", err)
			}
			row := slices.Concat(args, []any{title, folded(title), link, folded(link), text, folded(text)})
			var got bool
			err = s.r.QueryRowContext(context.Background(), `SELECT `+where+` FROM (SELECT ? AS title, ? AS title_f,
				? AS link, ? AS link_f, ? AS plain_text, ? AS text_f) AS r`, row...).Scan(&got)
			if err != nil {
				t.Fatalf("evaluate %s: %v", where, err)
			}
			if want := dynamo.Match(conds[:n], it); got != want {
				t.Errorf("conditions %+v on %+v: SQL says %v, Match says %v", conds[:n], it, got, want)
			}
		}
	})
}

// FuzzUnpackRevs decodes arbitrary bytes as a stored revision list: never a
// panic, and whatever decodes survives packing again.
func FuzzUnpackRevs(f *testing.F) {
	f.Add(archive.PackRevs([]int64{1, 2, 3, 10, 4, 4}))
	f.Add([]byte{0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		revs, err := archive.UnpackRevs(b)
		if err != nil {
			return
		}
		again, err := archive.UnpackRevs(archive.PackRevs(revs))
		if err != nil || !slices.Equal(again, revs) {
			t.Errorf("revisions %v repacked to %v (%v)", revs, again, err)
		}
		if _, err := unpackIndexes(b); err != nil {
			t.Errorf("bytes that decode as revisions fail as indexes: %v", err)
		}
	})
}
