// An independent WebSub subscriber for websub/independent_test.go: npm's
// pubsubhubbub 1.0.2 (andris9), listening on 127.0.0.1, subscribing to one
// topic at one hub with a secret.
//
//   node subscriber.cjs <hub> <topic> <secret>
//
// It prints one JSON object a line on stdout: {"event":"listen","callback":...}
// once listening, {"event":"requested"} when the hub accepted the request,
// then each event the library emits: "subscribe" (it answered a
// verification), "feed" (a content distribution whose signature the library
// checked), "denied" and "error".
"use strict";
const crypto = require("node:crypto");
const pubsubhubbub = require("pubsubhubbub");

const [hub, topic, secret] = process.argv.slice(2);
if (!hub || !topic || !secret) {
  console.error("usage: node subscriber.cjs <hub> <topic> <secret>");
  process.exit(2);
}
const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const sub = pubsubhubbub.createServer({ secret, leaseSeconds: 3600 });
sub.on("subscribe", (data) => print({ event: "subscribe", topic: data.topic, lease: data.lease }));
sub.on("unsubscribe", (data) => print({ event: "unsubscribe", topic: data.topic }));
sub.on("denied", (data) => print({ event: "denied", topic: data.topic, error: String(data.error || "") }));
sub.on("error", (err) => print({ event: "error", error: String(err) }));
sub.on("feed", (data) =>
  print({
    event: "feed",
    topic: data.topic,
    hub: data.hub,
    body: data.feed.toString("utf8"),
    contentType: data.headers["content-type"] || "",
    signature: data.headers["x-hub-signature"] || "",
  }),
);

sub.on("listen", () => {
  sub.callbackUrl = `http://127.0.0.1:${sub.server.address().port}/cb`;
  print({ event: "listen", callback: sub.callbackUrl });
  sub.subscribe(topic, hub, (err) => {
    if (err) print({ event: "denied", topic, error: String(err) });
    else print({ event: "requested" });
  });
  // The library's bug, worked around here: it sends the hub not the secret
  // but HMAC-SHA1(secret, topic) as hub.secret, then checks deliveries'
  // signatures with the secret itself, so no delivery could ever pass.
  // Checking with the key it registered is what it means to do.
  sub.secret = crypto.createHmac("sha1", secret).update(topic).digest("hex");
});
sub.listen(0, "127.0.0.1");

// The test closes stdin to end the subscriber.
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
