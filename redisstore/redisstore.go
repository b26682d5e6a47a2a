// Package redisstore is the loopbreaker.Store for fleets: every process on
// every machine that opens the same Redis shares one set of breakers.
//
// Each update over a set of scopes is optimistic: the states are read in
// one round trip (MGET), the engine decides in Go, and one server-side
// script writes the new states and appends their journal entries only if
// no scope changed in between (a compare-and-set on a version token per
// scope); on a conflict the update reads again and retries, a bounded
// number of times. No lock is taken, so a slow or killed client never
// holds anyone up, and a script either runs whole or not at all, so a
// client killed mid-update leaves no torn state.
//
// Key layout under a prefix P (default "loopbreaker"), all in one Redis
// Cluster hash slot through the {P} hash tag:
//
//	{P}:schema        the layout version ("2"); a store refuses another
//	{P}:scopes        SET of the scopes that have a state
//	{P}:s:<scope>     "<version token>\n<BreakerState JSON>" (times as integers in layout 2)
//	{P}:j:<scope>     STREAM: the journal, one entry per message (field e)
//	{P}:n:w:<scope>   end of the scope's webhook debounce interval (NotifyGate)
//	{P}:n:p:<scope>   LIST of the webhooks held back until then
//
// Each Store caches the decoded states it used by version token (cache.go),
// so that a record on a breaker this process wrote last is one round trip.
// A Redis Cluster is opened with cluster=true in the URL.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redact"
)

const (
	// SchemaVersion is the key layout this package reads and writes
	// (codec.go); keys of another are refused.
	SchemaVersion = "2"
	// DefaultPrefix prefixes every key (inside a hash tag).
	DefaultPrefix = "loopbreaker"
	// DefaultMaxEntries is how many journal entries a scope's stream keeps
	// (approximately: Redis trims whole stream nodes).
	DefaultMaxEntries = 10000
	// DefaultMaxAttempts bounds the optimistic retries of one update.
	DefaultMaxAttempts = 200
)

// Errors callers can test for with errors.Is.
var (
	// ErrClosed is returned by every call made after Close.
	ErrClosed = errors.New("redisstore: store is closed; open it again")
	// ErrContention: an update kept losing its compare-and-set to other
	// writers of the same scopes and gave up; nothing was saved.
	ErrContention = errors.New("redisstore: too many concurrent writers on the same breaker")
	// ErrSchema: the keys were written by another layout version.
	ErrSchema = errors.New("redisstore: the keys under this prefix have another layout version")
)

// Options configure a Store. URL is required.
type Options struct {
	// URL is redis://[user[:password]@]host[:port][/db][?prefix=P&...] or
	// rediss:// for TLS. The prefix query parameter sets Prefix; the other
	// parameters are go-redis's (dial_timeout, pool_size, ...; client.go
	// sets shorter waits than go-redis's defaults and checks the counts).
	URL string
	// Username and Password are each used when the URL has none (from
	// the environment: LOOPBREAKER_REDIS_USERNAME, LOOPBREAKER_REDIS_PASSWORD).
	Username, Password string
	// Prefix overrides the URL's prefix ("" : the URL's, else DefaultPrefix).
	Prefix string
	// MaxEntries bounds each scope's journal stream (0: DefaultMaxEntries;
	// negative: unbounded).
	MaxEntries int64
	// MaxAge trims journal entries older than this (0: no age limit).
	MaxAge time.Duration
	// MaxAttempts bounds the compare-and-set attempts of one update
	// (0: DefaultMaxAttempts).
	MaxAttempts int
	// TurnHold is how long a writer that lost a compare-and-set holds the
	// scope's turn (turn.go; 0: DefaultTurnHold; rounded to milliseconds).
	TurnHold time.Duration
	// CachedStates bounds how many decoded states the store keeps to skip
	// reading and decoding them again (0: DefaultCachedStates; negative:
	// none).
	CachedStates int
	// Now is the clock for journal entry times (nil: time.Now).
	Now func() time.Time
}

// Store is a loopbreaker.Store on Redis. It is safe for concurrent use by
// goroutines, processes and machines.
type Store struct {
	client   redis.UniversalClient
	keys     keys
	opts     Options
	redacted string
	closed   chan struct{}
	once     sync.Once
	// local keeps this process's batches and its WATCH writes (admin.go)
	// of a scope apart, so that they queue instead of failing each
	// other's compare-and-set.
	local stripes
	// batch combines concurrent updates into one compare-and-set (batch.go).
	batch batcher
	count counters
	// cache holds decoded states by version token (cache.go).
	cache stateCache
	// readTimeout is how long a call waits for a reply (for messages);
	// retries: go-redis resends a failed command (max_retries in the URL).
	readTimeout time.Duration
	retries     bool
	// stalled is when a call last timed out on Redis (Unix ns; client.go).
	stalled atomic.Int64
	// writer names this store in the turns it takes (turn.go).
	writer string
	// turns: this store takes turns (TakeTurns).
	turns atomic.Bool
}

var _ lb.Store = (*Store)(nil)

// Redact returns the URL with its password (and any credential in its
// query) replaced by "xxxxx", for messages; text that does not parse is
// shortened to its scheme.
func Redact(raw string) string { return redact.URL(raw) }

// Open connects lazily: it checks the URL, not the server, so that a
// process started while Redis is down fails (or goes on, per on_error) at
// its first call and recovers when Redis is back, without a restart.
func Open(opts Options) (*Store, error) {
	if opts.URL == "" {
		return nil, errors.New("redisstore: no URL; set store: redis://host:6379/0")
	}
	redacted := Redact(opts.URL)
	u, err := url.Parse(opts.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, password and all
		}
		return nil, fmt.Errorf("redisstore: store %s: %v; want redis://[user:password@]host:port/db", redacted, err)
	}
	q := u.Query()
	prefix := q.Get("prefix")
	q.Del("prefix")
	cluster := q.Has("cluster")
	if c := q.Get("cluster"); cluster && c != "true" && c != "1" {
		return nil, fmt.Errorf("redisstore: store %s: cluster=%q; want cluster=true (a Redis Cluster: the URL's host and any addr= parameters are seed nodes)", redacted, c)
	}
	q.Del("cluster")
	u.RawQuery = q.Encode()
	if opts.Prefix != "" {
		prefix = opts.Prefix
	}
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if strings.ContainsAny(prefix, "{}") {
		return nil, fmt.Errorf("redisstore: prefix %q: braces are not allowed (the store adds its own hash tag)", prefix)
	}
	client, readTimeout, err := newClient(u, cluster, opts)
	if err != nil {
		msg := err.Error()
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
		return nil, fmt.Errorf("redisstore: store %s: %s", redacted, msg)
	}
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.CachedStates == 0 {
		opts.CachedStates = DefaultCachedStates
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.TurnHold < time.Millisecond {
		opts.TurnHold = DefaultTurnHold
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.URL = ""
	opts.Password = ""
	s := &Store{
		client: client, keys: newKeys(prefix), opts: opts,
		redacted: redacted, closed: make(chan struct{}),
		cache:       stateCache{max: opts.CachedStates},
		readTimeout: readTimeout,
		writer:      newToken(),
		retries:     q.Has("max_retries") && q.Get("max_retries") != "-1",
	}
	client.AddHook(&s.count.roundTrips)
	return s, nil
}

// Client is the underlying go-redis client (benchmarks add hooks to it).
func (s *Store) Client() redis.UniversalClient { return s.client }

// Prefix is the key prefix in use.
func (s *Store) Prefix() string { return s.keys.prefix }

// String is the store's URL without its password.
func (s *Store) String() string { return s.redacted }

// Close closes the connections; further calls fail with ErrClosed.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.client.Close()
	})
	return err
}

func (s *Store) usable(ctx context.Context) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	return ctx.Err()
}

// Ping asks Redis to answer (one round trip): nil when it does, else the
// same error a call would get.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	return s.wrap("ping", s.client.Ping(ctx).Err())
}
