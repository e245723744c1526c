// Package dedup recognizes the same story carried by several sources
// (SPEC §8): near-duplicate items, by the Hamming distance between 64-bit
// SimHash fingerprints of their text.
//
// Three parts, used in this order:
//
//   - Fingerprint(title, description, titlePrefix) gives an item's
//     fingerprint when it is parsed: markup stripped, case, accents and
//     punctuation folded, the source's title prefix removed, words stemmed
//     and weighted (numbers and names more). Copies and light edits land a
//     few bits apart, different stories about 31 bits apart. The poller
//     stores it with the item (dynamo.Item.Fingerprint); 0 means the item
//     has no text to compare.
//   - Index holds fingerprints of items first seen within a window and
//     answers "which lie within distance k" exactly as a linear scan would,
//     by multi-index hashing, in time that grows far slower than the window
//     (in a window of a million, with the caches cold, 150–200 times faster
//     than a scan at k=3 and 13 times at DefaultK; docs/benchmarks/dedup.md).
//     It is safe for concurrent use.
//   - Detector applies the rules: on start it is rebuilt from the archive
//     (Load, from dynamo.ArchiveStore.Fingerprints); for each poll, Detect
//     returns the dynamo.Duplicate records of the source's new items (a
//     primary is the earliest item of another source within Config.K,
//     first seen within Config.Window) and Commit adds the new primaries to
//     the index once the poll is stored.
//
// docs/DEDUP.md explains the choices, with the measurements on the
// labelled set in testdata that fix the features, DefaultK and the index's
// layout.
package dedup
