// Package websub makes Dynamo a WebSub citizen both ways (W3C WebSub
// Recommendation, 23 January 2018; section numbers below are that
// document's):
//
//   - Subscriber: a source whose feed or page advertises a hub (§4) is
//     subscribed to it (§5.1) with a secret of its own; the hub's
//     verification of intent (§5.3) is answered only for the subscriptions
//     Dynamo asked for; leases are renewed before they end; pushed
//     content (§7) is accepted only with a valid signature (§7.1) and
//     handed to the poller, which reads it exactly as a polled body.
//   - Hub: Dynamo's own feeds are topics. Subscription requests (§5.1) are
//     validated, verified with the subscriber (§5.3), kept in the store,
//     and every change of a topic's representation is delivered, signed,
//     with retries and back-off (§7).
//
// Every piece of state lives in the store (dynamo.WebSubStore), so several
// processes over one PostgreSQL database answer every callback and deliver
// each change once. docs/WEBSUB.md describes both roles and their limits.
package websub
