package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
)

// pollLogLimit is how many polls the log keeps per source: enough for a
// chart of several days of frequent polling, bounded so that the log does
// not grow with time.
const pollLogLimit = 500

// RecordPoll applies one poll in one write transaction. Writes are
// serialized (one writer connection, IMMEDIATE transactions), so two
// writers storing the same content cannot both create a version: the second
// finds the first's hash, or, having lost the lease, is refused.
func (s *Store) RecordPoll(ctx context.Context, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	var result dynamo.PollResult
	err := s.write(ctx, func(tx *sql.Tx, changed func(string)) error {
		var (
			owner, lastHash string
			removed         bool
			lastSeq         int
		)
		err := tx.QueryRowContext(ctx, "SELECT lease_owner, removed, last_seq, last_hash FROM sources WHERE id = ?",
			rec.SourceID).Scan(&owner, &removed, &lastSeq, &lastHash)
		if errors.Is(err, sql.ErrNoRows) || err == nil && (removed || rec.Owner == "" || owner != rec.Owner) {
			return dynamo.ErrLeaseLost
		}
		if err != nil {
			return err
		}
		result = dynamo.PollResult{}
		if doc := rec.Document; doc != nil {
			result.Seen = len(doc.Items)
			if hash := dynamo.ContentHash(doc); lastSeq == 0 || hash != lastHash {
				w := &versionWriter{tx: tx, source: rec.SourceID, seq: lastSeq + 1, at: rec.At, hash: hash, doc: doc}
				if result.Version, result.NewItems, err = w.write(ctx); err != nil {
					return err
				}
				changed(rec.SourceID)
			}
		}
		upd := decide(result)
		for _, d := range upd.Duplicates {
			changed(d.Item.SourceID)
			changed(d.Primary.SourceID)
		}
		return writeUpdate(ctx, tx, rec, result, upd)
	})
	if err != nil {
		return dynamo.PollResult{}, fmt.Errorf("record poll of %s: %w", rec.SourceID, err)
	}
	return result, nil
}

// writeUpdate writes what the poller decided and releases the lease.
func writeUpdate(ctx context.Context, tx *sql.Tx, rec dynamo.PollRecord, result dynamo.PollResult, upd dynamo.PollUpdate) error {
	st := upd.State
	var versionAt any
	if result.Version != nil {
		versionAt = dbTime(rec.At)
	}
	_, err := tx.ExecContext(ctx, `UPDATE sources SET etag = ?, last_modified = ?, body_hash = ?, last_poll = ?,
			next_poll = ?, last_change = ?, last_status = ?, errors = ?, last_error = ?, schedule = ?,
			lease_owner = '', lease_expires = ?, last_version_at = coalesce(?, last_version_at)
		WHERE id = ?`,
		st.ETag, st.LastModified, st.BodyHash, dbTime(st.LastPoll), dbTime(st.NextPoll), dbTime(st.LastChange),
		string(st.LastStatus), st.Errors, st.LastError, scheduleArg(st.Schedule), zeroTime, versionAt, rec.SourceID)
	if err != nil {
		return fmt.Errorf("write poll state: %w", err)
	}
	status := string(upd.Log.Status)
	if _, err := tx.ExecContext(ctx, `INSERT INTO poll_counts (source_id, status, n) VALUES (?, ?, 1)
		ON CONFLICT (source_id, status) DO UPDATE SET n = n + 1`, rec.SourceID, status); err != nil {
		return fmt.Errorf("count poll: %w", err)
	}
	logAt := upd.Log.At
	if logAt.IsZero() {
		logAt = rec.At
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO poll_log (source_id, at, status, duration_ns, new_items, error)
		VALUES (?, ?, ?, ?, ?, ?)`, rec.SourceID, dbTime(logAt), status, int64(upd.Log.Duration), upd.Log.NewItems,
		upd.Log.Error); err != nil {
		return fmt.Errorf("log poll: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM poll_log WHERE source_id = ?1 AND id IN (
		SELECT id FROM poll_log WHERE source_id = ?1 ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?2)`,
		rec.SourceID, pollLogLimit); err != nil {
		return fmt.Errorf("trim poll log: %w", err)
	}
	return writeDuplicates(ctx, tx, upd.Duplicates)
}

// writeDuplicates records duplicates whose items both exist; a primary
// purged since the detector saw it is skipped.
func writeDuplicates(ctx context.Context, tx *sql.Tx, dups []dynamo.Duplicate) error {
	for _, d := range dups {
		_, err := tx.ExecContext(ctx, `INSERT INTO duplicates (source_id, item_id, primary_source, primary_item, distance)
			SELECT ?1, ?2, ?3, ?4, ?5
			WHERE EXISTS (SELECT 1 FROM items WHERE source_id = ?1 AND item_id = ?2)
				AND EXISTS (SELECT 1 FROM items WHERE source_id = ?3 AND item_id = ?4)
			ON CONFLICT (source_id, item_id) DO UPDATE SET primary_source = excluded.primary_source,
				primary_item = excluded.primary_item, distance = excluded.distance`,
			d.Item.SourceID, d.Item.ItemID, d.Primary.SourceID, d.Primary.ItemID, d.Distance)
		if err != nil {
			return fmt.Errorf("record duplicate %s/%s: %w", d.Item.SourceID, d.Item.ItemID, err)
		}
	}
	return nil
}

// versionWriter stores one new version of a source.
type versionWriter struct {
	tx     *sql.Tx
	source string
	seq    int
	at     time.Time
	hash   string
	doc    *dynamo.Resource

	keys  []string            // the item key of each position
	known map[string]knownRow // items stored before, by key
	revs  []int64             // the revision of each position

	prevKeys   []string // the items of the previous version
	prevSeenAt int64    // when the previous version was seen
}

// knownRow is what the items table says about an item already stored.
type knownRow struct {
	firstSeen  int64
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
// item with the same title (its description was edited, SPEC §7); else its
// own id, as a new item.
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
	rows, err := w.tx.QueryContext(ctx, `SELECT item_id, first_seen, first_pos, first_index, latest_rev FROM items
		WHERE source_id = ? AND item_id IN (SELECT value FROM json_each(?))`, w.source, jsonArg(keys))
	if err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var k knownRow
		if err := rows.Scan(&key, &k.firstSeen, &k.firstPos, &k.firstIndex, &k.latestRev); err != nil {
			return fmt.Errorf("read items: %w", err)
		}
		w.known[key] = k
	}
	if err := rows.Err(); err != nil {
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
	rows, err := w.tx.QueryContext(ctx, `SELECT r.title, r.item_key, max(r.rev_id) AS rev FROM item_revisions r
		WHERE r.source_id = ? AND r.title IN (SELECT value FROM json_each(?))
		GROUP BY r.title, r.item_key ORDER BY rev DESC`, w.source, jsonArg(titles))
	if err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var title, key string
		var rev int64
		if err := rows.Scan(&title, &key, &rev); err != nil {
			return nil, fmt.Errorf("find items by title: %w", err)
		}
		found[title] = append(found[title], key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	return found, nil
}

// storeRevisions finds or inserts the revision of each position. The
// revision at an item's first position is the one the archive shows.
func (w *versionWriter) storeRevisions(ctx context.Context) error {
	find, err := w.tx.PrepareContext(ctx, "SELECT rev_id FROM item_revisions WHERE source_id = ? AND item_key = ? AND rhash = ?")
	if err != nil {
		return fmt.Errorf("read revisions: %w", err)
	}
	defer find.Close()
	insert, err := w.tx.PrepareContext(ctx, `INSERT INTO item_revisions (source_id, item_key, rhash, doc_id, title,
			link, description, plain_text, image, extensions, id_from_content, fingerprint, title_f, link_f, text_f,
			first_seen, first_pos, first_index, latest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	defer insert.Close()

	items := w.doc.Items
	w.revs = make([]int64, len(items))
	ids := map[string]int64{} // by key and rhash
	firstPos := map[string]int{}
	for i := range items {
		it, key := &items[i], w.keys[i]
		if _, ok := firstPos[key]; !ok {
			firstPos[key] = i
		}
		rhash := revisionHash(it)
		rk := key + "\x00" + string(rhash)
		if id, ok := ids[rk]; ok {
			w.revs[i] = id
			continue
		}
		var id int64
		err := find.QueryRowContext(ctx, w.source, key, rhash).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			id, err = w.insertRevision(ctx, insert, key, rhash, it, firstPos[key], i)
		}
		if err != nil {
			return fmt.Errorf("store revision of item %d: %w", i+1, err)
		}
		ids[rk], w.revs[i] = id, id
	}
	return nil
}

// insertRevision stores the content of the item at position pos, whose key
// first occurs at position first.
func (w *versionWriter) insertRevision(ctx context.Context, insert *sql.Stmt, key string, rhash []byte, it *dynamo.Item, first, pos int) (int64, error) {
	firstSeen, firstPos, firstIndex := dbTime(w.at), first, w.doc.Items[first].Index
	if k, ok := w.known[key]; ok {
		firstSeen, firstPos, firstIndex = k.firstSeen, k.firstPos, k.firstIndex
	}
	var docID any
	if it.ID != key {
		docID = it.ID
	}
	res, err := insert.ExecContext(ctx, w.source, key, rhash, docID, it.Title, it.Link, it.Description, it.Text,
		jsonOrNil(it.Image != nil, it.Image), jsonOrNil(len(it.Extensions) > 0, it.Extensions),
		boolInt(it.IDFromContent), int64(it.Fingerprint), folded(it.Title), folded(it.Link), folded(it.Text),
		firstSeen, firstPos, firstIndex, boolInt(first == pos))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// loadPrevious reads which items the previous version held and when it
// was seen.
func (w *versionWriter) loadPrevious(ctx context.Context) error {
	if w.seq == 1 {
		return nil
	}
	var packed []byte
	err := w.tx.QueryRowContext(ctx, "SELECT revs, seen_at FROM versions WHERE source_id = ? AND seq = ?",
		w.source, w.seq-1).Scan(&packed, &w.prevSeenAt)
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	revs, err := unpackRevs(packed)
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	rows, err := w.tx.QueryContext(ctx, "SELECT item_key FROM item_revisions WHERE rev_id IN (SELECT value FROM json_each(?))",
		jsonArg(revs))
	if err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	if w.prevKeys, err = collectStrings(rows); err != nil {
		return fmt.Errorf("read previous version: %w", err)
	}
	return nil
}

// storeItems inserts the new items and updates only the stored items that
// changed: those that left the page (last seen with the previous version),
// those that came back to it, and those whose shown revision moved. Items
// that stay on the page cost no write.
func (w *versionWriter) storeItems(ctx context.Context) error {
	cur, prev := set(w.keys), set(w.prevKeys)
	done := map[string]bool{}
	for i, key := range w.keys {
		if done[key] {
			continue
		}
		done[key] = true
		k, known := w.known[key]
		var err error
		switch {
		case !known:
			_, err = w.tx.ExecContext(ctx, `INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos,
					first_index, latest_rev, fingerprint)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				w.source, key, dbTime(w.at), w.seq, i, w.doc.Items[i].Index, w.revs[i], int64(w.doc.Items[i].Fingerprint))
		case k.latestRev != w.revs[i]:
			err = w.moveLatest(ctx, key, w.revs[i])
		}
		if err == nil && known && !prev[key] {
			_, err = w.tx.ExecContext(ctx, "UPDATE items SET last_seen = NULL WHERE source_id = ? AND item_id = ?", w.source, key)
		}
		if err != nil {
			return fmt.Errorf("store item %s: %w", key, err)
		}
	}
	for key := range prev {
		if cur[key] {
			continue
		}
		if _, err := w.tx.ExecContext(ctx, "UPDATE items SET last_seen = ? WHERE source_id = ? AND item_id = ?",
			w.prevSeenAt, w.source, key); err != nil {
			return fmt.Errorf("store item %s: %w", key, err)
		}
	}
	return nil
}

// moveLatest makes rev the revision the archive shows for item key.
func (w *versionWriter) moveLatest(ctx context.Context, key string, rev int64) error {
	if _, err := w.tx.ExecContext(ctx, `UPDATE item_revisions SET latest = (rev_id = ?1)
		WHERE source_id = ?2 AND item_key = ?3 AND (latest OR rev_id = ?1)`, rev, w.source, key); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(ctx, "UPDATE items SET latest_rev = ? WHERE source_id = ? AND item_id = ?", rev, w.source, key)
	return err
}

// storeVersion inserts the version row, counting what it added and removed
// against the previous version, and updates the source's summary.
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
	channel, err := w.storeChannel(ctx)
	if err != nil {
		return nil, err
	}
	hash, err := hex.DecodeString(w.hash)
	if err != nil {
		return nil, fmt.Errorf("content hash %q: %w", w.hash, err)
	}
	if _, err := w.tx.ExecContext(ctx, `INSERT INTO versions (source_id, seq, seen_at, hash, url, rss_id, stamp,
			channel_id, title, item_count, added, removed, revs, indexes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.source, w.seq, dbTime(w.at), hash, w.doc.URL, w.doc.RSSID, dbTime(w.doc.Timestamp), channel,
		v.Title, v.Items, v.Added, v.Removed, packRevs(w.revs), w.indexes()); err != nil {
		return nil, fmt.Errorf("insert version %d: %w", w.seq, err)
	}
	if _, err := w.tx.ExecContext(ctx, `UPDATE sources SET last_seq = ?, last_hash = ?, title = ?,
			item_count = item_count + ? WHERE id = ?`,
		w.seq, w.hash, v.Title, len(w.newItems()), w.source); err != nil {
		return nil, fmt.Errorf("insert version %d: %w", w.seq, err)
	}
	return v, nil
}

// storeChannel finds or stores the document's channel and returns its id.
func (w *versionWriter) storeChannel(ctx context.Context) (int64, error) {
	body, err := json.Marshal(w.doc.Channel)
	if err != nil {
		return 0, fmt.Errorf("encode channel: %w", err)
	}
	sum := sha256.Sum256(body)
	var id int64
	err = w.tx.QueryRowContext(ctx, `INSERT INTO channels (source_id, chash, body) VALUES (?, ?, ?)
		ON CONFLICT (source_id, chash) DO UPDATE SET body = body RETURNING channel_id`,
		w.source, sum[:16], string(body)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store channel: %w", err)
	}
	return id, nil
}

// indexes packs the items' index attributes, or returns nil when they are
// 1..n.
func (w *versionWriter) indexes() []byte {
	plain := true
	var out []byte
	for i, it := range w.doc.Items {
		out = binary.AppendVarint(out, int64(it.Index))
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

// validDocument refuses text that cannot be stored faithfully: invalid
// UTF-8, which JSON (channels, images, extensions) would replace, and NUL,
// which XML cannot carry and PostgreSQL refuses. Refusing keeps both stores
// alike and every stored version rebuildable to its hash.
func validDocument(doc *dynamo.Resource) error {
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
	}
	return errors.Join(errs...)
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
	img, _ := json.Marshal(it.Image) // plain strings always encode
	field(string(img))
	ext, _ := json.Marshal(it.Extensions)
	field(string(ext))
	field(strconv.FormatBool(it.IDFromContent))
	field(strconv.FormatUint(it.Fingerprint, 16))
	return h.Sum(nil)[:16]
}

// folded returns FoldCase(s), or nil when folding changes nothing, to store
// only the copies that differ.
func folded(s string) any {
	if f := dynamo.FoldCase(s); f != s {
		return f
	}
	return nil
}

// jsonOrNil encodes v, or returns nil (SQL NULL) when it is absent.
func jsonOrNil(present bool, v any) any {
	if !present {
		return nil
	}
	b, _ := json.Marshal(v) // images and extensions are plain strings
	return string(b)
}

// maxItems bounds the items of a stored version that unpackRevs accepts,
// so that a corrupt list cannot ask for unbounded memory.
const maxItems = 1 << 24

// packRevs encodes a version's revision ids as runs of consecutive ids,
// ascending or descending: for each run, the zigzag varint of its first
// id's difference from the previous run's last, then the zigzag varint of
// its length minus one, negated for a descending run. Items stored together
// have consecutive ids, and a page mostly keeps its order while new items
// arrive on top (each newer than the one below it), so a version costs a
// few bytes rather than one per item.
func packRevs(revs []int64) []byte {
	out := []byte{} // an empty version is an empty list, not NULL
	prev := int64(0)
	for i := 0; i < len(revs); {
		step := int64(1)
		if i+1 < len(revs) && revs[i+1] == revs[i]-1 {
			step = -1
		}
		j := i + 1
		for j < len(revs) && revs[j] == revs[j-1]+step {
			j++
		}
		out = binary.AppendVarint(out, revs[i]-prev)
		out = binary.AppendVarint(out, step*int64(j-i-1))
		prev = revs[j-1]
		i = j
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
			return nil, fmt.Errorf("corrupt revision list after %d revisions", len(revs))
		}
		b = b[n:]
		run, m := binary.Varint(b)
		step, more := int64(1), run
		if run < 0 {
			step, more = -1, -run
		}
		if m <= 0 || more < 0 || more >= maxItems-int64(len(revs)) {
			return nil, fmt.Errorf("corrupt revision list after %d revisions", len(revs))
		}
		b = b[m:]
		start := prev + d
		for k := range more + 1 {
			revs = append(revs, start+step*k)
		}
		prev = revs[len(revs)-1]
	}
	return revs, nil
}

// unpackIndexes decodes a version's index attributes; nil means 1..n.
func unpackIndexes(b []byte) ([]int, error) {
	var out []int
	for len(b) > 0 {
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, fmt.Errorf("corrupt index list after %d indexes", len(out))
		}
		out = append(out, int(v))
		b = b[n:]
	}
	return out, nil
}
