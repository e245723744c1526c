// Package load holds Dynamo's load and scale tests (docs/RELIABILITY.md): the
// API under sustained load over loopback with a Go load generator, the
// memory of `dynamo serve` with thousands of sources registered and polled,
// the attacks of issue 23 on its budgets (a crowd of expensive XPath reads
// beside cheap ones; slow senders and clients that never read), and, in
// long mode, wrk runs against the built binary and the same feed
// served beside RSS-Bridge.
//
// Everything is in the tests; this file only documents the package. The
// default run is short (about twenty seconds); DYNAMO_RELIABILITY_LONG=1
// runs the long versions that scripts/reliability.sh records in
// docs/benchmarks/load.md. Every test targets 127.0.0.1 only and stops by
// itself.
package load
