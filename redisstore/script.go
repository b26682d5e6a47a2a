package redisstore

import (
	"sync"

	"github.com/redis/go-redis/v9"
)

// casScript commits one update if no scope changed since it was read.
//
// KEYS: schema, scopes, then per scope (n of them): state key, journal key.
// ARGV: schema version, new token, max entries (<=0: none), max age ms
// (0: none), n, then per scope: expected token ("" = absent), write flag
// ("1" or "0"), scope, state value, the head of a snapshot entry (the
// state JSON and "}" complete it), entry count k, then
// the k entries.
//
// Returns 1 when committed, 2 when this very update (same token) is
// already committed (go-redis resent it after a lost reply), and on a
// conflict the current value of every scope ("" when it has none).
// Every check comes before the first write, so a conflict writes nothing.
// That includes the type of every key it writes: a script that fails
// half way is not rolled back, so a journal that is not a stream must be
// found before the state is set. A key of another type is the error
// "LBWRONGTYPE <its type> <key>".
//
// Hashed on first use, not at start-up (see stateOpts).
var casScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local function wrongtype(key)
  return redis.error_reply('LBWRONGTYPE ' .. redis.call('TYPE', key)['ok'] .. ' ' .. key)
end
local function get(key)
  local v = redis.pcall('GET', key)
  if type(v) == 'table' and v['err'] then return nil, true end
  return v, false
end
local schema, bad = get(KEYS[1])
if bad then return wrongtype(KEYS[1]) end
if schema and schema ~= ARGV[1] then
  return redis.error_reply('LBSCHEMA keys under this prefix have layout version ' .. schema .. ', this loopbreaker reads ' .. ARGV[1])
end
local token = ARGV[2]
local maxlen = tonumber(ARGV[3])
local maxage = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local a = 6
local sc = {}
local conflict = false
local anywrite = false
local allmine = true
for i = 1, n do
  local cur, bad = get(KEYS[1 + 2*i])
  if bad then return wrongtype(KEYS[1 + 2*i]) end
  cur = cur or ''
  local nl = string.find(cur, '\n', 1, true)
  local tok = cur
  if nl then tok = string.sub(cur, 1, nl - 1) end
  local write = ARGV[a + 1] == '1'
  local k = tonumber(ARGV[a + 5])
  sc[i] = {a = a, write = write, k = k}
  if tok ~= ARGV[a] then conflict = true end
  if write then
    anywrite = true
    if tok ~= token then allmine = false end
    local t = redis.call('TYPE', KEYS[2 + 2*i])['ok']
    if t ~= 'stream' and t ~= 'none' then return wrongtype(KEYS[2 + 2*i]) end
  end
  a = a + 6 + k
end
if anywrite and allmine then return 2 end
if conflict then
  -- the current values, so that the caller decides again without a read
  local cur = {}
  for i = 1, n do cur[i] = redis.call('GET', KEYS[1 + 2*i]) or '' end
  return cur
end
local t = redis.call('TYPE', KEYS[2])['ok']
if t ~= 'set' and t ~= 'none' then return wrongtype(KEYS[2]) end
if not schema then redis.call('SET', KEYS[1], ARGV[1]) end
local now = nil
for i = 1, n do
  local s = sc[i]
  if s.write then
    local sk, jk = KEYS[1 + 2*i], KEYS[2 + 2*i]
    redis.call('SET', sk, ARGV[s.a + 3])
    redis.call('SADD', KEYS[2], ARGV[s.a + 2])
    for j = 1, s.k do
      redis.call('XADD', jk, '*', 'e', ARGV[s.a + 5 + j])
    end
    local trimmed = 0
    if maxlen > 0 then
      trimmed = trimmed + redis.call('XTRIM', jk, 'MAXLEN', '~', maxlen)
    end
    if maxage > 0 then
      if not now then
        local t = redis.call('TIME')
        now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      end
      trimmed = trimmed + redis.call('XTRIM', jk, 'MINID', '~', tostring(now - maxage))
    end
    if trimmed > 0 then
      -- the journal lost its head: a snapshot lets recovery replay from here
      local v = ARGV[s.a + 3]
      local nl = string.find(v, '\n', 1, true)
      redis.call('XADD', jk, '*', 'e', ARGV[s.a + 4] .. string.sub(v, nl + 1) .. '}')
    end
  end
end
return 1
`)
})
