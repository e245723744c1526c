// Package archive is what the two stores (storage/postgres and
// storage/sqlite) share that is not their own SQL: the checks a document
// passes before it is stored, the hash that names an item revision, the
// one format of a version's packed revision list, the steps of storing a
// new version (WriteVersion, which calls each store's SQL through
// VersionTx), how a row of each table the stores read becomes a domain
// value (ScanSource, ScanItem, ScanSubscription…, with the column lists
// they read, which are the same text in both dialects) and which values a
// write binds in which order (NewSourceArgs, ConfigArgs…), the statistics
// computed from the sources' summaries, and the migration runner. Each
// store keeps its statements, its transactions and how its driver binds
// what differs between the two (times, placeholders, arrays); the
// conformance suite (storage/storetest) holds both to one behaviour.
package archive

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/ascii"
)

// PollLogLimit is how many polls the log keeps per source: enough for a
// chart of several days of frequent polling, bounded so that the log does
// not grow with time. RecordPoll trims the log to it (TrimPollLog).
const PollLogLimit = 500

// pollLogTrimEvery is how many polls, on average, a source's log is
// trimmed once in (TrimPollLog).
const pollLogTrimEvery = 32

// TrimPollLog says whether RecordPoll trims the source's log back to
// PollLogLimit this time: for one poll in pollLogTrimEvery, chosen at
// random. A trim reads the source's newest PollLogLimit entries to find
// the older ones, which cost PostgreSQL more than the rest of a 304 poll;
// between trims the log holds a few dozen entries more (pollLogTrimEvery
// on average, more with a chance that halves every 22 polls), which
// readers never see: they read at most PollLogLimit entries, newest
// first.
func TrimPollLog() bool { return rand.IntN(pollLogTrimEvery) == 0 }

// ValidDocument refuses text that cannot be stored faithfully: invalid
// UTF-8, which JSON (channels, images, extensions) would replace, and NUL,
// which XML cannot carry and PostgreSQL refuses. Refusing, with an error
// naming where the text is, keeps both stores alike and every stored
// version rebuildable to its hash. The error wraps dynamo.ErrInvalid.
func ValidDocument(doc *dynamo.Resource) error {
	var errs []error
	check := func(where string, ss ...string) {
		for _, s := range ss {
			switch {
			case !utf8.ValidString(s):
				errs = append(errs, fmt.Errorf("%s is not valid UTF-8: %w", where, dynamo.ErrInvalid))
				return
			case strings.IndexByte(s, 0) >= 0:
				errs = append(errs, fmt.Errorf("%s contains a NUL character: %w", where, dynamo.ErrInvalid))
				return
			}
		}
	}
	image := func(where string, img *dynamo.Image) {
		if img != nil {
			check(where, img.URL, img.Link, img.Title)
		}
	}
	enclosures := func(where string, encs []dynamo.Enclosure) {
		for _, e := range encs {
			check(where, e.URL, e.Type)
		}
	}
	extensions := func(where string, exts []dynamo.Extension) {
		for _, e := range exts {
			check(where, e.URI, e.Prefix, e.LocalName, e.Value)
		}
	}
	check("document", doc.URL, doc.RSSID, doc.Channel.Title, doc.Channel.Link, doc.Channel.Description)
	image("channel image", doc.Channel.Image)
	extensions("channel extension", doc.Channel.Extensions)
	for i, it := range doc.Items {
		where := fmt.Sprintf("item %d", i+1)
		check(where, it.ID, it.Title, it.Link, it.Description, it.Text)
		image(where+" image", it.Image)
		extensions(where+" extension", it.Extensions)
		enclosures(where+" enclosure", it.Enclosures)
	}
	return errors.Join(errs...)
}

// Channel encodes a version's channel as the stores keep it, once per
// source and content in their channels table: the JSON and the key it is
// found by, the first 16 bytes of the JSON's SHA-256 (PostgreSQL's
// migration 0014 computes the same in SQL for the channels stored before).
func Channel(ch dynamo.Channel) (body string, key []byte, err error) {
	b, err := json.Marshal(ch)
	if err != nil {
		return "", nil, fmt.Errorf("encode channel: %w", err)
	}
	sum := sha256.Sum256(b)
	return string(b), sum[:16], nil
}

// RevisionHash digests everything an item revision stores, so that an item
// whose content returns to an earlier state reuses that revision. The
// fields, each length-prefixed, are hashed from one buffer on the stack
// when they fit in it (a store hashes every item of every changed page).
func RevisionHash(it *dynamo.Item) []byte {
	var room [4096]byte
	b := room[:0]
	for _, s := range [...]string{it.ID, it.Title, it.Link, it.Description, it.Text} {
		b = appendField(b, s)
	}
	// json.Marshal of a nil pointer or slice is null; plain strings always
	// encode.
	img, ext := []byte("null"), []byte("null")
	if it.Image != nil {
		img, _ = json.Marshal(it.Image)
	}
	if it.Extensions != nil {
		ext, _ = json.Marshal(it.Extensions)
	}
	media, _ := MediaJSON(it)
	b = appendField(b, string(img))
	b = appendField(b, string(ext))
	b = appendField(b, media)
	b = appendField(b, strconv.FormatBool(it.IDFromContent))
	sum := sha256.Sum256(b)
	return sum[:16]
}

// appendField appends s after its length, so that no two different
// sequences of fields hash alike.
func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// media is what an item revision's media column holds: its enclosures and
// its updated time, the XMLData fields that came after the first columns.
type media struct {
	Enclosures []dynamo.Enclosure `json:"enclosures,omitempty"`
	Updated    *time.Time         `json:"updated,omitempty"`
}

// MediaJSON encodes an item's enclosures and updated time for the media
// column, or returns false when it has neither (SQL NULL).
func MediaJSON(it *dynamo.Item) (string, bool) {
	if len(it.Enclosures) == 0 && it.Updated.IsZero() {
		return "", false
	}
	m := media{Enclosures: it.Enclosures}
	if !it.Updated.IsZero() {
		u := it.Updated
		m.Updated = &u
	}
	b, _ := json.Marshal(m) // strings, numbers and a time always encode
	return string(b), true
}

// ReadMedia sets an item's enclosures and updated time from the media
// column (nil: neither).
func ReadMedia(data []byte, it *dynamo.Item) error {
	if data == nil {
		return nil
	}
	var m media
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("item %s media: %w", it.ID, err)
	}
	it.Enclosures = m.Enclosures
	if m.Updated != nil {
		it.Updated = *m.Updated
	}
	return nil
}

// Folded returns dynamo.FoldCase(s) and true when the stores must keep that
// folded copy beside s, or "" and false when lowering s's ASCII letters
// gives it already. Conditions match coalesce(copy, lower(field)), and
// lower is ASCII-only in both stores (SQLite's built-in lower, PostgreSQL's
// under the "C" collation), so text is stored once unless it has non-ASCII
// letters that fold: docs/STORAGE.md "Folded copies".
func Folded(s string) (string, bool) {
	if f := dynamo.FoldCase(s); f != ascii.Lower(s) {
		return f, true
	}
	return "", false
}

// JSON encodes an item's image or extensions, or returns false when absent
// (SQL NULL).
func JSON(present bool, v any) (string, bool) {
	if !present {
		return "", false
	}
	b, _ := json.Marshal(v) // images and extensions are plain strings
	return string(b), true
}

// Set is keys as a set.
func Set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// Listing is the part of dynamo.SourceStore and dynamo.ArchiveStore both
// stores derive from their EachSource, which Each is: each store embeds
// it.
type Listing struct {
	Each func(ctx context.Context, collections bool, fn func(*dynamo.Source) error) error
}

// Sources lists the active sources, ordered by id.
func (l Listing) Sources(ctx context.Context) ([]dynamo.Source, error) { return l.list(ctx, false) }

// Collections lists the sources whose archives are served: the active ones
// and the removed ones whose archive was kept (a removed source without
// versions is deleted outright).
func (l Listing) Collections(ctx context.Context) ([]dynamo.Source, error) { return l.list(ctx, true) }

func (l Listing) list(ctx context.Context, collections bool) ([]dynamo.Source, error) {
	var list []dynamo.Source
	err := l.Each(ctx, collections, func(src *dynamo.Source) error {
		list = append(list, *src)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// Stats counts the store from its sources' summaries, walking the sources
// rather than listing them.
func (l Listing) Stats(ctx context.Context) (dynamo.Stats, error) {
	st := dynamo.Stats{Polls: map[string]int{}, PerSource: []dynamo.SourceStats{}}
	err := l.Each(ctx, false, func(*dynamo.Source) error {
		st.Sources++
		return nil
	})
	if err == nil {
		err = l.Each(ctx, true, func(src *dynamo.Source) error {
			add(&st, src)
			return nil
		})
	}
	if err != nil {
		return dynamo.Stats{}, fmt.Errorf("stats: %w", err)
	}
	st.DuplicateShare = share(st.Duplicates, st.Items)
	return st, nil
}

// add counts one collection's summary into st.
func add(st *dynamo.Stats, src *dynamo.Source) {
	sum := src.Summary
	ss := dynamo.SourceStats{ID: src.ID, Versions: sum.Versions, Items: sum.Items,
		Duplicates: sum.Duplicates, DuplicateShare: share(sum.Duplicates, sum.Items), Polls: map[string]int{}}
	for status, n := range sum.Polls {
		ss.Polls[status] = n
		st.Polls[status] += n
	}
	st.Versions += sum.Versions
	st.Items += sum.Items
	st.Duplicates += sum.Duplicates
	st.PerSource = append(st.PerSource, ss)
}

func share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// WarningsText writes a poll's warnings as the stores keep them, one JSON
// array; "" for none.
func WarningsText(ws []dynamo.Warning) string {
	if len(ws) == 0 {
		return ""
	}
	b, _ := json.Marshal(ws) // lines and messages always marshal
	return string(b)
}

// ParseWarnings reads what WarningsText wrote.
func ParseWarnings(text string) ([]dynamo.Warning, error) {
	if text == "" {
		return nil, nil
	}
	var ws []dynamo.Warning
	if err := json.Unmarshal([]byte(text), &ws); err != nil {
		return nil, fmt.Errorf("poll warnings: %w", err)
	}
	return ws, nil
}
