package loopbreaker

import (
	"context"
	"errors"
	"time"
)

// EntryType says what a journal entry holds.
type EntryType string

const (
	// EntryEvent holds an Event that was applied (what recovery replays).
	EntryEvent EntryType = "event"
	// EntryTransition holds a Transition the event caused (audit).
	EntryTransition EntryType = "transition"
	// EntrySnapshot holds a whole BreakerState; a rotated journal starts
	// with one so that recovery can replay from it.
	EntrySnapshot EntryType = "snapshot"
)

// JournalEntry is one line of a scope's append-only journal.
type JournalEntry struct {
	// Seq numbers entries per scope, from 1, without gaps; the store sets it.
	Seq        uint64        `json:"seq"`
	Time       time.Time     `json:"time"`
	Scope      string        `json:"scope"`
	Type       EntryType     `json:"type"`
	Event      *Event        `json:"event,omitempty"`
	Transition *Transition   `json:"transition,omitempty"`
	Snapshot   *BreakerState `json:"snapshot,omitempty"`
}

// UpdateFunc changes the loaded states of the scopes passed to Store.Update
// in place and returns the journal entries that describe the change, per
// state (entries[i] belong to states[i]). Returning no entries at all means
// nothing changed: the store writes nothing.
type UpdateFunc func(states []*BreakerState) (entries [][]JournalEntry, err error)

// Store keeps breaker states and their journals.
//
// Update is the only way to change a state: it must run the whole
// load-apply-save for its scopes atomically with respect to every other
// Update on the same scopes, across processes (file locks) or machines
// (Redis transactions). A scope never seen before loads as a new CLOSED
// state. A state that cannot be read is an error wrapping ErrCorruptState;
// it is never replaced by a fresh one.
type Store interface {
	Update(ctx context.Context, scopes []string, fn UpdateFunc) error
	// Load reads one scope's state without locking; a scope never seen
	// loads as a new CLOSED state.
	Load(ctx context.Context, scope string) (*BreakerState, error)
	// Scopes lists the scopes that have a state.
	Scopes(ctx context.Context) ([]string, error)
	// Journal returns up to limit of the scope's most recent entries,
	// oldest first (limit <= 0: all of the current journal).
	Journal(ctx context.Context, scope string, limit int) ([]JournalEntry, error)
	// Replace writes a state rebuilt by recovery (or discarded by a person),
	// journaling a snapshot entry; it works even when the current state is
	// corrupt.
	Replace(ctx context.Context, scope string, state *BreakerState) error
	Close() error
}

// Errors of a store that cannot be reached (a server that is down or does
// not answer), for callers to tell "send it again" from "look first".
var (
	// ErrStoreUnavailable marks a call that never reached the store:
	// nothing was saved, the update may be sent again.
	ErrStoreUnavailable = errors.New("breaker store unavailable; nothing was saved")
	// ErrUnconfirmed marks an update that was sent but not confirmed (the
	// store stopped answering): it may have been saved. Do not send an
	// outcome again before reading the breaker.
	ErrUnconfirmed = errors.New("the store did not confirm the update: it may have been saved")
)
