package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Update runs load-apply-save for scopes: one MGET, fn in Go, one
// compare-and-set script that saves the changed states and appends their
// journal entries only if none of the scopes changed since the MGET
// (unchanged scopes are compared too: the decision depended on them). On
// a conflict it reads again and calls fn again on the new states, up to
// MaxAttempts times, then fails with ErrContention.
//
// Round trips: 1 for an update that changes nothing (a check of a CLOSED
// breaker), 2 for one that saves, 2 more per conflict. The entries fn
// returns get their Seq, Scope and Time as in filestore.
func (s *Store) Update(ctx context.Context, scopes []string, fn lb.UpdateFunc) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(scopes) == 0 {
		return errors.New("redisstore: Update without scopes; pass at least one scope")
	}
	if fn == nil {
		return errors.New("redisstore: Update without an UpdateFunc")
	}
	for i, sc := range scopes {
		if err := checkScope(sc); err != nil {
			return err
		}
		if slices.Contains(scopes[:i], sc) {
			return fmt.Errorf("redisstore: scope %q is listed twice in one Update; list each scope once", sc)
		}
	}
	s.count.updates.Add(1)
	return s.submit(&request{ctx: ctx, scopes: scopes, fn: fn, start: time.Now(), wake: make(chan bool, 1)})
}

// retryWait is how long a retry after attempt (0-based) waits before it
// reads afresh: jittered up to a cap that doubles with the attempts, from
// retryBase to retryMax. Measured with 32 clients on one breaker (docs/
// fleet.md): waits growing linearly to 2 ms let the losers collide again
// (11 round trips per record, 1,600/s); 2 ms doubling to 32 ms gives 2
// round trips and 5,800/s. Shorter or constant waits were slower.
func retryWait(attempt int) time.Duration {
	limit := min(retryBase<<min(attempt, 16), retryMax)
	return time.Duration(rand.Int64N(int64(limit)))
}

const (
	retryBase = 2 * time.Millisecond
	retryMax  = 32 * time.Millisecond
)

// immediateRetries is how many conflicts in a row retry at once on the
// states the conflict returned (the first one is often only a cache that
// was behind), before the retries wait and read again: waiting on
// returned states would make them old (measured: 1 beats 0 and 3 on one
// breaker shared by 32 clients).
const immediateRetries = 1

// cached takes the scopes' states out of the cache when every one is
// there, else nil (and leaves the cache as it was). The compare-and-set
// (or, for an update that writes nothing, a read of the tokens) proves
// them current before anything depends on them; keep puts copies back.
// Taking rather than copying is safe: the caller holds the scopes' local
// lock, and a concurrent Load finds no entry and decodes.
func (s *Store) cached(scopes []string) []loaded {
	out := make([]loaded, len(scopes))
	for i, sc := range scopes {
		st, tok, ok := s.cache.take(sc)
		if !ok {
			for j := range i { // untouched: give them back as they are
				s.cache.own(scopes[j], out[j].token, out[j].state)
			}
			return nil
		}
		out[i] = loaded{state: st, token: tok, cached: true}
	}
	return out
}

// attempt is how one try of an update ended.
type attempt struct {
	done  bool
	saved bool     // done by this attempt's script
	stale bool     // decided on cached states that were not current
	next  []loaded // the current states, when the try learnt them
	// turn: this writer holds the turn of every scope that changed, so
	// a retry on next cannot lose to another writer (turn.go).
	turn bool
	// blocked: another writer holds the turn of a scope to write.
	blocked bool
}

// tryUpdate is one attempt of reqs on cur (nil: read first), the states
// of scopes, the union of theirs: done is false on a conflict, when next
// may hold the states the conflict returned.
func (s *Store) tryUpdate(ctx context.Context, scopes []string, reqs []*request, cur []loaded) (attempt, error) {
	fromCache := cur != nil && cur[0].cached
	if cur == nil {
		var err error
		if cur, err = s.read(ctx, scopes); err != nil {
			return attempt{}, err
		}
	}
	states := make([]*lb.BreakerState, len(cur))
	for i := range cur {
		states[i] = cur[i].state
	}
	now := s.opts.Now()
	entries, err := s.decide(states, reqs, now)
	if err != nil {
		return attempt{}, err
	}
	token := newToken()
	keys := make([]string, 0, 2+3*len(scopes))
	keys = append(keys, s.keys.schema, s.keys.scopes)
	args := make([]any, 0, 7+6*len(scopes)+4)
	hold := int64(0) // takes no turns
	if s.turns.Load() {
		hold = s.opts.TurnHold.Milliseconds()
	}
	args = append(args, SchemaVersion, token, s.opts.MaxEntries, s.opts.MaxAge.Milliseconds(), s.writer, hold, len(scopes))
	writes := 0
	for i, sc := range scopes {
		keys = append(keys, s.keys.state(sc), s.keys.journal(sc), s.keys.turn(sc))
		var es []lb.JournalEntry
		if i < len(entries) {
			es = entries[i]
		}
		if len(es) == 0 {
			args = append(args, cur[i].token, "0", sc, "", "", 0)
			continue
		}
		st := states[i]
		buf := valueBufs.Get().(*bytes.Buffer)
		defer valueBufs.Put(buf)
		if err := encodeValueTo(buf, token, st); err != nil {
			return attempt{}, err
		}
		value := buf.Bytes()
		args = append(args, cur[i].token, "1", sc, value, snapshotHead(st, now), len(es))
		for j := range es {
			line, err := json.Marshal(&es[j])
			if err != nil {
				return attempt{}, fmt.Errorf("redisstore: encode journal entry %d of scope %q: %w", es[j].Seq, sc, err)
			}
			args = append(args, line)
		}
		writes++
	}
	if writes == 0 {
		if !fromCache {
			return attempt{done: true}, nil
		}
		// Decided on cached states without writing: valid only if they
		// are still current.
		current, err := s.tokensCurrent(ctx, scopes, cur)
		if current {
			s.keep(scopes, nil, "", states, cur)
		}
		return attempt{done: current, stale: !current}, err
	}
	s.count.scripts.Add(1)
	res, err := casScript().Run(ctx, s.client, keys, args...).Result()
	if err != nil {
		if strings.HasPrefix(err.Error(), "LBSCHEMA") {
			for _, sc := range scopes {
				s.cache.drop(sc)
			}
			return attempt{}, fmt.Errorf("%w: %s", ErrSchema, strings.TrimPrefix(err.Error(), "LBSCHEMA "))
		}
		if rest, ok := strings.CutPrefix(err.Error(), "LBWRONGTYPE "); ok {
			typ, key, _ := strings.Cut(rest, " ")
			for _, sc := range scopes {
				s.cache.drop(sc)
			}
			return attempt{}, s.wrongTypeIn(scopes, key, typ)
		}
		// The reply was lost, perhaps not the commit: ask whether the
		// token is there, unless Redis did not answer in time (asking
		// would wait as long again, and a "no" from another connection
		// proves nothing while the script may still wait to run).
		if s.mayHaveRun(err) && !isTimeout(err) && s.committed(scopes, entries, token) {
			s.keep(scopes, entries, token, states, cur)
			return attempt{done: true, saved: true}, nil
		}
		for _, sc := range scopes {
			s.cache.drop(sc)
		}
		return attempt{}, s.wrapWrite("save breaker state", err)
	}
	if n, ok := res.(int64); ok && n == turnBlocked {
		s.count.turnWaits.Add(1)
		return attempt{blocked: true}, nil
	}
	if n, ok := res.(int64); ok && n != 0 {
		s.keep(scopes, entries, token, states, cur)
		return attempt{done: true, saved: true}, nil
	}
	// A conflict: the script returned the current values, decide on them
	// without reading again (a missing one is read again, with its checks).
	s.count.conflicts.Add(1)
	vals, _ := res.([]any)
	if len(vals) != len(scopes)+1 {
		return attempt{}, nil
	}
	turn, _ := vals[len(scopes)].(int64)
	vals = vals[:len(scopes)]
	next := make([]loaded, len(scopes))
	for i, sc := range scopes {
		v, _ := vals[i].(string)
		if v == "" {
			s.cache.drop(sc)
			return attempt{}, nil
		}
		if next[i], err = s.parseCached(sc, v); err != nil {
			return attempt{}, err
		}
	}
	return attempt{next: next, turn: turn == 1}, nil
}

// wrongTypeIn is the error for key, found by the script to hold a Redis
// type other than loopbreaker's: a corrupt breaker when it is one of
// scopes' keys, else a key of the whole prefix.
func (s *Store) wrongTypeIn(scopes []string, key, typ string) error {
	for _, sc := range scopes {
		switch key {
		case s.keys.state(sc):
			return wrongType(sc, key, typ, holdsState)
		case s.keys.journal(sc):
			return wrongType(sc, key, typ, holdsJournal)
		}
	}
	return fmt.Errorf("redisstore: Redis key %s holds a %s, not what loopbreaker keeps there (docs/fleet.md, Keys); nothing saved. Does another program write under this prefix? Give loopbreaker a prefix of its own (?prefix=NAME), or move the key aside (redis-cli rename)", key, typ)
}

// keep caches copies of the states of a finished update (the caller
// keeps the states themselves): those it saved under its token, those it
// only read (unchanged: no entries) from the cache under their token.
func (s *Store) keep(scopes []string, entries [][]lb.JournalEntry, token string, states []*lb.BreakerState, cur []loaded) {
	for i, sc := range scopes {
		if i < len(entries) && len(entries[i]) > 0 {
			s.cache.putDone(sc, token, states[i])
		} else if cur[i].cached { // taken out of the cache by cached
			s.cache.putDone(sc, cur[i].token, states[i])
		}
	}
}

// tokensCurrent reads the scopes' tokens (one MGET) and tells whether
// they are still those of cur.
func (s *Store) tokensCurrent(ctx context.Context, scopes []string, cur []loaded) (bool, error) {
	ks := make([]string, len(scopes))
	for i, sc := range scopes {
		ks[i] = s.keys.state(sc)
	}
	vals, err := s.client.MGet(ctx, ks...).Result()
	if err != nil {
		return false, s.wrap("read breaker state", err)
	}
	ok := true
	for i, v := range vals {
		raw, _ := v.(string)
		if tok, _, _ := strings.Cut(raw, "\n"); raw == "" || tok != cur[i].token {
			s.cache.drop(scopes[i])
			ok = false
		}
	}
	return ok, nil
}

// committed tells, after a lost reply, whether the update with token was
// saved: every scope it wrote holds the token.
func (s *Store) committed(scopes []string, entries [][]lb.JournalEntry, token string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for i, sc := range scopes {
		if i >= len(entries) || len(entries[i]) == 0 {
			continue
		}
		v, err := s.client.Get(ctx, s.keys.state(sc)).Result()
		if err != nil {
			return false
		}
		if tok, _, _ := strings.Cut(v, "\n"); tok != token {
			return false
		}
	}
	return true
}

// snapshotHead is the start of a snapshot journal entry of st; the script
// appends the state JSON and "}" when a trim cut the journal's head.
func snapshotHead(st *lb.BreakerState, now time.Time) string {
	t, _ := now.MarshalJSON()
	sc, _ := json.Marshal(st.Scope)
	var b strings.Builder
	b.Grow(80 + len(sc))
	b.WriteString(`{"seq":`)
	b.WriteString(strconv.FormatUint(st.Seq, 10))
	b.WriteString(`,"time":`)
	b.Write(t)
	b.WriteString(`,"scope":`)
	b.Write(sc)
	b.WriteString(`,"type":"snapshot","snapshot":`)
	return b.String()
}

// checkScope refuses names that cannot be a key suffix safely.
func checkScope(scope string) error {
	if scope == "" || strings.ContainsAny(scope, "\x00\n") || len(scope) > 1024 {
		return fmt.Errorf("redisstore: scope %q: want a non-empty name on one line (at most 1024 bytes)", scope)
	}
	return nil
}
