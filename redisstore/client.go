package redisstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	lb "github.com/loopbreaker/loopbreaker"
)

// How long a call waits for Redis, unless the URL says otherwise
// (dial_timeout, read_timeout, write_timeout, pool_timeout). A decision
// should not wait long for a Redis that is down or stopped: on_error, or
// the server's 503, takes over within about a second. go-redis's own
// defaults (5 s to dial, five dials per connection, 3 s reads, three
// retries) made a call wait 2 to 4 s and more.
const (
	DefaultDialTimeout = 500 * time.Millisecond
	DefaultIOTimeout   = time.Second // each read and write
	DefaultPoolTimeout = time.Second // waiting for a free connection
)

// newClient makes the go-redis client of u: one server, or a Redis
// Cluster (every key of a prefix is in one slot, so one node serves it).
// It returns the read timeout in use, for messages.
func newClient(u *url.URL, cluster bool, opts Options) (redis.UniversalClient, time.Duration, error) {
	q := u.Query()
	if err := checkQuery(q); err != nil {
		return nil, 0, err
	}
	// go-redis logs a failed dial to stderr before returning it; every such
	// error reaches the caller, who says it once and clearly. go-redis has
	// only a process-wide logger.
	logging.Disable()
	// One attempt per call: a retry after a timeout doubles the wait, and
	// the retried script could run twice (its token makes that harmless,
	// but not the wait). A stale pooled connection is found by go-redis's
	// health check before use, not by a failed command.
	set := func(dial, read, write, pool *time.Duration, retries, dials *int, user, pass *string) {
		defaults := []struct {
			param string
			field *time.Duration
			value time.Duration
		}{
			{"dial_timeout", dial, DefaultDialTimeout},
			{"read_timeout", read, DefaultIOTimeout},
			{"write_timeout", write, DefaultIOTimeout},
			{"pool_timeout", pool, DefaultPoolTimeout},
		}
		for _, d := range defaults {
			if !q.Has(d.param) {
				*d.field = d.value
			}
		}
		if !q.Has("max_retries") {
			*retries = -1
		}
		if !q.Has("dialer_retries") {
			*dials = 1
		}
		// Each from the environment when the URL has none: a URL may name
		// the ACL user and leave the password to LOOPBREAKER_REDIS_PASSWORD.
		if *user == "" {
			*user = opts.Username
		}
		if *pass == "" {
			*pass = opts.Password
		}
	}
	if cluster {
		co, err := redis.ParseClusterURL(u.String())
		if err != nil {
			return nil, 0, err
		}
		set(&co.DialTimeout, &co.ReadTimeout, &co.WriteTimeout, &co.PoolTimeout, &co.MaxRetries, &co.DialerRetries, &co.Username, &co.Password)
		co.DisableIdentity = true
		return redis.NewClusterClient(co), co.ReadTimeout, nil
	}
	ro, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, 0, err
	}
	if ro.DB < 0 {
		return nil, 0, fmt.Errorf("database %d: want 0 or more (redis://host:port/0)", ro.DB)
	}
	set(&ro.DialTimeout, &ro.ReadTimeout, &ro.WriteTimeout, &ro.PoolTimeout, &ro.MaxRetries, &ro.DialerRetries, &ro.Username, &ro.Password)
	ro.DisableIdentity = true // no CLIENT SETINFO round trip per connection
	return redis.NewClient(ro), ro.ReadTimeout, nil
}

// checkQuery refuses go-redis parameters that go-redis takes without a
// check and then fails on at every command (pool_size=-1 panics), and
// credentials in the query, which go-redis does not read.
func checkQuery(q url.Values) error {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		v := q.Get(name)
		switch name {
		case "password", "username", "user", "pass":
			return fmt.Errorf("?%s= is not read: put the user and password in the URL (redis://user:password@host:port/db) or in LOOPBREAKER_REDIS_USERNAME / LOOPBREAKER_REDIS_PASSWORD", name)
		case "protocol":
			if v != "2" && v != "3" {
				return fmt.Errorf("?protocol=%s: want 2 or 3 (RESP2 or RESP3)", v)
			}
			continue
		}
		least, ok := leastCount(name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("?%s=%s: want a whole number", name, v)
		}
		if n < least {
			return fmt.Errorf("?%s=%d: want %d or more (leave it out for the default)", name, n, least)
		}
	}
	return nil
}

// leastCount is the least value go-redis's integer parameter name can
// take (-1 means "none" for some), and false for other parameters.
func leastCount(name string) (int, bool) {
	switch name {
	case "pool_size", "min_idle_conns", "max_idle_conns", "max_active_conns", "max_concurrent_dials",
		"pipeline_read_buffer_size", "pipeline_write_buffer_size", "dialer_retries", "failing_timeout_seconds", "db":
		return 0, true
	case "max_retries", "max_redirects", "pipeline_pool_size":
		return -1, true
	}
	return 0, false
}

// wrap turns a go-redis error of a call that saved nothing (a read, or a
// write that never reached Redis) into one that says where and what to do;
// it never includes the password (go-redis errors do not carry it). A
// Redis that cannot be reached, or cannot serve now, wraps
// loopbreaker.ErrStoreUnavailable.
func (s *Store) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, redis.ErrClosed) {
		return ErrClosed
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		msg := err.Error()
		switch {
		case strings.HasPrefix(msg, "NOAUTH"), strings.HasPrefix(msg, "WRONGPASS"), strings.Contains(msg, "AUTH"):
			return fmt.Errorf("redisstore: %s on %s: %w (set the user and password in the URL or in LOOPBREAKER_REDIS_USERNAME / LOOPBREAKER_REDIS_PASSWORD)", what, s.redacted, err)
		case strings.HasPrefix(msg, "NOPERM"):
			return fmt.Errorf("redisstore: %s on %s: %w (the ACL user needs read and write on the keys %s* and EVALSHA, EVAL, XADD, XTRIM)", what, s.redacted, err, s.keys.prefixTag)
		case busyReply(msg):
			return fmt.Errorf("redisstore: %s: Redis at %s cannot serve it now (%v): %w; try again in a moment", what, s.redacted, err, lb.ErrStoreUnavailable)
		}
		return fmt.Errorf("redisstore: %s on %s: %w", what, s.redacted, err)
	}
	var op *net.OpError
	if !errors.As(err, &op) && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("redisstore: %s on %s: %w", what, s.redacted, err) // the caller's context
	}
	if s.noteStall(err) {
		return fmt.Errorf("redisstore: %s: Redis at %s did not answer within %v (%v): %w (is redis-server stopped, or overloaded? read_timeout in the URL sets the wait)", what, s.redacted, s.readTimeout, err, lb.ErrStoreUnavailable)
	}
	return fmt.Errorf("redisstore: %s: Redis at %s is unreachable (%v): %w (is redis-server running? the store is set by store, LOOPBREAKER_STORE or --store)", what, s.redacted, err, lb.ErrStoreUnavailable)
}

// wrapWrite is wrap for a write: when the write may have reached Redis
// and run although its reply was lost, the error says so
// (loopbreaker.ErrUnconfirmed) rather than "nothing was saved".
func (s *Store) wrapWrite(what string, err error) error {
	if err == nil || !s.mayHaveRun(err) {
		return s.wrap(what, err)
	}
	s.noteStall(err)
	return fmt.Errorf("redisstore: %s: Redis at %s did not confirm it (%v): %w; read the breaker (loopbreaker status) before sending it again", what, s.redacted, err, lb.ErrUnconfirmed)
}

// mayHaveRun tells whether a command that failed with err may have
// reached Redis and run: not when Redis answered with an error, the dial
// or the write failed, no connection was free, or the caller's context
// ended before it was sent; yes when the reply was lost (a read that timed
// out, a connection that broke). With retries (max_retries in the URL) an
// earlier attempt may have run whatever the last one's error.
func (s *Store) mayHaveRun(err error) bool {
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return false
	}
	if s.retries {
		return true
	}
	if errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted) || errors.Is(err, redis.ErrClosed) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op != "dial" && op.Op != "write"
	}
	// go-redis honours the context only while it waits for a connection,
	// not once the command is on the wire.
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// busyReply tells the errors of a Redis that runs but cannot serve a
// command now (loading its data, a long script, no master): nothing ran.
func busyReply(msg string) bool {
	for _, p := range []string{"LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// noteStall records a timeout (Redis did not answer in time), so that the
// updates of this process queued behind the one that waited fail at once
// instead of each waiting in turn; it reports whether err is one.
func (s *Store) noteStall(err error) bool {
	if !isTimeout(err) {
		return false
	}
	s.stalled.Store(time.Now().UnixNano())
	return true
}

// stalledSince tells whether a call of this process timed out on Redis
// after start.
func (s *Store) stalledSince(start time.Time) bool {
	return s.stalled.Load() > start.UnixNano()
}

// isTimeout tells an error of a network deadline (Redis did not answer in
// time) from one of a broken or refused connection.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
