package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
)

// The rare writes below (recover, discard, compact, evict, migrate) use
// WATCH/MULTI/EXEC: they are not on the decision path, so their extra
// round trip does not matter, and WATCH also covers a value that does not
// parse.

// watch runs fn under WATCH of the scope's state key, retrying on a
// conflict like Update does.
func (s *Store) watch(ctx context.Context, scope string, fn func(tx *redis.Tx) error) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if err := checkScope(scope); err != nil {
		return err
	}
	unlock := s.local.lock([]string{scope})
	defer unlock()
	for range s.opts.MaxAttempts {
		err := s.client.Watch(ctx, fn, s.keys.state(scope), s.keys.schema)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		return err
	}
	return fmt.Errorf("%w: scope %s changed under %d attempts in a row; nothing saved, try again", ErrContention, scope, s.opts.MaxAttempts)
}

// keyTypes are the Redis types of the scope's state and journal keys
// ("none" for a missing one).
func (s *Store) keyTypes(ctx context.Context, tx *redis.Tx, scope string) (state, journal string, err error) {
	var st, jt *redis.StatusCmd
	_, err = tx.Pipelined(ctx, func(p redis.Pipeliner) error {
		st = p.Type(ctx, s.keys.state(scope))
		jt = p.Type(ctx, s.keys.journal(scope))
		return nil
	})
	if err != nil {
		return "", "", s.wrap("read breaker state", err)
	}
	return st.Val(), jt.Val(), nil
}

// lastSeq is the seq of the newest entry of the scope's journal (0: none).
func (s *Store) lastSeq(ctx context.Context, tx *redis.Tx, scope string) (uint64, error) {
	msgs, err := tx.XRevRangeN(ctx, s.keys.journal(scope), "+", "-", 1).Result()
	if err != nil {
		return 0, s.wrap("read journal", err)
	}
	if len(msgs) == 0 {
		return 0, nil
	}
	e, _ := decodeEntry(msgs[0])
	return e.Seq, nil
}

// Replace writes state as the scope's state, at a seq after both the
// current state's and the journal's, and journals it as a snapshot. It
// works when the current value is corrupt: that value is first copied to
// {P}:corrupt:<scope>:<unix nanoseconds>.
func (s *Store) Replace(ctx context.Context, scope string, state *lb.BreakerState) error {
	if state == nil {
		return errors.New("redisstore: Replace with a nil state; pass loopbreaker.NewBreakerState(scope) to start over")
	}
	st := *state
	if st.Scope == "" {
		st.Scope = scope
	}
	if st.Scope != scope {
		return fmt.Errorf("redisstore: Replace of scope %q with the state of scope %q; set state.Scope to %q", scope, st.Scope, scope)
	}
	if err := st.CheckInvariants(); err != nil {
		return fmt.Errorf("redisstore: not saving scope %q: %w", scope, err)
	}
	return s.watch(ctx, scope, func(tx *redis.Tx) error {
		vals, err := tx.MGet(ctx, s.keys.schema, s.keys.state(scope)).Result()
		if err != nil {
			return s.wrap("read breaker state", err)
		}
		if err := s.checkSchema(vals[0]); err != nil {
			return err
		}
		// A key of another type (MGET reads it as missing) is renamed
		// aside whole, like an unreadable value.
		stateType, journalType, err := s.keyTypes(ctx, tx, scope)
		if err != nil {
			return err
		}
		var base uint64
		cur, perr := s.parseValue(scope, vals[1])
		if perr == nil {
			base = cur.state.Seq
		}
		var maxSeq uint64
		if journalType == "stream" {
			if maxSeq, err = s.lastSeq(ctx, tx, scope); err != nil {
				return err
			}
		}
		next := st
		next.Seq = max(base, maxSeq) + 1
		now := s.opts.Now()
		value, err := encodeValue(newToken(), &next)
		if err != nil {
			return err
		}
		entry, err := json.Marshal(lb.JournalEntry{Seq: next.Seq, Time: now, Scope: scope, Type: lb.EntrySnapshot, Snapshot: &next})
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			aside := fmt.Sprintf("%scorrupt:%s:%d", s.keys.prefixTag, scope, now.UnixNano())
			if perr != nil && vals[1] != nil {
				p.Set(ctx, aside, fmt.Sprint(vals[1]), 0)
			}
			if stateType != "string" && stateType != "none" {
				p.Rename(ctx, s.keys.state(scope), aside)
			}
			if journalType != "stream" && journalType != "none" {
				p.Rename(ctx, s.keys.journal(scope), aside+":journal")
			}
			p.SetNX(ctx, s.keys.schema, SchemaVersion, 0)
			p.Set(ctx, s.keys.state(scope), value, 0)
			p.SAdd(ctx, s.keys.scopes, scope)
			p.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.journal(scope), Values: []any{"e", entry}})
			return nil
		})
		if err != nil && !errors.Is(err, redis.TxFailedErr) {
			return s.wrapWrite("save breaker state", err)
		}
		return err
	})
}

// Delete removes a scope's state and journal when ok (called with the
// current state) returns true; it reports whether it deleted anything.
// Several servers evicting the same idle breaker delete it once: the
// others find no state (or lose the WATCH and find none on the retry).
// A state that cannot be read is an error, never deleted.
func (s *Store) Delete(ctx context.Context, scope string, ok func(*lb.BreakerState) bool) (bool, error) {
	deleted := false
	err := s.watch(ctx, scope, func(tx *redis.Tx) error {
		deleted = false
		cur, err := s.readWatched(ctx, tx, scope)
		if err != nil || cur == nil {
			return err
		}
		if ok != nil && !ok(cur.state) {
			return nil
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, s.keys.state(scope), s.keys.journal(scope))
			p.SRem(ctx, s.keys.scopes, scope)
			return nil
		})
		if err == nil {
			deleted = true
			return nil
		}
		if errors.Is(err, redis.TxFailedErr) {
			return err
		}
		return s.wrapWrite("delete breaker", err)
	})
	return deleted, err
}

// Compact starts the scope's journal over with a snapshot of its state
// (the stream's older entries are dropped; Redis keeps no rotated
// journals). It does nothing for a scope without a state.
func (s *Store) Compact(ctx context.Context, scope string) error {
	return s.watch(ctx, scope, func(tx *redis.Tx) error {
		cur, err := s.readWatched(ctx, tx, scope)
		if err != nil || cur == nil {
			return err
		}
		entry, err := json.Marshal(lb.JournalEntry{Seq: cur.state.Seq, Time: s.opts.Now(), Scope: scope, Type: lb.EntrySnapshot, Snapshot: cur.state})
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, s.keys.journal(scope))
			p.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.journal(scope), Values: []any{"e", entry}})
			return nil
		})
		if err != nil && !errors.Is(err, redis.TxFailedErr) {
			return s.wrapWrite("compact journal", err)
		}
		return err
	})
}

// readWatched reads the scope's state inside a WATCH transaction, after
// checking the prefix's schema; nil when the scope has no state. A state
// that cannot be read is an error.
func (s *Store) readWatched(ctx context.Context, tx *redis.Tx, scope string) (*loaded, error) {
	vals, err := tx.MGet(ctx, s.keys.schema, s.keys.state(scope)).Result()
	if err != nil {
		return nil, s.wrap("read breaker state", err)
	}
	if err := s.checkSchema(vals[0]); err != nil {
		return nil, err
	}
	if vals[1] == nil {
		return nil, nil
	}
	cur, err := s.parseValue(scope, vals[1])
	if err != nil {
		return nil, err
	}
	return &cur, nil
}
