package session

import (
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/redisstore"
)

// openStore (re)opens the store: the state directory, read-only or for
// writing, or Redis when the store setting is a redis:// URL (one
// connection pool for both; Redis has no read-only mode to upgrade).
func (s *Session) openStore(readOnly bool) error {
	var store lb.Store
	switch {
	case lb.StoreIsRedis(s.Config.Store):
		if _, ok := s.Store.(*redisstore.Store); ok {
			return nil
		}
		maxEntries := int64(s.Config.Journal.MaxEntries)
		if maxEntries == 0 {
			maxEntries = -1 // journal.max_entries: 0 never trims
		}
		rs, err := redisstore.Open(redisstore.Options{
			URL:      s.Config.Store,
			Username: s.opts.Getenv("LOOPBREAKER_REDIS_USERNAME"), Password: s.opts.Getenv("LOOPBREAKER_REDIS_PASSWORD"),
			MaxEntries: maxEntries, MaxAge: s.Config.Journal.MaxAge, Now: s.opts.Now,
		})
		if err != nil {
			return err
		}
		store = rs
	case s.Config.Store != "":
		// Only the scheme: the rest may hold a password.
		scheme, _, _ := strings.Cut(s.Config.Store, "://")
		if len(scheme) > 16 {
			scheme = scheme[:16] + "..."
		}
		return fmt.Errorf("%w: store %q...: want redis://host:port/db or rediss://... (TLS); leave it empty for the state directory (LOOPBREAKER_DIR)", ErrUsage, scheme)
	default:
		opts := filestore.Options{
			MaxJournalBytes: s.Config.Journal.MaxBytes, KeepJournals: s.Config.Journal.Keep,
			Fsync: s.Config.Journal.Fsync, Now: s.opts.Now,
		}
		if s.opts.Kept != nil {
			opts.Memory = &s.opts.Kept.states
		}
		open := filestore.Open
		if readOnly {
			open = filestore.OpenReadOnly
		}
		fs, err := open(s.StateDir, opts)
		if err != nil {
			return err
		}
		store = fs
	}
	if s.Store != nil {
		s.Store.Close()
	}
	s.Store = store
	s.Service = &breaker.Service{Store: store, Engine: Engine(s.Config, s.Scope, s.opts.Now)}
	if _, files := store.(*filestore.Store); files {
		if w := witnessFor(s.StateDir, s.opts.Getenv); w != nil {
			s.Service.Witness = w
		}
	}
	return s.startNotifier()
}

// Reopen reopens a session opened read-only for writing.
func (s *Session) Reopen() error { return s.openStore(false) }

// StoreName names the store in messages, without a password.
func (s *Session) StoreName() string {
	if rs, ok := s.Store.(*redisstore.Store); ok {
		return rs.String()
	}
	return s.StateDir
}
