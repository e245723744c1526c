-- fresh_host.lua: a wrk script that sends every request with a Host header
-- no earlier request carried. Dynamo keys its cache of rendered answers by
-- the answer's absolute URL, host included, so no request finds its answer
-- cached: each one reads the store and renders, which is how TestWrk
-- measures uncached answers of the real binary (wrk still connects to
-- 127.0.0.1 only). Its argument, when given, starts every Host: a run
-- after another in one test names it anew, or it would send the earlier
-- run's Hosts again, whose answers may still be cached. done() prints
-- "p99.9=…us" for the record.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  n = 0
  prefix = args[1] or "t"
end

function request()
  n = n + 1
  return wrk.format(nil, nil, {Host = string.format("%s%d-%d.load.test", prefix, id, n)})
end

function done(summary, latency, requests)
  io.write(string.format("fresh: p99.9=%dus\n", latency:percentile(99.9)))
end
