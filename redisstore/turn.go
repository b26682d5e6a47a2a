package redisstore

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Turns keep two busy writers of one hot scope (two servers both
// recording on `global`) from losing to each other again and again. With
// compare-and-set alone a writer that lost decides again on the values
// its conflict returned, but by the time its script arrives the other
// writer, which never stops, has usually committed once more; it loses
// again and backs off, and a few batches in a row wait tens of
// milliseconds. So the writer that lost takes the scope's turn (a key
// beside the state, set by the same script that found the conflict, with
// an expiry): until it commits or the turn expires, the script refuses
// every other writer of that scope (turnBlocked), and its own retry on the
// returned values is the next commit. The others wait as after a lost
// compare-and-set (retryWait: the first wait is under 2 ms, and the holder
// commits within about one round trip) and read again.
//
// Only a store told to (TakeTurns: a server, which carries many callers
// and writes the hot scope without pause) takes turns; every store gives
// way to them. A process that makes one update and exits (a CLI record, a
// hook) keeps the plain retries: measured with 32 such writers on one
// breaker, turns doubled the round trips per record and mostly lowered
// the records per second, since a refused writer came back to find
// another's turn.
//
// A turn is only about fairness: every commit is still a compare-and-set
// on the version tokens, so decisions stay linearizable whoever holds
// it, and a writer that stalls or dies holding a turn holds the others
// up for Options.TurnHold at most. Writers that take no turns (an older
// loopbreaker, a WATCH write) are not held up; against them a turn holder
// may still lose, and then retries as before.

// TakeTurns makes the store take the turn of a scope on which it lost a
// compare-and-set; call it before the first update.
func (s *Store) TakeTurns() { s.turns.Store(true) }

// DefaultTurnHold is how long a turn lasts: enough for the writer that
// took it to decide its batch again and send it on a busy machine, short
// enough that a writer killed holding one delays the others little.
const DefaultTurnHold = 10 * time.Millisecond

// turnBlocked is the script's reply when another writer holds the turn of
// a scope the update writes: nothing was written.
const turnBlocked = 3

// giveUpTurns deletes the turns this store holds on scopes, for an update
// that took them and then ended without a commit that would have (its
// decision on the returned states wrote nothing, or failed): the others
// need not wait for them to expire. Best effort: they expire anyway.
func (s *Store) giveUpTurns(ctx context.Context, scopes []string) {
	ks := make([]string, len(scopes))
	for i, sc := range scopes {
		ks[i] = s.keys.turn(sc)
	}
	_ = giveUpScript().Run(ctx, s.client, ks, s.writer).Err()
}

// giveUpScript deletes each of KEYS that holds ARGV[1] (a turn of this
// writer), and no other. Hashed on first use, as casScript.
var giveUpScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
for _, k in ipairs(KEYS) do
  local v = redis.pcall('GET', k)
  if v == ARGV[1] then redis.call('DEL', k) end
end
return 0
`)
})
