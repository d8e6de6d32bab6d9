-- wrk script of the serve-tiles part (Benchmarks/bench/wrk.py): every request is the next path of
-- a list of tile paths, one a line, in the file given after `--`. Each of wrk's threads starts at
-- its own offset (thread k of n at k/n of the list) and wraps around; its connections take the
-- paths one after another, so no two connections of a run ask for the same path at once.
-- done() prints one JSON line: the counts, the errors by kind, the latency percentiles in µs.

local threads = {}

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

local paths = {}
local position = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  local count = tonumber(args[2]) or 1
  position = math.floor((index or 0) * #paths / count)
end

function request()
  position = position % #paths + 1
  return wrk.format("GET", paths[position])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
