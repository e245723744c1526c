// Package reliability holds Dynamo's failure and hostile-input tests
// (docs/RELIABILITY.md): tests that drive the real packages together, over real
// PostgreSQL and SQLite, real loopback HTTP and real processes, and check
// that nothing from outside crashes or hangs the service and that no stored
// version is lost, duplicated or left half-written. The package has no
// code of its own; its tests prove:
//
//   - PostgreSQL stopped and started again under a running poller and API
//     (a throwaway cluster the test starts itself): reads answer 5xx and
//     /healthz 503 while it is down, nothing crashes or hangs, and polling
//     and reads resume afterwards with every version whole, none lost and
//     none stored twice.
//   - The embedded store's disk full (a small tmpfs): the failing poll is a
//     clear error, the file passes PRAGMA integrity_check, every earlier
//     version rebuilds exactly, and storing resumes once space returns.
//   - A poller process killed with SIGKILL again and again while it polls
//     a page that changes on every request: every version it reported
//     stored survives, none is half-written or stored twice, and the next
//     process carries on from the stored state.
//   - Hostile origins (hanging, dripping, flooding, redirecting in a loop,
//     gzip bombs, wrong content) polled by the whole poller: each poll is
//     bounded in time and memory, its error is recorded on the source, the
//     source backs off, and a good source beside them keeps being polled.
//   - Thousands of mutated annotated pages and feeds, generated from a
//     fixed seed, through wrapper.Wrap, nativefeed.Parse and every
//     transform format: no panic, bounded time per document, and every
//     output well-formed XML or valid JSON.
//   - XSS payloads in every item and channel field, polled from a page and
//     three feed formats, rendered by the API in every format, read back by
//     Debian's feedparser, and shown by the web interface: they stay inert
//     text or are removed.
//   - Oversized parameters and absurdly nested XPath or JSON sent to the
//     API: 4xx quickly, never a 5xx.
//
// The SSRF guard's vectors are tested where the guard lives, in
// poller/fetch (guard_test.go). docs/RELIABILITY.md lists every case with
// the test that covers it, the command and the figures measured.
//
// DYNAMO_RELIABILITY_LONG=1 makes the hostile corpus larger.
package reliability
