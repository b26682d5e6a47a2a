package redisstore

import (
	"sync"

	"github.com/redis/go-redis/v9"
)

// casScript commits one update if no scope changed since it was read, and
// keeps the turns of hot scopes (turn.go).
//
// KEYS: schema, scopes, then per scope (n of them): state key, journal
// key, turn key.
// ARGV: schema version, new token, max entries (<=0: none), max age ms
// (0: none), this writer's id, how long a turn is held (ms; 0: this
// writer takes none), n, then per
// scope: expected token ("" = absent), write flag ("1" or "0"), scope,
// state value, the head of a snapshot entry (the state JSON and "}"
// complete it), entry count k, then the k entries.
//
// Returns 1 when committed, 2 when this very update (same token) is
// already committed (go-redis resent it after a lost reply), 3 when
// another writer holds the turn of a scope this update writes (nothing
// written; this writer's own turns are given up, so that two writers
// waiting on each other's scopes do not hold each other up), and on a
// conflict the current value of every scope ("" when it has none)
// followed by 1 when this writer now holds the turn of every scope that
// changed, else 0. A writer that finds a scope changed takes the scope's
// turn when nobody else holds it (and it takes turns): until it commits (which gives its turns
// up) or the turn expires, no other writer commits on that scope, so its
// retry on the values returned cannot lose again.
// Every check comes before the first write of a breaker, so a conflict
// writes nothing but turns. That includes the type of every key it
// writes: a script that fails half way is not rolled back, so a journal
// that is not a stream must be found before the state is set. A key of
// another type is the error "LBWRONGTYPE <its type> <key>"; a turn key of
// another type is no turn (turns are only about fairness).
//
// Hashed on first use, not at start-up (see stateOpts).
var casScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local function wrongtype(key)
  return redis.error_reply('LBWRONGTYPE ' .. redis.call('TYPE', key)['ok'] .. ' ' .. key)
end
-- read runs a read command on a string key; bad: the key holds another type
local function read(...)
  local v = redis.pcall(...)
  if type(v) == 'table' and v['err'] then return nil, true end
  return v, false
end
local function get(key) return read('GET', key) end
-- a state value is its token, a newline, then the state: the value's head
-- (read with GETRANGE, not the whole value copied into the script) tells
-- whether its token is tok
local function starts(head, tok)
  if tok == '' then return head == '' end
  return string.sub(head, 1, #tok + 1) == tok .. '\n'
end
local schema, bad = get(KEYS[1])
if bad then return wrongtype(KEYS[1]) end
if schema and schema ~= ARGV[1] then
  return redis.error_reply('LBSCHEMA keys under this prefix have layout version ' .. schema .. ', this loopbreaker reads ' .. ARGV[1])
end
local token = ARGV[2]
local maxlen = tonumber(ARGV[3])
local maxage = tonumber(ARGV[4])
local writer = ARGV[5]
local hold = tonumber(ARGV[6])
local n = tonumber(ARGV[7])
local a = 8
local sc = {}
local conflict = false
local blocked = false
local anywrite = false
local allmine = true
for i = 1, n do
  local want = ARGV[a]
  -- long enough for the token read and this update's own
  local head, bad = read('GETRANGE', KEYS[3*i], 0, math.max(#want, #token))
  if bad then return wrongtype(KEYS[3*i]) end
  local write = ARGV[a + 1] == '1'
  local k = tonumber(ARGV[a + 5])
  local holder, badturn = get(KEYS[2 + 3*i])
  if badturn or not holder then holder = nil end
  sc[i] = {a = a, write = write, k = k, stale = not starts(head, want), holder = holder}
  if sc[i].stale then conflict = true end
  if write then
    anywrite = true
    if not starts(head, token) then allmine = false end
    if holder and holder ~= writer then blocked = true end
    local t = redis.call('TYPE', KEYS[1 + 3*i])['ok']
    if t ~= 'stream' and t ~= 'none' then return wrongtype(KEYS[1 + 3*i]) end
  end
  a = a + 6 + k
end
if anywrite and allmine then return 2 end
if blocked then
  for i = 1, n do
    if sc[i].holder == writer then redis.call('DEL', KEYS[2 + 3*i]) end
  end
  return 3
end
if conflict then
  -- the current values, so that the caller decides again without a read,
  -- and the turns of the scopes that changed
  local cur = {}
  local turns = 1
  for i = 1, n do
    cur[i] = redis.call('GET', KEYS[3*i]) or ''
    local s = sc[i]
    if s.stale then
      if hold > 0 and (s.holder == nil or s.holder == writer) then
        redis.call('SET', KEYS[2 + 3*i], writer, 'PX', hold)
      else
        turns = 0
      end
    end
  end
  cur[n + 1] = turns
  return cur
end
local t = redis.call('TYPE', KEYS[2])['ok']
if t ~= 'set' and t ~= 'none' then return wrongtype(KEYS[2]) end
if not schema then redis.call('SET', KEYS[1], ARGV[1]) end
local now = nil
for i = 1, n do
  local s = sc[i]
  if s.write then
    local sk, jk = KEYS[3*i], KEYS[1 + 3*i]
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
for i = 1, n do
  if sc[i].holder == writer then redis.call('DEL', KEYS[2 + 3*i]) end
end
return 1
`)
})
