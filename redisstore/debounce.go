package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loopbreaker/loopbreaker/notify"
)

// NotifyGate debounces webhooks fleet-wide: every server on this Redis
// gives its notifications to it (notify.Options.Gate), so that a scope
// gets at most one notification per interval across the fleet, sent by
// exactly one server, and what comes in during an interval is sent, as
// one coalesced notification, by the first server that asks once the
// interval has ended.
//
// Keys, in the prefix's hash slot:
//
//	{P}:n:w:<scope>   end of the scope's current interval (Unix ms)
//	{P}:n:p:<scope>   LIST of the notifications held back (JSON)
//
// Times are the servers' clocks (notify's Clock): keep them in sync
// (NTP) to well under the interval.
func (s *Store) NotifyGate() notify.Gate { return gate{s} }

type gate struct{ s *Store }

// gateScript: KEYS window, held; ARGV now ms, interval ms, force "1"|"0",
// notification JSON ("": none), expiry ms of the keys (garbage bound).
// Returns {until ms} while the interval runs, else {"", held...} (the
// held notifications are removed and a new interval starts when there
// were any).
//
// Hashed on first use, not at start-up (see stateOpts).
var gateScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local now = tonumber(ARGV[1])
if ARGV[4] ~= '' then
  redis.call('RPUSH', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
local w = redis.call('GET', KEYS[1])
if ARGV[3] ~= '1' and w and tonumber(w) > now then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {w} end
  return {''}
end
local held = redis.call('LRANGE', KEYS[2], 0, -1)
if #held == 0 then return {''} end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], tostring(now + tonumber(ARGV[2])), 'PX', ARGV[5])
table.insert(held, 1, '')
return held
`)
})

// heldFor bounds how long gate keys outlive their interval (in Redis's
// own time): a held notification nobody asks for again (its server was
// killed) is sent with the scope's next one, if that comes within a day.
const heldFor = 24 * time.Hour

func (g gate) Take(ctx context.Context, scope string, p *notify.Payload, now time.Time, interval time.Duration, force bool) ([]notify.Payload, time.Time, error) {
	if err := g.s.usable(ctx); err != nil {
		return nil, time.Time{}, err
	}
	if err := checkScope(scope); err != nil {
		return nil, time.Time{}, err
	}
	body := ""
	if p != nil {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("redisstore: encode notification of scope %q: %w", scope, err)
		}
		body = string(b)
	}
	f := "0"
	if force {
		f = "1"
	}
	k := g.s.keys
	res, err := gateScript().Run(ctx, g.s.client, []string{k.prefixTag + "n:w:" + scope, k.prefixTag + "n:p:" + scope},
		now.UnixMilli(), interval.Milliseconds(), f, body, (interval + heldFor).Milliseconds()).StringSlice()
	if err != nil {
		return nil, time.Time{}, g.s.wrap("debounce notification", err)
	}
	if len(res) == 0 {
		return nil, time.Time{}, nil
	}
	if res[0] != "" {
		ms, err := strconv.ParseInt(res[0], 10, 64)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("redisstore: debounce window of scope %q holds %q, not a time; delete the key", scope, res[0])
		}
		return nil, time.UnixMilli(ms), nil
	}
	out := make([]notify.Payload, 0, len(res)-1)
	for _, raw := range res[1:] {
		var q notify.Payload
		if err := json.Unmarshal([]byte(raw), &q); err != nil {
			continue // not ours; never block the others
		}
		out = append(out, q)
	}
	return out, time.Time{}, nil
}
