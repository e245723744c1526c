package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
)

// pollLogLimit is how many polls the log keeps per source: enough for a
// chart of several days of frequent polling, bounded so that the log does
// not grow with time.
const pollLogLimit = 500

// RecordPoll applies one poll in one transaction. Locking the source's row
// first serializes every writer of one source, so two writers storing the
// same content cannot both create a version: the second sees the first's
// hash (and, having lost the lease, is refused before that).
func (s *Store) RecordPoll(ctx context.Context, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	var result dynamo.PollResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var (
			owner, lastHash string
			removed         bool
			lastSeq         int
		)
		err := tx.QueryRow(ctx, "SELECT lease_owner, removed, last_seq, last_hash FROM sources WHERE id = $1 FOR UPDATE",
			rec.SourceID).Scan(&owner, &removed, &lastSeq, &lastHash)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && (removed || owner != rec.Owner) {
			return dynamo.ErrLeaseLost
		}
		if err != nil {
			return err
		}
		at := stamp(rec.At)
		result = dynamo.PollResult{}
		if doc := rec.Document; doc != nil {
			result.Seen = len(doc.Items)
			if hash := dynamo.ContentHash(doc); lastSeq == 0 || hash != lastHash {
				w := &versionWriter{tx: tx, source: rec.SourceID, seq: lastSeq + 1, at: at, hash: hash, doc: doc}
				if result.Version, result.NewItems, err = w.write(ctx); err != nil {
					return err
				}
			}
		}
		return writeUpdate(ctx, tx, rec, at, result, decide(result))
	})
	if err != nil {
		return dynamo.PollResult{}, fmt.Errorf("record poll of %s: %w", rec.SourceID, err)
	}
	return result, nil
}

// writeUpdate writes what the poller decided and releases the lease, in one
// round trip.
func writeUpdate(ctx context.Context, tx pgx.Tx, rec dynamo.PollRecord, at time.Time, result dynamo.PollResult, upd dynamo.PollUpdate) error {
	st := upd.State
	status := string(upd.Log.Status)
	var versionAt any
	if result.Version != nil {
		versionAt = at
	}
	b := &pgx.Batch{}
	if result.Version == nil && len(upd.Duplicates) == 0 {
		// A poll that stored nothing new writes only soft state: the
		// schedule, validators, counters and the log. Its commit need not
		// wait for the disk; should the server crash before the WAL is
		// flushed, the source is merely polled again. Versions and
		// duplicates keep the durable commit.
		b.Queue("SET LOCAL synchronous_commit = off")
	}
	b.Queue(`UPDATE sources SET etag = $2, last_modified = $3, body_hash = $4, last_poll = $5, next_poll = $6,
			last_change = $7, last_status = $8, errors = $9, last_error = $10, schedule = $11,
			lease_owner = '', lease_expires = '0001-01-01 00:00:00+00',
			last_version_at = coalesce($12, last_version_at),
			poll_counts = jsonb_set(poll_counts, ARRAY[$13::text], to_jsonb(coalesce((poll_counts->>$13::text)::int, 0) + 1))
		WHERE id = $1`,
		rec.SourceID, st.ETag, st.LastModified, st.BodyHash, stamp(st.LastPoll), stamp(st.NextPoll),
		stamp(st.LastChange), string(st.LastStatus), st.Errors, st.LastError, scheduleArg(st.Schedule),
		versionAt, status)
	logAt := upd.Log.At
	if logAt.IsZero() {
		logAt = at
	}
	b.Queue(`INSERT INTO poll_log (source_id, at, status, duration_ns, new_items, error) VALUES ($1, $2, $3, $4, $5, $6)`,
		rec.SourceID, stamp(logAt), status, int64(upd.Log.Duration), upd.Log.NewItems, upd.Log.Error)
	b.Queue(`DELETE FROM poll_log WHERE id IN (SELECT id FROM poll_log WHERE source_id = $1
		ORDER BY at DESC, id DESC OFFSET $2)`, rec.SourceID, pollLogLimit)
	if len(upd.Duplicates) > 0 {
		queueDuplicates(b, upd.Duplicates)
	}
	if result.Version != nil || len(upd.Duplicates) > 0 {
		b.Queue("SELECT pg_notify($1, $2)", ChangeChannel, rec.SourceID)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write poll state: %w", err)
	}
	return nil
}

// queueDuplicates records duplicates whose items both exist; a primary
// purged since the detector saw it is skipped.
func queueDuplicates(b *pgx.Batch, dups []dynamo.Duplicate) {
	var src, item, psrc, pitem []string
	var dist []int32
	for _, d := range dups {
		src, item = append(src, d.Item.SourceID), append(item, d.Item.ItemID)
		psrc, pitem = append(psrc, d.Primary.SourceID), append(pitem, d.Primary.ItemID)
		dist = append(dist, int32(d.Distance))
	}
	b.Queue(`INSERT INTO duplicates (source_id, item_id, primary_source, primary_item, distance)
		SELECT d.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) AS d(s, i, ps, pi, dist)
		WHERE EXISTS (SELECT 1 FROM items WHERE source_id = d.s AND item_id = d.i)
			AND EXISTS (SELECT 1 FROM items WHERE source_id = d.ps AND item_id = d.pi)
		ON CONFLICT (source_id, item_id) DO UPDATE SET primary_source = excluded.primary_source,
			primary_item = excluded.primary_item, distance = excluded.distance`,
		src, item, psrc, pitem, dist)
}

// versionWriter stores one new version of a source.
type versionWriter struct {
	tx     pgx.Tx
	source string
	seq    int
	at     time.Time
	hash   string
	doc    *dynamo.Resource

	keys  []string            // the item key of each position
	known map[string]knownRow // items stored before, by key
	revs  []int64             // the revision of each position

	prevKeys   []string  // the items of the previous version
	prevSeenAt time.Time // when the previous version was seen
}

// knownRow is what the items table says about an item already stored.
type knownRow struct {
	firstSeen  time.Time
	firstPos   int
	firstIndex int
	latestRev  int64
}

func (w *versionWriter) write(ctx context.Context) (*dynamo.Version, []dynamo.ArchivedItem, error) {
	if err := validDocument(w.doc); err != nil {
		return nil, nil, err
	}
	steps := []func(context.Context) error{w.resolveKeys, w.storeRevisions, w.loadPrevious, w.storeItems}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, nil, err
		}
	}
	v, err := w.storeVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	return v, w.newItems(), nil
}

// resolveKeys finds each item's key: its id when the source has an item of
// that id; else, for an item whose id comes from its content, an earlier
// item with the same title (its description was edited); else its own id,
// as a new item.
func (w *versionWriter) resolveKeys(ctx context.Context) error {
	items := w.doc.Items
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	if err := w.loadKnown(ctx, ids); err != nil {
		return err
	}
	stored := func(key string) bool { _, ok := w.known[key]; return ok }
	byTitle, err := w.itemsByTitle(ctx, dynamo.TitlesToMatch(items, stored))
	if err != nil {
		return err
	}
	var matched []string
	w.keys, matched = dynamo.MatchStoredItems(items, stored, byTitle)
	return w.loadKnown(ctx, matched)
}

// loadKnown adds the stored items among keys to w.known.
func (w *versionWriter) loadKnown(ctx context.Context, keys []string) error {
	if w.known == nil {
		w.known = map[string]knownRow{}
	}
	if len(keys) == 0 {
		return nil
	}
	rows, err := w.tx.Query(ctx, `SELECT item_id, first_seen, first_pos, first_index, latest_rev FROM items
		WHERE source_id = $1 AND item_id = ANY($2)`, w.source, keys)
	if err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	var key string
	var k knownRow
	_, err = pgx.ForEachRow(rows, []any{&key, &k.firstSeen, &k.firstPos, &k.firstIndex, &k.latestRev}, func() error {
		w.known[key] = k
		return nil
	})
	if err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	return nil
}

// itemsByTitle returns the keys of the source's items that ever had each
// title, most recently revised first.
func (w *versionWriter) itemsByTitle(ctx context.Context, titles []string) (map[string][]string, error) {
	found := map[string][]string{}
	if len(titles) == 0 {
		return found, nil
	}
	rows, err := w.tx.Query(ctx, `SELECT t.title, r.item_key, max(r.rev_id) AS rev
		FROM unnest($2::text[]) AS t(title)
		JOIN item_revisions r ON r.source_id = $1 AND md5(r.title) = md5(t.title) AND r.title = t.title
		GROUP BY t.title, r.item_key ORDER BY rev DESC`, w.source, titles)
	if err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	var title, key string
	var rev int64
	_, err = pgx.ForEachRow(rows, []any{&title, &key, &rev}, func() error {
		found[title] = append(found[title], key)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	return found, nil
}

// revision is one item content to store, keyed within its item by rhash.
type revision struct {
	key        string
	rhash      []byte
	item       *dynamo.Item
	firstSeen  time.Time
	firstPos   int
	firstIndex int
	latest     bool // the revision at its item's first position, which the archive shows
}

// storeRevisions finds or inserts the revision of each position.
func (w *versionWriter) storeRevisions(ctx context.Context) error {
	items := w.doc.Items
	hashes := make([][]byte, len(items))
	for i := range items {
		hashes[i] = revisionHash(&items[i])
	}
	ids, err := w.existingRevisions(ctx, hashes)
	if err != nil {
		return err
	}
	var missing []revision
	firstPos := map[string]int{}
	for i := range items {
		key := w.keys[i]
		if _, ok := firstPos[key]; !ok {
			firstPos[key] = i
		}
		rk := key + "\x00" + string(hashes[i])
		if _, ok := ids[rk]; ok {
			continue
		}
		ids[rk] = 0 // queued
		r := revision{key: key, rhash: hashes[i], item: &items[i], firstSeen: w.at, firstPos: firstPos[key],
			firstIndex: items[firstPos[key]].Index, latest: firstPos[key] == i}
		if k, ok := w.known[key]; ok {
			r.firstSeen, r.firstPos, r.firstIndex = k.firstSeen, k.firstPos, k.firstIndex
		}
		missing = append(missing, r)
	}
	if err := w.insertRevisions(ctx, missing, ids); err != nil {
		return err
	}
	w.revs = make([]int64, len(items))
	for i := range items {
		w.revs[i] = ids[w.keys[i]+"\x00"+string(hashes[i])]
	}
	return nil
}

// existingRevisions returns the ids of the revisions already stored among
// the positions', by key and rhash.
func (w *versionWriter) existingRevisions(ctx context.Context, hashes [][]byte) (map[string]int64, error) {
	rows, err := w.tx.Query(ctx, `SELECT r.item_key, r.rhash, r.rev_id FROM item_revisions r
		JOIN unnest($2::text[], $3::bytea[]) AS p(key, rhash) ON r.item_key = p.key AND r.rhash = p.rhash
		WHERE r.source_id = $1`, w.source, w.keys, hashes)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	ids := map[string]int64{}
	var key string
	var rhash []byte
	var id int64
	_, err = pgx.ForEachRow(rows, []any{&key, &rhash, &id}, func() error {
		ids[key+"\x00"+string(rhash)] = id
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return ids, nil
}

func (w *versionWriter) insertRevisions(ctx context.Context, revs []revision, ids map[string]int64) error {
	if len(revs) == 0 {
		return nil
	}
	n := len(revs)
	var (
		keys, titles, links, descs, texts = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		hashes                            = make([][]byte, n)
		docIDs, images, exts              = make([]*string, n), make([]*string, n), make([]*string, n)
		titleF, linkF, textF              = make([]*string, n), make([]*string, n), make([]*string, n)
		fromContent, latest               = make([]bool, n), make([]bool, n)
		fingerprints                      = make([]int64, n)
		firstSeen                         = make([]time.Time, n)
		firstPos, firstIndex              = make([]int32, n), make([]int32, n)
	)
	for i, r := range revs {
		it := r.item
		keys[i], hashes[i] = r.key, r.rhash
		if it.ID != r.key {
			docIDs[i] = &it.ID
		}
		titles[i], links[i], descs[i], texts[i] = it.Title, it.Link, it.Description, it.Text
		images[i], exts[i] = jsonOrNil(it.Image != nil, it.Image), jsonOrNil(len(it.Extensions) > 0, it.Extensions)
		titleF[i], linkF[i], textF[i] = folded(it.Title), folded(it.Link), folded(it.Text)
		fromContent[i], fingerprints[i] = it.IDFromContent, int64(it.Fingerprint)
		firstSeen[i], firstPos[i], firstIndex[i], latest[i] = r.firstSeen, int32(r.firstPos), int32(r.firstIndex), r.latest
	}
	rows, err := w.tx.Query(ctx, `INSERT INTO item_revisions (source_id, item_key, rhash, doc_id, title, link,
			description, plain_text, image, extensions, id_from_content, fingerprint, title_f, link_f, text_f,
			first_seen, first_pos, first_index, latest)
		SELECT $1, u.* FROM unnest($2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::json[], $10::json[], $11::bool[], $12::int8[], $13::text[], $14::text[], $15::text[],
			$16::timestamptz[], $17::int[], $18::int[], $19::bool[]) AS u
		RETURNING item_key, rhash, rev_id`,
		w.source, keys, hashes, docIDs, titles, links, descs, texts, images, exts, fromContent, fingerprints,
		titleF, linkF, textF, firstSeen, firstPos, firstIndex, latest)
	if err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	var key string
	var rhash []byte
	var id int64
	_, err = pgx.ForEachRow(rows, []any{&key, &rhash, &id}, func() error {
		ids[key+"\x00"+string(rhash)] = id
		return nil
	})
	if err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	return nil
}

// loadPrevious reads which items the previous version held and when it
// was seen.
func (w *versionWriter) loadPrevious(ctx context.Context) error {
	if w.seq == 1 {
		return nil
	}
	var packed []byte
	err := w.tx.QueryRow(ctx, "SELECT revs, seen_at FROM versions WHERE source_id = $1 AND seq = $2",
		w.source, w.seq-1).Scan(&packed, &w.prevSeenAt)
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	revs, err := unpackRevs(packed)
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	rows, err := w.tx.Query(ctx, "SELECT item_key FROM item_revisions WHERE rev_id = ANY($1)", revs)
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	if w.prevKeys, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	return nil
}

// storeItems inserts the new items and updates only the stored items that
// changed: those that left the page (last seen with the previous version),
// those that came back to it, and those whose shown revision moved (the
// revision at an item's first position is the one the archive shows).
func (w *versionWriter) storeItems(ctx context.Context) error {
	cur, prev := set(w.keys), set(w.prevKeys)
	var newKeys, movedKeys, backKeys, goneKeys []string
	var newRevs, movedRevs, fingerprints []int64
	var newPos, newIndexes []int32
	done := map[string]bool{}
	for i, key := range w.keys {
		if done[key] {
			continue
		}
		done[key] = true
		k, known := w.known[key]
		switch {
		case !known:
			newKeys, newRevs = append(newKeys, key), append(newRevs, w.revs[i])
			newPos, newIndexes = append(newPos, int32(i)), append(newIndexes, int32(w.doc.Items[i].Index))
			fingerprints = append(fingerprints, int64(w.doc.Items[i].Fingerprint))
		case k.latestRev != w.revs[i]:
			movedKeys, movedRevs = append(movedKeys, key), append(movedRevs, w.revs[i])
		}
		if known && !prev[key] {
			backKeys = append(backKeys, key)
		}
	}
	for key := range prev {
		if !cur[key] {
			goneKeys = append(goneKeys, key)
		}
	}

	b := &pgx.Batch{}
	if len(newKeys) > 0 {
		b.Queue(`INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos, first_index, latest_rev, fingerprint)
			SELECT $1, c.key, $2, $3, c.pos, c.idx, c.rev, c.fp
			FROM unnest($4::text[], $5::int8[], $6::int[], $7::int[], $8::int8[]) AS c(key, rev, pos, idx, fp)`,
			w.source, w.at, w.seq, newKeys, newRevs, newPos, newIndexes, fingerprints)
	}
	if len(movedKeys) > 0 {
		// New revisions were inserted with their latest flag; stored items
		// whose shown revision changed move it.
		b.Queue(`UPDATE item_revisions r SET latest = (r.rev_id = c.rev)
			FROM unnest($2::text[], $3::int8[]) AS c(key, rev)
			WHERE r.source_id = $1 AND r.item_key = c.key AND (r.latest OR r.rev_id = c.rev)`,
			w.source, movedKeys, movedRevs)
		b.Queue(`UPDATE items i SET latest_rev = c.rev FROM unnest($2::text[], $3::int8[]) AS c(key, rev)
			WHERE i.source_id = $1 AND i.item_id = c.key`, w.source, movedKeys, movedRevs)
	}
	if len(backKeys) > 0 {
		b.Queue(`UPDATE items SET last_seen = NULL WHERE source_id = $1 AND item_id = ANY($2)`, w.source, backKeys)
	}
	if len(goneKeys) > 0 {
		b.Queue(`UPDATE items SET last_seen = $3 WHERE source_id = $1 AND item_id = ANY($2)`, w.source, goneKeys, w.prevSeenAt)
	}
	if err := w.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store items: %w", err)
	}
	return nil
}

// storeVersion inserts the version row, counting what it added and removed
// against the previous version.
func (w *versionWriter) storeVersion(ctx context.Context) (*dynamo.Version, error) {
	prev, cur := set(w.prevKeys), set(w.keys)
	v := &dynamo.Version{SourceID: w.source, Seq: w.seq, Index: 1, SeenAt: w.at, Hash: w.hash,
		Title: w.doc.Channel.Title, Items: len(w.doc.Items)}
	for k := range cur {
		if !prev[k] {
			v.Added++
		}
	}
	for k := range prev {
		if !cur[k] {
			v.Removed++
		}
	}
	channel, err := json.Marshal(w.doc.Channel)
	if err != nil {
		return nil, fmt.Errorf("encode channel: %w", err)
	}
	newItems := len(w.newItems())
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO versions (source_id, seq, seen_at, hash, url, rss_id, stamp, channel, title,
			item_count, added, removed, revs, indexes)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		w.source, w.seq, w.at, w.hash, w.doc.URL, w.doc.RSSID, stamp(w.doc.Timestamp), string(channel),
		v.Title, v.Items, v.Added, v.Removed, packRevs(w.revs), w.indexes())
	b.Queue(`UPDATE sources SET last_seq = $2, last_hash = $3, title = $4, item_count = item_count + $5
		WHERE id = $1`, w.source, w.seq, w.hash, v.Title, newItems)
	if err := w.tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("insert version %d: %w", w.seq, err)
	}
	return v, nil
}

// indexes returns the items' index attributes, or nil when they are 1..n.
func (w *versionWriter) indexes() []int32 {
	plain := true
	out := make([]int32, len(w.doc.Items))
	for i, it := range w.doc.Items {
		out[i] = int32(it.Index)
		plain = plain && it.Index == i+1
	}
	if plain {
		return nil
	}
	return out
}

// newItems lists the items first seen in this version, in page order.
func (w *versionWriter) newItems() []dynamo.ArchivedItem {
	var out []dynamo.ArchivedItem
	seen := map[string]bool{}
	for i, key := range w.keys {
		if _, ok := w.known[key]; ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, dynamo.ArchivedItem{SourceID: w.source, Item: w.doc.Items[i], FirstSeen: w.at, LastSeen: w.at})
	}
	return out
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// revisionHash digests everything an item revision stores, so that an item
// whose content returns to an earlier state reuses that revision.
func revisionHash(it *dynamo.Item) []byte {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(it.ID)
	field(it.Title)
	field(it.Link)
	field(it.Description)
	field(it.Text)
	img, _ := json.Marshal(it.Image)
	field(string(img))
	ext, _ := json.Marshal(it.Extensions)
	field(string(ext))
	field(strconv.FormatBool(it.IDFromContent))
	field(strconv.FormatUint(it.Fingerprint, 16))
	return h.Sum(nil)[:16]
}

// folded returns FoldCase(s), or nil when folding changes nothing, to store
// only the copies that differ.
func folded(s string) *string {
	f := dynamo.FoldCase(s)
	if f == s {
		return nil
	}
	return &f
}

func jsonOrNil(present bool, v any) *string {
	if !present {
		return nil
	}
	b, _ := json.Marshal(v) // images and extensions are plain strings
	s := string(b)
	return &s
}

// validDocument refuses strings PostgreSQL text cannot hold (NUL, invalid
// UTF-8), with an error naming where they are, rather than storing an
// altered copy whose hash would not match.
func validDocument(doc *dynamo.Resource) error {
	check := func(where, s string) error {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s is not valid UTF-8: %w", where, dynamo.ErrInvalid)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%s contains a NUL character: %w", where, dynamo.ErrInvalid)
		}
		return nil
	}
	var errs []error
	add := func(where string, ss ...string) {
		for _, s := range ss {
			if err := check(where, s); err != nil {
				errs = append(errs, err)
				return
			}
		}
	}
	add("document", doc.URL, doc.RSSID, doc.Channel.Title, doc.Channel.Link, doc.Channel.Description)
	addImage(add, "channel image", doc.Channel.Image)
	addExtensions(add, "channel extension", doc.Channel.Extensions)
	for i, it := range doc.Items {
		where := fmt.Sprintf("item %d", i+1)
		add(where, it.ID, it.Title, it.Link, it.Description, it.Text)
		addImage(add, where+" image", it.Image)
		addExtensions(add, where+" extension", it.Extensions)
	}
	return errors.Join(errs...)
}

func addImage(add func(string, ...string), where string, img *dynamo.Image) {
	if img != nil {
		add(where, img.URL, img.Link, img.Title)
	}
}

func addExtensions(add func(string, ...string), where string, exts []dynamo.Extension) {
	for _, e := range exts {
		add(where, e.URI, e.Prefix, e.LocalName, e.Value)
	}
}

// packRevs encodes a version's revision ids as the zigzag varints of their
// differences: ids of items stored together are consecutive, so a page that
// keeps its order costs about a byte per item.
func packRevs(revs []int64) []byte {
	out := make([]byte, 0, len(revs)+8)
	prev := int64(0)
	for _, r := range revs {
		out = binary.AppendVarint(out, r-prev)
		prev = r
	}
	return out
}

// unpackRevs decodes packRevs.
func unpackRevs(b []byte) ([]int64, error) {
	var revs []int64
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			return nil, fmt.Errorf("corrupt revision list at byte %d", len(revs))
		}
		prev += d
		revs = append(revs, prev)
		b = b[n:]
	}
	return revs, nil
}
