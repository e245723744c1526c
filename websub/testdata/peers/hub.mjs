// An independent WebSub hub for websub/independent_test.go: npm's
// @dwk/websub (a hub written for Cloudflare Workers) served by Node's http
// module on 127.0.0.1, with the two Workers bindings it needs played here:
// an in-process queue that runs its jobs through the library's own queue
// consumer, and the subscription store the consumer accepts for tests.
// Validation, verification of intent, fetching the topic, signing and
// delivery are the library's.
//
//   node hub.mjs <topic> <host:port allowed on loopback>...
//
// It prints one JSON object a line on stdout: {"event":"listen","url":...}
// once listening, then each event the library logs ({"event":...,"fields":...}).
import http from "node:http";
import { webcrypto } from "node:crypto";

// Node 18 (Debian 12's) has no global Web Crypto in a module, which the
// library uses to sign and to make challenges.
globalThis.crypto ??= webcrypto;

const { createWebSub, createWebSubQueueConsumer } = await import("@dwk/websub");

const [topic, ...allowedHosts] = process.argv.slice(2);
if (!topic) {
  console.error("usage: node hub.mjs <topic> <host:port>...");
  process.exit(2);
}

const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const logger = {
  debug() {},
  info: (event, fields) => print({ event, fields }),
  warn: (event, fields) => print({ event, fields }),
  error: (event, fields) => print({ event, fields }),
};

// The subscription store, keyed like the library's D1 table on
// (callback, topic).
const rows = new Map();
const key = (callback, topic) => callback + " " + topic;
const store = {
  async upsert(s) {
    rows.set(key(s.callback, s.topic), {
      callback: s.callback,
      topic: s.topic,
      secret: s.secret ?? null,
      leaseSeconds: s.leaseSeconds,
      expiresAt: s.now + s.leaseSeconds * 1000,
      createdAt: s.now,
    });
  },
  async remove(callback, topic) {
    rows.delete(key(callback, topic));
  },
  async listActive(topic, now) {
    return [...rows.values()].filter((r) => r.topic === topic && r.expiresAt > now);
  },
  async get(callback, topic) {
    return rows.get(key(callback, topic)) ?? null;
  },
  async pruneExpired(now) {
    let n = 0;
    for (const [k, r] of rows) {
      if (r.expiresAt <= now) {
        rows.delete(k);
        n++;
      }
    }
    return n;
  },
};

let hubUrl = "";
const config = () => ({
  baseUrl: hubUrl,
  allowedTopics: [topic],
  logger,
  fetchAllowedHosts: allowedHosts,
});

// The queue: every message goes to the consumer on its own, with the
// attempts count and the ack/retry the consumer calls; a retry comes back
// after the delay the consumer asks for.
let consumer;
const env = {
  WEBSUB_QUEUE: {
    async send(body) {
      enqueue(body, 1);
    },
    async sendBatch(messages) {
      for (const m of messages) enqueue(m.body, 1);
    },
  },
};
function enqueue(body, attempts) {
  setImmediate(async () => {
    let retryAfter = -1;
    const message = {
      id: String(Math.random()),
      body: JSON.parse(JSON.stringify(body)), // as a queue serializes it
      attempts,
      ack() {},
      retry(opts) {
        retryAfter = (opts?.delaySeconds ?? 0) * 1000;
      },
    };
    try {
      await consumer({ messages: [message], queue: "websub" }, env, {});
    } catch (err) {
      print({ event: "harness.consumer_error", fields: { error: String(err) } });
    }
    if (retryAfter >= 0) {
      print({ event: "harness.retry", fields: { kind: body.kind, attempts, delayMs: retryAfter } });
      setTimeout(() => enqueue(body, attempts + 1), retryAfter);
    }
  });
}

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const request = new Request(hubUrl + (req.url === "/" ? "" : req.url), {
    method: req.method,
    headers: req.headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
  });
  const response = await handler(request, env, {});
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

let handler;
server.listen(0, "127.0.0.1", () => {
  hubUrl = `http://127.0.0.1:${server.address().port}/`;
  handler = createWebSub(config());
  consumer = createWebSubQueueConsumer(config(), { store });
  print({ event: "listen", url: hubUrl });
});

// The test closes stdin to end the hub.
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
