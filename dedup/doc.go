// Package dedup recognizes the same story carried by several sources
// (docs/DEDUP.md), in two stages: candidates found fast, then a decision on the
// texts that says which rule decided and with what score.
//
//   - NewProfile reduces an item to the set of its normalized terms (case,
//     accents, punctuation and markup folded, English inflections stemmed,
//     stop words dropped, number words written as digits), marked with
//     where they occur and whether they are names, numbers or dates. Wire
//     labels on titles ("UPDATE 2-", "Soccer-", "| Reuters", "(AP)") are
//     set apart, from a built-in list and from what SourceAffixes learns
//     of each source's titles.
//   - Compare (Thresholds.Compare) decides whether two profiles are one
//     story: a few rules over weighted Jaccard similarities of their terms
//     and of their facts, with short items held to near-identity, and
//     corrections, reordered numbers and conflicting numbers or dates kept
//     apart. Each Decision names its Rule and Score.
//   - Window holds the profiles of the items first seen within the window
//     and proposes, for a new item, those that share one of its keys:
//     MinHash bands over its terms and over its facts, and a key of its
//     headline. In a window of a million, a lookup decides about ten
//     thousand candidates instead of a million (docs/benchmarks/dedup.md).
//   - Stories groups items into stories: CatchUp holds what other polls
//     stored, Detect decides a poll's new items against the window, Commit
//     holds them once stored, Load rebuilds the window from the archive as
//     it was recorded. The poller runs them inside the store transaction
//     that records a poll, serialized with every other poll that stores new
//     items (dynamo.PollRecord.Stories), so that one story stored twice at
//     once still has one primary.
//
// docs/DEDUP.md explains the choices, with the measurements on the labelled
// pairs in testdata that fix the rules' thresholds and the candidate keys.
package dedup
