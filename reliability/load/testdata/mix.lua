-- mix.lua: a wrk script that sends Dynamo a mix of requests and counts the
-- answers, for reliability/load's TestWrk and scripts/reliability.sh.
--
--   wrk -t2 -c256 -d60s --latency -s mix.lua http://127.0.0.1:PORT -- requests.tsv
--
-- requests.tsv has one request a line: path, a header name (or nothing), its
-- value, and the status the answer must have (200, or 304 for a conditional
-- request whose validator is current), separated by tabs. Each thread goes
-- round the list from its own starting point and counts what it sent and
-- what came back by status; done() prints the totals on one line starting
-- "mix:", which the test checks: no status but 200 and 304, no more 304s
-- than conditional requests sent (so a 304 only where one was asked for),
-- and no 200 with an empty body.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  reqs, wants = {}, {}
  for line in io.lines(args[1]) do
    local path, name, value, want = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(%d+)$")
    if not path then error("bad request line: " .. line) end
    local headers = {}
    if name ~= "" then headers[name] = value end
    table.insert(reqs, wrk.format("GET", path, headers))
    table.insert(wants, tonumber(want))
  end
  i = (id * 7) % #reqs
  sent200, sent304, got200, got304, other, empty = 0, 0, 0, 0, 0, 0
end

function request()
  i = i % #reqs + 1
  if wants[i] == 304 then sent304 = sent304 + 1 else sent200 = sent200 + 1 end
  return reqs[i]
end

function response(status, headers, body)
  if status == 200 then
    got200 = got200 + 1
    if body == nil or #body == 0 then empty = empty + 1 end
  elseif status == 304 then
    got304 = got304 + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local t = {sent200 = 0, sent304 = 0, got200 = 0, got304 = 0, other = 0, empty = 0}
  for _, thread in ipairs(threads) do
    for k in pairs(t) do t[k] = t[k] + thread:get(k) end
  end
  io.write(string.format("mix: sent200=%d sent304=%d got200=%d got304=%d other=%d empty=%d\n",
    t.sent200, t.sent304, t.got200, t.got304, t.other, t.empty))
  io.write(string.format("latency: p99.9=%dus\n", latency:percentile(99.9)))
end
