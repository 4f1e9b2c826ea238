-- bench.lua N: a CPU-bound Lua workload for the icost suite. N scales the
-- work linearly. It exercises the interpreter's dispatch loop, table
-- access, string building, closures and the garbage collector, and prints
-- checksums so that a wrong emulation shows up as wrong output.
local n = tonumber(arg and arg[1])
if not n or n < 1 or n ~= math.floor(n) then
  io.stderr:write("usage: lua bench.lua N (N a positive integer)\n")
  os.exit(2)
end

-- deterministic LCG (integers are 64-bit in Lua 5.4)
local seed = 12345
local function rand(m)
  seed = (seed * 6364136223846793005 + 1442695040888963407)
  return ((seed >> 33) % m)
end

-- sieve of Eratosthenes: table writes in a regular pattern
local function sieve(limit)
  local comp, count = {}, 0
  for i = 2, limit do
    if not comp[i] then
      count = count + 1
      for j = i * i, limit, i do comp[j] = true end
    end
  end
  return count
end

-- recursive calls
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end

-- sort random records with a closure comparator
local function sort_records(count)
  local t = {}
  for i = 1, count do t[i] = {key = rand(1000), id = i} end
  table.sort(t, function(a, b) if a.key ~= b.key then return a.key < b.key end return a.id < b.id end)
  local h = 0
  for i = 1, count, 7 do h = (h * 31 + t[i].id) % 1000000007 end
  return h
end

-- string building and pattern matching
local function strings(count)
  local parts = {}
  for i = 1, count do parts[i] = string.format("w%d:%x", rand(500), i) end
  local s = table.concat(parts, " ")
  local hits, sum = 0, 0
  for num in s:gmatch("w(%d+):") do
    hits = hits + 1
    sum = sum + tonumber(num)
  end
  return hits, sum
end

-- floating point: a small n-body-like update
local function nbody(steps)
  local xs, vs = {}, {}
  for i = 1, 8 do xs[i] = i * 1.5; vs[i] = 0.0 end
  for _ = 1, steps do
    for i = 1, 8 do
      local f = 0.0
      for j = 1, 8 do
        if i ~= j then
          local d = xs[j] - xs[i]
          f = f + d / (math.abs(d) * d * d + 0.01)
        end
      end
      vs[i] = vs[i] + 0.001 * f
    end
    for i = 1, 8 do xs[i] = xs[i] + 0.001 * vs[i] end
  end
  local e = 0.0
  for i = 1, 8 do e = e + vs[i] * vs[i] end
  return e
end

local primes = sieve(100 * n)
local f = fib(5 + math.min(n, 17))
local h = sort_records(10 * n)
local hits, sum = strings(15 * n)
local e = nbody(n)
print(string.format("lua %d: primes=%d fib=%d sort=%d strings=%d/%d energy=%.10e",
                    n, primes, f, h, hits, sum, e))
