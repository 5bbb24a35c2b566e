-- wrk script of bench/wrk.ts. Each thread sends the raw requests of a file in turn (the file is
-- "<byte length>\n<request>" repeated), counts the answers by status, and at the end wrk's main
-- thread prints one line: WRK_RESULT {json} with the statuses, latency percentiles (µs), socket
-- errors and the CPU ticks the whole wrk process used (/proc/self/stat, all threads).

local requests = {}
local next_index = 0
statuses = {}

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local data = file:read("*a")
  file:close()
  local position = 1
  while position <= #data do
    local newline = data:find("\n", position, true)
    local length = tonumber(data:sub(position, newline - 1))
    requests[#requests + 1] = data:sub(newline + 1, newline + length)
    position = newline + length + 1
  end
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if file == nil then return -1 end
  local stat = file:read("*l")
  file:close()
  local fields = {}
  -- The command name may hold spaces; the numeric fields follow its closing parenthesis.
  for field in stat:match(".*%)%s+(.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

function done(summary, latency, requests_stats)
  local merged = {}
  for _, thread in ipairs(threads) do
    for code, count in pairs(thread:get("statuses")) do merged[code] = (merged[code] or 0) + count end
  end
  local parts = {}
  for code, count in pairs(merged) do parts[#parts + 1] = string.format('"%d":%d', code, count) end
  local errors = summary.errors
  io.write(string.format(
    'WRK_RESULT {"statuses":{%s},"durationUs":%d,"p50Us":%d,"p99Us":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"cpuTicks":%d}\n',
    table.concat(parts, ","), summary.duration, latency:percentile(50), latency:percentile(99),
    errors.connect, errors.read, errors.write, errors.timeout, cpu_ticks()))
end
