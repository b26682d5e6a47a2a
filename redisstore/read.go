package redisstore

import (
	"context"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
)

// Load reads one scope's state in one round trip; a scope never seen loads
// as a new CLOSED state, an unusable value is a *CorruptStateError.
func (s *Store) Load(ctx context.Context, scope string) (*lb.BreakerState, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	l, err := s.read(ctx, []string{scope})
	if err != nil {
		return nil, err
	}
	return l[0].state, nil
}

// Scopes lists the scopes that have a state, sorted.
func (s *Store) Scopes(ctx context.Context) ([]string, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	scopes, err := s.client.SMembers(ctx, s.keys.scopes).Result()
	if isWrongType(err) {
		typ, _ := s.client.Type(ctx, s.keys.scopes).Result()
		return nil, s.wrongTypeIn(nil, s.keys.scopes, typ)
	}
	if err != nil {
		return nil, s.wrap("list breakers", err)
	}
	slices.Sort(scopes)
	return scopes, nil
}

// Journal returns up to limit of the scope's newest entries, oldest first
// (limit <= 0: the whole stream). An entry that does not decode is left
// out (JournalStats counts them).
func (s *Store) Journal(ctx context.Context, scope string, limit int) ([]lb.JournalEntry, error) {
	msgs, err := s.journalMessages(ctx, scope, limit)
	if err != nil {
		return nil, err
	}
	out := make([]lb.JournalEntry, 0, len(msgs))
	for _, m := range msgs {
		if e, ok := decodeEntry(m); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *Store) journalMessages(ctx context.Context, scope string, limit int) ([]redis.XMessage, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	key := s.keys.journal(scope)
	var msgs []redis.XMessage
	var err error
	if limit <= 0 {
		msgs, err = s.client.XRange(ctx, key, "-", "+").Result()
	} else {
		msgs, err = s.client.XRevRangeN(ctx, key, "+", "-", int64(limit)).Result()
		slices.Reverse(msgs)
	}
	if isWrongType(err) {
		typ, _ := s.client.Type(ctx, key).Result()
		return nil, wrongType(scope, key, typ, holdsJournal)
	}
	return msgs, s.wrap("read journal", err)
}

// isWrongType tells a command's error that its key holds another type.
func isWrongType(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE")
}

func decodeEntry(m redis.XMessage) (lb.JournalEntry, bool) {
	raw, ok := m.Values["e"].(string)
	if !ok {
		return lb.JournalEntry{}, false
	}
	var e lb.JournalEntry
	if err := decodeEntryJSON([]byte(raw), &e); err != nil || e.Type == "" {
		return lb.JournalEntry{}, false
	}
	return e, true
}

// JournalStats describes a scope's journal stream.
type JournalStats struct {
	// Key is the stream's key.
	Key string
	// Entries counts the entries that decode, Skipped those that do not.
	Entries, Skipped  int
	FirstSeq, LastSeq uint64
}

// JournalStats reads the whole journal stream of scope.
func (s *Store) JournalStats(ctx context.Context, scope string) (JournalStats, error) {
	js := JournalStats{Key: s.keys.journal(scope)}
	msgs, err := s.journalMessages(ctx, scope, 0)
	if err != nil {
		return js, err
	}
	for _, m := range msgs {
		e, ok := decodeEntry(m)
		if !ok {
			js.Skipped++
			continue
		}
		if js.Entries == 0 {
			js.FirstSeq = e.Seq
		}
		js.Entries++
		js.LastSeq = e.Seq
	}
	return js, nil
}
