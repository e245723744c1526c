-- keywords.lua: a wrk script for issue 21's keyword aim. Every request asks
-- the archive of source "big" for items matching words drawn at random from
-- a vocabulary file (one word a line, args[1]), with the conditions args[2]
-- names: "none" (the 50 newest items, no condition), "title" (title=W) or
-- "title_and_desc" (title=W&description=V). The server runs with its cache
-- off, so every answer is read and rendered. done() prints "p99.9=…us".

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  words = {}
  for line in io.lines(args[1]) do
    if line ~= "" then table.insert(words, line) end
  end
  mode = args[2] or "title"
  math.randomseed(os.time() * 97 + id)
end

local function word()
  return words[math.random(#words)]
end

function request()
  local path = "/resources/big?max=50"
  if mode == "title" then
    path = path .. "&title=" .. word()
  elseif mode == "title_and_desc" then
    path = path .. "&title=" .. word() .. "&description=" .. word()
  end
  return wrk.format(nil, path)
end

function done(summary, latency, requests)
  io.write(string.format("keywords: p99.9=%dus\n", latency:percentile(99.9)))
end
