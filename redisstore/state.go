package redisstore

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
)

// A state value is "<token>\n<BreakerState JSON>". The token is random per
// update: it is the compare-and-set version (never reused, unlike a seq
// that starts over after a delete) and lets a resent script recognise its
// own commit.

// newToken returns a fresh version token.
func newToken() string {
	var b [32]byte
	out := strconv.AppendUint(b[:0], rand.Uint64(), 36)
	out = append(out, '.')
	out = strconv.AppendUint(out, rand.Uint64(), 36)
	return string(out)
}

// loaded is one scope as read: its state and the token to compare.
type loaded struct {
	state *lb.BreakerState
	token string // "" when the scope has no state
	// cached: state came from the cache, not yet compared with Redis.
	cached bool
}

// CorruptStateError says which key cannot be read and how to recover. It
// wraps loopbreaker.ErrCorruptState.
type CorruptStateError struct {
	Scope, Key, Problem string
	// journal: the journal is what cannot be read, so it cannot rebuild
	// the state.
	journal bool
}

func (e *CorruptStateError) Error() string {
	if e.journal {
		return fmt.Sprintf("%v: scope %q: Redis key %s %s; run `loopbreaker recover --discard` to start over from CLOSED (it keeps the key aside)",
			lb.ErrCorruptState, e.Scope, e.Key, e.Problem)
	}
	return fmt.Sprintf("%v: scope %q: Redis key %s %s; run `loopbreaker recover` to rebuild it from its journal, or `loopbreaker recover --discard` to start over from CLOSED",
		lb.ErrCorruptState, e.Scope, e.Key, e.Problem)
}

func (e *CorruptStateError) Unwrap() error { return lb.ErrCorruptState }

// What a scope's keys hold, for wrongType.
const (
	holdsState   = "a state (a string)"
	holdsJournal = "a journal (a stream)"
)

// wrongType is the error for a key of scope that holds a Redis type other
// than the one loopbreaker keeps there (want: holdsState, holdsJournal).
func wrongType(scope, key, typ, want string) error {
	return &CorruptStateError{Scope: scope, Key: key, Problem: fmt.Sprintf("holds a %s, not %s", typ, want), journal: want == holdsJournal}
}

// parseValue decodes a state value read for scope.
func (s *Store) parseValue(scope string, v any) (loaded, error) {
	if v == nil {
		return loaded{state: lb.NewBreakerState(scope)}, nil
	}
	raw, ok := v.(string)
	if !ok {
		return loaded{}, &CorruptStateError{Scope: scope, Key: s.keys.state(scope), Problem: fmt.Sprintf("holds a %T, not a state", v)}
	}
	bad := func(format string, a ...any) (loaded, error) {
		return loaded{}, &CorruptStateError{Scope: scope, Key: s.keys.state(scope), Problem: fmt.Sprintf(format, a...)}
	}
	tok, body, ok := bytes.Cut([]byte(raw), []byte("\n"))
	if !ok || len(tok) == 0 {
		return bad("is not a loopbreaker state (%d bytes, no version line)", len(raw))
	}
	var st lb.BreakerState
	if err := decodeState(body, &st); err != nil {
		return bad("holds JSON that does not decode (%d bytes): %v", len(body), err)
	}
	if st.Scope != scope {
		return bad("holds the state of scope %q, not of %q (copied from another key?)", st.Scope, scope)
	}
	if err := st.CheckInvariants(); err != nil {
		return bad("holds an invalid state: %v", err)
	}
	return loaded{state: &st, token: string(tok)}, nil
}

// parseCached is parseValue for a value that exists, decoding it only
// when the cache does not hold its token (and caching it then).
func (s *Store) parseCached(scope, raw string) (loaded, error) {
	if tok, _, ok := strings.Cut(raw, "\n"); ok && tok != "" {
		if st, hit := s.cache.get(scope, tok); hit {
			return loaded{state: st, token: tok}, nil
		}
	}
	l, err := s.parseValue(scope, raw)
	if err == nil {
		s.cache.put(scope, l.token, l.state)
	}
	return l, err
}

// read loads scopes in one round trip (and a second one only when a scope
// has no state, to tell a new scope from a deleted state key).
func (s *Store) read(ctx context.Context, scopes []string) ([]loaded, error) {
	for range s.opts.MaxAttempts {
		out, raced, err := s.readOnce(ctx, scopes)
		if !raced {
			return out, err
		}
		// A first commit landed between the two reads: read again.
	}
	return nil, fmt.Errorf("%w: the states of %s were created and deleted under %d reads in a row; try again", ErrContention, strings.Join(scopes, ", "), s.opts.MaxAttempts)
}

func (s *Store) readOnce(ctx context.Context, scopes []string) ([]loaded, bool, error) {
	ks := make([]string, 0, len(scopes)+1)
	ks = append(ks, s.keys.schema)
	for _, sc := range scopes {
		ks = append(ks, s.keys.state(sc))
	}
	vals, err := s.client.MGet(ctx, ks...).Result()
	if err != nil {
		return nil, false, s.wrap("read breaker state", err)
	}
	if err := s.checkSchema(vals[0]); err != nil {
		return nil, false, err
	}
	out := make([]loaded, len(scopes))
	var absent []int
	for i, sc := range scopes {
		if raw, ok := vals[i+1].(string); ok {
			out[i], err = s.parseCached(sc, raw)
		} else {
			out[i], err = s.parseValue(sc, vals[i+1])
		}
		if err != nil {
			return nil, false, err
		}
		if vals[i+1] == nil {
			absent = append(absent, i)
		}
	}
	if len(absent) > 0 {
		raced, err := s.checkAbsent(ctx, scopes, absent)
		return out, raced, err
	}
	return out, false, nil
}

// checkAbsent looks at the scopes MGET found no state for. MGET reads a
// key of another type (a LIST put there by hand) as missing too: that is
// a corrupt state, not a new breaker. A scope whose state key is gone but
// whose journal is not is refused: coming back CLOSED would silently
// forget an OPEN breaker (a deleted key is not a reset; `loopbreaker
// reset` is). Both keys are read in one MULTI, so that a first commit
// racing with it shows as raced (a state now), never as an orphan journal.
func (s *Store) checkAbsent(ctx context.Context, scopes []string, idx []int) (raced bool, err error) {
	states := make([]*redis.StatusCmd, len(idx))
	journals := make([]*redis.StatusCmd, len(idx))
	_, err = s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for j, i := range idx {
			states[j] = p.Type(ctx, s.keys.state(scopes[i]))
			journals[j] = p.Type(ctx, s.keys.journal(scopes[i]))
		}
		return nil
	})
	if err != nil {
		return false, s.wrap("read breaker journal", err)
	}
	for j, i := range idx {
		sc := scopes[i]
		switch t := states[j].Val(); t {
		case "none":
		case "string":
			raced = true
			continue
		default:
			return false, wrongType(sc, s.keys.state(sc), t, holdsState)
		}
		switch t := journals[j].Val(); t {
		case "none":
		case "stream":
			return false, &CorruptStateError{Scope: sc, Key: s.keys.state(sc),
				Problem: "is missing although the scope has a journal (was the key deleted?)"}
		default:
			return false, wrongType(sc, s.keys.journal(sc), t, holdsJournal)
		}
	}
	return raced, nil
}

// checkSchema checks the schema key's value v (nil: a new prefix): keys
// another layout wrote are refused, never read as this one's.
func (s *Store) checkSchema(v any) error {
	if v == nil {
		return nil
	}
	if got, _ := v.(string); got != SchemaVersion {
		return fmt.Errorf("%w: %s holds %q, this loopbreaker reads %q (use another prefix, or the loopbreaker that wrote them)", ErrSchema, s.keys.schema, got, SchemaVersion)
	}
	return nil
}

// valueBufs hold encoded state values until their script has run.
var valueBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeValueTo renders a state value into buf (the same bytes as
// encodeValue, without its extra copies).
func encodeValueTo(buf *bytes.Buffer, token string, st *lb.BreakerState) error {
	buf.Reset()
	buf.WriteString(token)
	buf.WriteByte('\n')
	return encodeState(buf, st)
}

// encodeValue renders a state value.
func encodeValue(token string, st *lb.BreakerState) (string, error) {
	var buf bytes.Buffer
	if err := encodeValueTo(&buf, token, st); err != nil {
		return "", err
	}
	return buf.String(), nil
}
