-- percentiles.lua: a wrk script that changes no request and prints the
-- 99.9th percentile of latency, which wrk --latency leaves out, on a line
-- starting "plain:". Having only done(), it costs wrk nothing per request.

function done(summary, latency, requests)
  io.write(string.format("plain: p99.9=%dus\n", latency:percentile(99.9)))
end
