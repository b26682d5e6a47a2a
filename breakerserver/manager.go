// Package breakerserver holds the scoped breakers of a long-running
// process: `loopbreaker serve` (its HTTP API, dashboard and metrics) and
// Go programs that use the breakers in-process. A check or an outcome
// comes with a scoped.Context; every breaker whose scope matches it
// records it, and the most restrictive of them decides.
//
// Manager is the API. It owns its store directory: its in-memory states
// are authoritative and every change is in the write-ahead log (or, with
// no log, written through to the store) before a caller gets its answer
// (group commit); a background checkpoint writes the states to the store
// and releases the log. Template breakers that sit idle are evicted.
package breakerserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// Errors callers can test for with errors.Is.
var (
	// ErrNoBreaker: no breaker matches the context of a check or outcome.
	ErrNoBreaker = errors.New("no breaker matches the context")
	// ErrUnknownScope: no breaker has this scope.
	ErrUnknownScope = errors.New("no breaker has this scope")
	// ErrUnavailable: the store cannot be written; the manager refuses
	// decisions until it can (it never answers from unsaved state).
	ErrUnavailable = errors.New("breaker store unavailable")
	// ErrDegraded: some breakers cannot be used (a corrupt state); the
	// others work. Health returns it.
	ErrDegraded = errors.New("degraded")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("scoped breakers are shut down")
)

// InvalidError lists what is wrong with a request, by field.
type InvalidError struct {
	Fields map[string]string
}

func (e *InvalidError) Error() string {
	keys := slices.Sorted(maps.Keys(e.Fields))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + e.Fields[k]
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// Change is one change of state of one breaker. Notify is the breaker's
// notify setting.
type Change struct {
	Scope  string
	Notify bool
	lb.Transition
}

// Options configure a Manager; the zero value is usable.
type Options struct {
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// TemplateKinds: see scoped.NewPolicy (nil: scoped.DefaultTemplateKinds).
	TemplateKinds []string
	// Shared makes every operation one Store.Update with no cache, for a
	// store that other processes write at the same time (several servers
	// on one Redis). The default caches the states in memory and writes
	// every change through (group commit): the manager must then be the
	// only writer of the breakers it serves.
	Shared bool
	// OnChange is called for every change of state, in order, while the
	// breaker is locked: it must not block (queue the work).
	OnChange func(Change)
	// WALDir, when set, makes the cache durable through a write-ahead log
	// in this directory (append-only, one write per batch of changes),
	// checkpointed into the store every CheckpointEvery (default 1 s) and
	// replayed at the next Open after a crash. Without it every batch of
	// changes is written to the store itself before its callers get
	// their answers. Not used in Shared mode.
	WALDir string
	// WALFsync syncs every log write to disk (power-loss safety; a killed
	// process loses nothing either way).
	WALFsync        bool
	CheckpointEvery time.Duration
	// MaxLive bounds the breakers kept in memory (0: DefaultMaxLive;
	// negative: no bound). Beyond it the least recently used ones whose
	// state is all in the store and CLOSED are forgotten from memory
	// (never an OPEN or HALF_OPEN one, nor one with a change not yet in
	// the store); their next use reads them again. Not used in Shared
	// mode.
	MaxLive int
	// OnCommit is called after every store update of the cache: each
	// group commit, or each checkpoint in log mode (not in Shared mode).
	OnCommit func(scopes, entries int, took time.Duration, err error)
	Logger   *slog.Logger
}

// Manager runs the scoped breakers of one configuration over one store.
// It is safe for concurrent use.
type Manager struct {
	policy   *scoped.Policy
	store    lb.Store
	now      func() time.Time
	onChange func(Change)
	log      *slog.Logger
	b        backend
}

// backend keeps the states: in memory with write-through (cache) or only
// in the store (direct).
type backend interface {
	// do runs op on the states of rules' scopes, atomically with respect
	// to every other do on any of them, and returns once its changes are
	// saved.
	do(ctx context.Context, rules []scoped.Rule, op opFunc) error
	list(ctx context.Context) ([]Breaker, error)
	// rule resolves a scope to a known breaker, or ErrUnknownScope.
	known(ctx context.Context, scope string) (scoped.Rule, error)
	get(ctx context.Context, rule scoped.Rule) (Breaker, error)
	evict(ctx context.Context) (int, error)
	// page lists the breakers after a scope, at most limit (0: all).
	page(ctx context.Context, after string, limit int) ([]Breaker, string, error)
	stats() Stats
	health() error
	close() error
}

// opFunc changes states (in place) and returns the journal entries per
// state and the changes to report. A *scopeError names the state that
// broke; the entries and changes of the states changed before it are
// returned with it.
type opFunc func(now time.Time, states []*lb.BreakerState) ([][]lb.JournalEntry, []Change, error)

// scopeError is an engine failure on one scope: its state must be dropped.
type scopeError struct {
	index int
	err   error
}

func (e *scopeError) Error() string { return e.err.Error() }
func (e *scopeError) Unwrap() error { return e.err }

// Deleter is a store that can forget a scope: Delete removes the scope's
// state and journals when ok (called under the store's lock with the
// current state) returns true. filestore.Store implements it.
type Deleter interface {
	Delete(ctx context.Context, scope string, ok func(*lb.BreakerState) bool) (bool, error)
}

// Versioner is a store that tells cheaply whether a scope was written:
// Version changes with every write (0: never written). filestore.Store
// implements it; the cache uses it to notice writes by other processes.
type Versioner interface {
	Version(scope string) (uint64, error)
}

// Pinger is a store that other processes share over a network (Redis):
// Ping is nil while it answers. A shared manager's Health asks it, since
// it holds nothing that would show an outage before a call fails.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Open starts a manager over store with cfg. Unless opts.Shared, it loads
// every state the store holds and the manager must be the store's only
// writer until Close (the CLI takes a lock for that).
func Open(ctx context.Context, store lb.Store, cfg lb.Config, opts Options) (*Manager, error) {
	if store == nil {
		return nil, errors.New("breakerserver: no store")
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	policy, err := scoped.NewPolicy(cfg, opts.TemplateKinds, now)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	onChange := opts.OnChange
	if onChange == nil {
		onChange = func(Change) {}
	}
	m := &Manager{policy: policy, store: store, now: now, onChange: onChange, log: log}
	if opts.Shared {
		m.b = &direct{m: m}
		return m, nil
	}
	maxLive := opts.MaxLive
	switch {
	case maxLive == 0:
		maxLive = DefaultMaxLive
	case maxLive < 0:
		maxLive = 0
	}
	c, err := openCache(ctx, m, cacheOptions{
		onCommit: opts.OnCommit, walDir: opts.WALDir, walFsync: opts.WALFsync, checkpointEvery: opts.CheckpointEvery,
		maxLive: maxLive,
	})
	if err != nil {
		return nil, err
	}
	m.b = c
	return m, nil
}

// Policy is the manager's policy.
func (m *Manager) Policy() *scoped.Policy { return m.policy }

// Decision is the answer to a check, or the state after an outcome.
type Decision struct {
	// DecisionID names this decision; pass it back with its outcome. A
	// half-open probe is tied to it.
	DecisionID string `json:"decision_id"`
	// Allowed says whether the caller may go on.
	Allowed bool `json:"allowed"`
	// Warning: allowed, but a breaker warns (Reason says why).
	Warning bool     `json:"warning"`
	State   lb.State `json:"state"`
	// Scope is the breaker that decided (the most restrictive).
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
	// Probe is true when this decision holds a half-open probe: its
	// outcome closes (success, partial) or reopens (failure, abandoned)
	// that breaker.
	Probe   bool       `json:"probe"`
	RetryAt *time.Time `json:"retry_at,omitempty"`
	// Breakers are every matching breaker, in policy order.
	Breakers []BreakerDecision `json:"breakers"`
}

// BreakerDecision is one matching breaker after the call.
type BreakerDecision struct {
	Breaker
	Allowed    bool           `json:"allowed"`
	HoldsProbe bool           `json:"holds_probe,omitempty"`
	Transition *lb.Transition `json:"transition,omitempty"`
}

// NewDecisionID returns a fresh, unguessable decision id.
func NewDecisionID() string { return "d-" + strings.ToLower(rand.Text()) }

// ValidDecisionID checks a decision id sent by a client.
func ValidDecisionID(id string) string {
	if id == "" {
		return "is required: pass the decision_id the check returned"
	}
	return lb.ScopeValueProblem(id)
}

func (m *Manager) match(c scoped.Context) ([]scoped.Rule, error) {
	if p := c.Problems(); len(p) > 0 {
		fs := map[string]string{}
		for k, v := range p {
			fs["context."+k] = v
		}
		return nil, &InvalidError{Fields: fs}
	}
	rules := m.policy.Match(c)
	if len(rules) == 0 {
		return nil, fmt.Errorf("%w: set agent_id or session (they get %s breakers from breaker_template), or configure a breaker for one of the context's scopes (global matches every context)",
			ErrNoBreaker, strings.Join(m.policy.TemplateKinds(), "/"))
	}
	return rules, nil
}

// Check decides whether the work described by c may go on. Every matching
// breaker is checked, the most restrictive decides. When one denies, no
// half-open probe is taken anywhere (a probe taken by a denied decision
// would never report back); otherwise this decision takes every free probe.
func (m *Manager) Check(ctx context.Context, c scoped.Context) (Decision, error) {
	rules, err := m.match(c)
	if err != nil {
		return Decision{}, err
	}
	id := NewDecisionID()
	if !m.policy.Enabled() {
		return disabled(id), nil
	}
	var d Decision
	err = m.b.do(ctx, rules, func(now time.Time, states []*lb.BreakerState) ([][]lb.JournalEntry, []Change, error) {
		ds := make([]lb.Decision, len(states))
		entries := make([][]lb.JournalEntry, len(states))
		var changes []Change
		blocked := false
		for i, st := range states {
			if blocks(st, rules[i].Config.Cooldown, now) {
				blocked = true
			}
		}
		for i, st := range states {
			if blocked && !blocks(st, rules[i].Config.Cooldown, now) {
				ds[i] = lb.Decision{Scope: st.Scope, State: st.State, Mode: st.Mode, Reason: st.Reason,
					Detector: st.Detector, Allowed: true, Warning: st.Mode == lb.ModeWarning}
				continue
			}
			ev := lb.Event{Kind: lb.EventCheck, Time: now, Caller: id}
			a, err := m.policy.Engine(st.Scope).Apply(st, &ev)
			if err != nil {
				return entries, changes, &scopeError{i, fmt.Errorf("scope %s: %w", st.Scope, err)}
			}
			ds[i] = a.Decision
			if a.Changed {
				entries[i] = journal(st.Scope, &ev, a.Transitions)
				changes = appendChanges(changes, rules[i], a.Transitions)
			}
		}
		d = m.decision(id, rules, states, ds, now)
		return entries, changes, nil
	})
	if err != nil {
		return Decision{}, err
	}
	return d, nil
}

// blocks reports whether a breaker denies a new caller now: OPEN inside
// its cooldown, or HALF_OPEN with a probe held by another decision.
func blocks(st *lb.BreakerState, cooldown time.Duration, now time.Time) bool {
	switch {
	case st.State == lb.Open:
		return st.OpenedAt == nil || now.Before(st.OpenedAt.Add(cooldown))
	case st.State == lb.HalfOpen && st.Mode == lb.ModeProbe:
		return st.Probe != nil && now.Before(st.Probe.ExpiresAt)
	}
	return false
}

// Outcome records the reviewed result of decision id in every breaker
// that matches c: failure and abandoned count, partial does not, success
// clears a CLOSED breaker's window; the outcome of the decision holding a
// half-open probe settles it. The returned Decision says whether a new
// caller with this context would now be allowed.
func (m *Manager) Outcome(ctx context.Context, c scoped.Context, o lb.Outcome) (Decision, error) {
	rules, err := m.match(c)
	if err != nil {
		return Decision{}, err
	}
	fs := map[string]string{}
	if msg := ValidDecisionID(o.DecisionID); msg != "" {
		fs["decision_id"] = msg
	}
	if !o.Result.Valid() {
		fs["result"] = fmt.Sprintf("is %q; want success, failure, abandoned or partial", o.Result)
	}
	if len(o.Reason) > 2000 {
		fs["reason"] = "is longer than 2000 bytes; shorten it"
	}
	if len(fs) > 0 {
		return Decision{}, &InvalidError{Fields: fs}
	}
	if !m.policy.Enabled() {
		return disabled(o.DecisionID), nil
	}
	var d Decision
	err = m.b.do(ctx, rules, func(now time.Time, states []*lb.BreakerState) ([][]lb.JournalEntry, []Change, error) {
		out := o
		ev := lb.Event{Kind: lb.EventOutcome, Time: now, Caller: o.DecisionID, Outcome: &out}
		ds, entries, changes, err := m.applyAll(rules, states, ev)
		if err != nil {
			return entries, changes, err
		}
		d = m.decision(o.DecisionID, rules, states, ds, now)
		return entries, changes, nil
	})
	if err != nil {
		return Decision{}, err
	}
	return d, nil
}

// Reset is a person's reset of one breaker: to CLOSED, or with
// r.ProbeFirst to HALF_OPEN waiting for one probe. It works from every
// state, a HALF_OPEN whose probe never reported back included.
func (m *Manager) Reset(ctx context.Context, scope string, r lb.Reset) (Breaker, error) {
	rule, err := m.b.known(ctx, scope)
	if err != nil {
		return Breaker{}, err
	}
	var b Breaker
	err = m.b.do(ctx, []scoped.Rule{rule}, func(now time.Time, states []*lb.BreakerState) ([][]lb.JournalEntry, []Change, error) {
		rs := r
		ev := lb.Event{Kind: lb.EventReset, Time: now, Caller: r.By, Reset: &rs}
		_, entries, changes, err := m.applyAll([]scoped.Rule{rule}, states, ev)
		if err != nil {
			return entries, changes, err
		}
		b = view(m.policy, rule, states[0], now, true)
		return entries, changes, nil
	})
	if err != nil {
		return Breaker{}, err
	}
	return b, nil
}

// List describes every breaker: the configured ones and the template ones
// in use, sorted by scope.
func (m *Manager) List(ctx context.Context) ([]Breaker, error) { return m.b.list(ctx) }

// ListPage describes the breakers whose scope sorts after after (""; from
// the first), at most limit of them (0: all), sorted by scope; next is
// the after of the next page ("" when this is the last). Only the page's
// breakers are read.
func (m *Manager) ListPage(ctx context.Context, after string, limit int) (bs []Breaker, next string, err error) {
	return m.b.page(ctx, after, limit)
}

// Stats counts the breakers in memory and those evicted.
func (m *Manager) Stats() Stats { return m.b.stats() }

// DefaultMaxLive is Options.MaxLive's default: about 0.5 to 1 GB of
// breakers with full failure windows, far less for idle ones.
const DefaultMaxLive = 100_000

// Get describes one breaker, with its recent transitions.
func (m *Manager) Get(ctx context.Context, scope string) (Breaker, error) {
	rule, err := m.b.known(ctx, scope)
	if err != nil {
		return Breaker{}, err
	}
	return m.b.get(ctx, rule)
}

// Evict forgets the template breakers that are idle (CLOSED, no failure in
// their window, unused for evict_after) and deletes them from the store
// when it can (a Deleter). It returns how many it evicted.
func (m *Manager) Evict(ctx context.Context) (int, error) { return m.b.evict(ctx) }

// Health is nil when decisions can be made and saved.
func (m *Manager) Health() error { return m.b.health() }

// Close saves what is pending and stops the manager; later calls fail
// with ErrClosed. It does not close the store.
func (m *Manager) Close() error { return m.b.close() }

// applyAll applies ev to every state.
func (m *Manager) applyAll(rules []scoped.Rule, states []*lb.BreakerState, ev lb.Event) ([]lb.Decision, [][]lb.JournalEntry, []Change, error) {
	ds := make([]lb.Decision, len(states))
	entries := make([][]lb.JournalEntry, len(states))
	var changes []Change
	for i, st := range states {
		e := ev // each scope journals its own copy
		a, err := m.policy.Engine(st.Scope).Apply(st, &e)
		if err != nil {
			return ds, entries, changes, &scopeError{i, fmt.Errorf("scope %s: %w", st.Scope, err)}
		}
		ds[i] = a.Decision
		if a.Changed {
			entries[i] = journal(st.Scope, &e, a.Transitions)
			changes = appendChanges(changes, rules[i], a.Transitions)
		}
	}
	return ds, entries, changes, nil
}

// journal is what one applied event adds to a scope's journal.
func journal(scope string, ev *lb.Event, trs []lb.Transition) []lb.JournalEntry {
	list := make([]lb.JournalEntry, 0, 1+len(trs))
	list = append(list, lb.JournalEntry{Time: ev.Time, Scope: scope, Type: lb.EntryEvent, Event: ev})
	for j := range trs {
		list = append(list, lb.JournalEntry{Time: ev.Time, Scope: scope, Type: lb.EntryTransition, Transition: &trs[j]})
	}
	return list
}

func appendChanges(cs []Change, rule scoped.Rule, trs []lb.Transition) []Change {
	for _, t := range trs {
		cs = append(cs, Change{Scope: rule.Scope, Notify: rule.Config.Notify, Transition: t})
	}
	return cs
}

// decision folds the per-breaker decisions into one.
func (m *Manager) decision(id string, rules []scoped.Rule, states []*lb.BreakerState, ds []lb.Decision, now time.Time) Decision {
	best := 0
	for i := range ds {
		if ds[i].Restrictiveness() > ds[best].Restrictiveness() {
			best = i
		}
	}
	b := ds[best]
	d := Decision{
		DecisionID: id, Allowed: b.Allowed, Warning: b.Warning, State: b.State,
		Scope: rules[best].Scope, Reason: b.Reason, RetryAt: b.RetryAt,
		Breakers: make([]BreakerDecision, len(ds)),
	}
	var probes []string
	for i := range ds {
		d.Breakers[i] = BreakerDecision{
			Breaker: view(m.policy, rules[i], states[i], now, false),
			Allowed: ds[i].Allowed, HoldsProbe: ds[i].Probe, Transition: ds[i].Transition,
		}
		if ds[i].Probe {
			probes = append(probes, rules[i].Scope)
		}
	}
	if len(probes) > 0 && d.Allowed {
		d.Probe = true
		if !d.Warning {
			d.Reason = fmt.Sprintf("this decision holds the half-open probe of %s: report its outcome with decision_id %s (success closes the breaker, failure opens it again)",
				strings.Join(probes, ", "), id)
		}
	}
	if !d.Allowed && d.State == lb.Open && d.RetryAt != nil {
		d.Reason = fmt.Sprintf("%s is OPEN: %s; it lets one probe through after %s", d.Scope, d.Reason, d.RetryAt.UTC().Format(time.RFC3339))
	}
	return d
}

func disabled(id string) Decision {
	return Decision{DecisionID: id, Allowed: true, State: lb.Closed, Breakers: []BreakerDecision{},
		Reason: "the breaker is disabled (enabled: false); nothing is checked or recorded"}
}

// validate checks a state loaded from the store.
func validate(st *lb.BreakerState) error {
	if err := breaker.Validate(st); err != nil {
		return fmt.Errorf("scope %s: stored state is unusable (%w); run `loopbreaker recover` to rebuild it from the journal", st.Scope, err)
	}
	return nil
}

// checkScope rejects a scope name that no breaker can have.
func checkScope(scope string) error {
	if err := lb.ValidScope(scope); err != nil {
		return &InvalidError{Fields: map[string]string{"scope": strings.TrimPrefix(err.Error(), fmt.Sprintf("scope %q: ", scope))}}
	}
	return nil
}
