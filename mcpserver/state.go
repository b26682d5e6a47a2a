package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// maxRecentFailures bounds the failures a breaker view lists.
const maxRecentFailures = 10

// Project is one opened view of a project's breakers: its configuration
// and its store. Every method only reads.
type Project struct {
	Config lb.Config
	Store  lb.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Session is the session a call without scope or context asks about.
	Session string
}

// Breaker kinds: where a breaker's settings come from.
const (
	// KindSession: a loop's breaker (a session or slice of `loopbreaker
	// run`, record, check, hook) that no breakers: entry configures; it
	// follows the top-level settings, as `loopbreaker status` shows them.
	KindSession = "session"
	// KindConfigured: a breaker listed under `breakers:` (a session's
	// too: its entry sets its threshold, window and cooldown everywhere).
	KindConfigured = "configured"
	// KindTemplate: a breaker made on first use from `breaker_template:`.
	KindTemplate = "template"
)

// ContextInput describes the work an agent is about to do; it selects the
// breakers that apply, as a check by `loopbreaker serve` would.
type ContextInput struct {
	Category string   `json:"category,omitempty" jsonschema:"the kind of work, e.g. tooling (matches category:X breakers)"`
	Stakes   string   `json:"stakes,omitempty" jsonschema:"how much is at stake, e.g. high (matches stakes:X breakers)"`
	AgentID  string   `json:"agent_id,omitempty" jsonschema:"the agent's id (matches agent:X breakers)"`
	Tags     []string `json:"tags,omitempty" jsonschema:"tags of the work (each matches tag:X breakers)"`
	Session  string   `json:"session,omitempty" jsonschema:"the session or loop name (matches session:X breakers)"`
	Slice    string   `json:"slice,omitempty" jsonschema:"the slice being worked on (matches slice:X breakers)"`
}

func (c ContextInput) scoped() scoped.Context {
	return scoped.Context{Category: c.Category, Stakes: c.Stakes, AgentID: c.AgentID,
		Tags: c.Tags, Session: c.Session, Slice: c.Slice}
}

// StateInput is the input of get_circuit_state: a scope, a context, or
// neither (the server's own session).
type StateInput struct {
	Scope   string        `json:"scope,omitempty" jsonschema:"one breaker's scope: global or kind:value with kind category, stakes, agent, tag, session or slice (e.g. session:default, agent:planner, stakes:high)"`
	Context *ContextInput `json:"context,omitempty" jsonschema:"the work about to be done; every breaker that matches it is shown and the most restrictive decides (give scope or context, not both)"`
}

// Breaker is one breaker as the tools show it.
type Breaker struct {
	Scope string `json:"scope"`
	// Kind is session, configured or template (see the Kind constants).
	Kind string `json:"kind" jsonschema:"session (a loop's breaker, top-level settings), configured (listed under breakers:) or template (made on first use from breaker_template:)"`
	// Known is false when the breaker has no state yet: nothing used it.
	Known    bool            `json:"known" jsonschema:"false when nothing has used this breaker yet (it reads CLOSED)"`
	State    lb.State        `json:"state" jsonschema:"CLOSED, HALF_OPEN or OPEN"`
	Mode     lb.HalfOpenMode `json:"mode,omitempty" jsonschema:"when HALF_OPEN: warning (everyone may go on, with a warning) or probe (one caller at a time)"`
	Allowed  bool            `json:"allowed" jsonschema:"whether a new check would let a caller go on now"`
	Warning  bool            `json:"warning" jsonschema:"allowed, but a detector is close to its threshold"`
	Reason   string          `json:"reason,omitempty"`
	Detector string          `json:"detector,omitempty"`
	// Failures counts reviewed failures inside the window, against
	// FailureThreshold.
	Failures         int     `json:"failures"`
	FailureThreshold int     `json:"failure_threshold"`
	WindowSeconds    float64 `json:"window_seconds"`
	CooldownSeconds  float64 `json:"cooldown_seconds"`
	// RecentFailures are the newest failures inside the window, oldest
	// first, with the decisions they reviewed.
	RecentFailures []lb.Failure `json:"recent_failures" jsonschema:"the newest failures inside the window (at most 10), oldest first, with the ids of the decisions they reviewed"`
	// Counters are the detectors' counts against their thresholds
	// (get_circuit_state only).
	Counters []lb.Counter `json:"counters,omitempty" jsonschema:"each detector's count against its threshold (get_circuit_state only)"`
	OpenedAt *time.Time   `json:"opened_at,omitempty"`
	// RetryAt is when an OPEN breaker's cooldown ends (the next check then
	// goes on as the half-open probe), or when a held probe expires.
	RetryAt *time.Time `json:"retry_at,omitempty" jsonschema:"when an OPEN breaker's cooldown ends (then the next check goes on as the probe), or when a held half-open probe expires"`
	// CooldownRemainingSeconds is the time until RetryAt (0 when due).
	CooldownRemainingSeconds float64   `json:"cooldown_remaining_seconds"`
	Probe                    *lb.Probe `json:"probe,omitempty"`
	Iterations               int       `json:"iterations"`
	TotalOpens               int       `json:"total_opens"`
	UpdatedAt                time.Time `json:"updated_at,omitzero"`
	// Summary is one line for people, e.g.
	// "[OPEN] stakes:high — 3/3 failures, cooldown ends in 45m".
	Summary string `json:"summary"`
	// Error says why the breaker's state cannot be read.
	Error string `json:"error,omitempty" jsonschema:"why the stored state cannot be read (run loopbreaker recover)"`
}

// StateOutput is the answer of get_circuit_state.
type StateOutput struct {
	// Allowed: may the work go on now (the most restrictive breaker decides).
	Allowed bool `json:"allowed" jsonschema:"whether the work may go on now: false when any matching breaker halts it"`
	Warning bool `json:"warning" jsonschema:"allowed, but a breaker warns"`
	// Enabled is the configuration's master switch.
	Enabled bool `json:"enabled"`
	// DecidedBy is the scope of the most restrictive breaker.
	DecidedBy string `json:"decided_by,omitempty"`
	Summary   string `json:"summary"`
	// Breakers are the matching breakers, most restrictive first.
	Breakers []Breaker `json:"breakers" jsonschema:"every matching breaker, most restrictive first"`
}

// ListInput is the input of list_breakers.
type ListInput struct {
	SkipClosed bool `json:"skip_closed,omitempty" jsonschema:"leave CLOSED breakers out"`
}

// ListOutput is the answer of list_breakers.
type ListOutput struct {
	Enabled  bool      `json:"enabled"`
	Open     int       `json:"open"`
	HalfOpen int       `json:"half_open"`
	Closed   int       `json:"closed"`
	Breakers []Breaker `json:"breakers" jsonschema:"the breakers, sorted by scope"`
}

// InputError is a request the tools cannot answer as asked; its message
// says what to send instead.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

func (p *Project) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

func (p *Project) policy() (*scoped.Policy, error) {
	pol, err := scoped.NewPolicy(p.Config, nil, p.Now)
	if err != nil {
		return nil, fmt.Errorf("%w; fix loopbreaker.yaml (see `loopbreaker config`)", err)
	}
	return pol, nil
}

// rule is how one scope's breaker behaves: its kind and engine.
type rule struct {
	scope  string
	kind   string
	engine *breaker.Engine
}

func (p *Project) ruleFor(pol *scoped.Policy, scope string) rule {
	kind := KindTemplate
	switch pol.Rule(scope).Kind {
	case scoped.KindConfigured:
		kind = KindConfigured
	case scoped.KindLoop:
		kind = KindSession
	}
	return rule{scope, kind, pol.Engine(scope)}
}

// CircuitState answers get_circuit_state without changing anything.
func (p *Project) CircuitState(ctx context.Context, in StateInput) (StateOutput, error) {
	pol, err := p.policy()
	if err != nil {
		return StateOutput{}, err
	}
	var rules []rule
	var subject string
	switch {
	case in.Scope != "" && in.Context != nil:
		return StateOutput{}, inputErrorf("give either scope or context, not both")
	case in.Context != nil:
		c := in.Context.scoped()
		if probs := c.Problems(); len(probs) > 0 {
			keys := slices.Sorted(maps.Keys(probs))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = "context." + k + " " + probs[k]
			}
			return StateOutput{}, inputErrorf("invalid context: %s", strings.Join(parts, "; "))
		}
		for _, r := range pol.Match(c) {
			rules = append(rules, p.ruleFor(pol, r.Scope))
		}
		subject = "this context"
	default:
		scope := in.Scope
		if scope == "" {
			if p.Session == "" {
				return StateOutput{}, inputErrorf("give a scope (e.g. session:default) or a context")
			}
			scope = scoped.KindSession + ":" + p.Session
		}
		if err := lb.ValidScope(scope); err != nil {
			return StateOutput{}, inputErrorf("%v; list_breakers shows the scopes in use", err)
		}
		rules = []rule{p.ruleFor(pol, scope)}
		subject = scope
	}
	now := p.now()
	out := StateOutput{Allowed: true, Enabled: p.Config.Enabled, Breakers: make([]Breaker, 0, len(rules))}
	for _, r := range rules {
		b, err := p.view(ctx, r, now, true)
		if err != nil {
			return StateOutput{}, err
		}
		out.Breakers = append(out.Breakers, b)
	}
	// Most restrictive first; the order of the policy breaks ties.
	slices.SortStableFunc(out.Breakers, func(a, b Breaker) int {
		return cmp.Compare(restrictiveness(b), restrictiveness(a))
	})
	if len(out.Breakers) > 0 {
		top := out.Breakers[0]
		out.Allowed, out.Warning = top.Allowed, top.Warning
		if restrictiveness(top) > 0 {
			out.DecidedBy = top.Scope
		}
	}
	out.Summary = stateSummary(out, subject)
	return out, nil
}

// List answers list_breakers: the configured breakers and every breaker
// with a stored state, sorted by scope.
func (p *Project) List(ctx context.Context, in ListInput) (ListOutput, error) {
	pol, err := p.policy()
	if err != nil {
		return ListOutput{}, err
	}
	scopes, err := p.Store.Scopes(ctx)
	if err != nil {
		return ListOutput{}, err
	}
	for _, r := range pol.Configured() {
		if !slices.Contains(scopes, r.Scope) {
			scopes = append(scopes, r.Scope)
		}
	}
	slices.Sort(scopes)
	now := p.now()
	out := ListOutput{Enabled: p.Config.Enabled, Breakers: []Breaker{}}
	for _, sc := range scopes {
		if lb.ValidScope(sc) != nil {
			continue // not a breaker scope (another tool's state)
		}
		b, err := p.view(ctx, p.ruleFor(pol, sc), now, false)
		if err != nil {
			return ListOutput{}, err
		}
		switch b.State {
		case lb.Open:
			out.Open++
		case lb.HalfOpen:
			out.HalfOpen++
		default:
			out.Closed++
		}
		if in.SkipClosed && b.State == lb.Closed && b.Error == "" {
			continue
		}
		out.Breakers = append(out.Breakers, b)
	}
	return out, nil
}

// view reads one breaker's state and describes it as of now. A state that
// cannot be read is described (with Error) rather than failing the call;
// other errors (I/O, cancelled) fail it.
func (p *Project) view(ctx context.Context, r rule, now time.Time, counters bool) (Breaker, error) {
	cfg := r.engine.Config
	b := Breaker{
		Scope: r.scope, Kind: r.kind, State: lb.Closed,
		FailureThreshold: cfg.FailureWindow.Threshold,
		WindowSeconds:    cfg.FailureWindow.Window.Seconds(),
		CooldownSeconds:  cfg.Cooldown.Seconds(),
		RecentFailures:   []lb.Failure{},
	}
	st, err := p.Store.Load(ctx, r.scope)
	if err == nil {
		err = breaker.Validate(st)
	}
	if err != nil {
		if !errors.Is(err, lb.ErrCorruptState) && !errors.Is(err, lb.ErrInvariant) {
			return Breaker{}, fmt.Errorf("read breaker %s: %w", r.scope, err)
		}
		b.Known = true
		b.Error = err.Error() + "; run `loopbreaker recover` to rebuild it from the journal"
		// A breaker that cannot be read halts unless on_error says go on
		// (no state to read: the store is given no say).
		outcome, _ := breaker.OnFailure(ctx, nil, r.scope, p.Config.OnError, err)
		b.Allowed = outcome == breaker.Unguarded || !p.Config.Enabled
		b.Summary = summary(b, now)
		return b, nil
	}
	b.Known = st.Seq > 0 || r.kind == KindConfigured
	status := r.engine.Status(st, now)
	b.State, b.Mode, b.Reason, b.Detector = st.State, st.Mode, st.Reason, st.Detector
	b.Warning = status.Warning
	b.Iterations, b.TotalOpens, b.UpdatedAt = st.Iterations, st.TotalOpens, st.UpdatedAt
	b.OpenedAt, b.Probe = st.OpenedAt, st.Probe
	b.Allowed = allowed(st, cfg, now)
	switch {
	case st.State == lb.Open && st.OpenedAt != nil:
		t := st.OpenedAt.Add(cfg.Cooldown)
		b.RetryAt = &t
	case st.State == lb.HalfOpen && st.Probe != nil && now.Before(st.Probe.ExpiresAt):
		t := st.Probe.ExpiresAt
		b.RetryAt = &t
	}
	if b.RetryAt != nil && b.RetryAt.After(now) {
		b.CooldownRemainingSeconds = b.RetryAt.Sub(now).Seconds()
	}
	cut := now.Add(-cfg.FailureWindow.Window)
	for _, f := range st.Failures {
		if f.Time.After(cut) {
			b.Failures++
			b.RecentFailures = append(b.RecentFailures, f)
		}
	}
	if n := len(b.RecentFailures); n > maxRecentFailures {
		b.RecentFailures = b.RecentFailures[n-maxRecentFailures:]
	}
	if !cfg.Enabled {
		b.Allowed, b.Warning = true, false
	}
	b.Summary = summary(b, now, status.Counters...)
	if counters {
		b.Counters = []lb.Counter{}
		for _, c := range status.Counters {
			// A scoped breaker is fed outcomes: show its other detectors
			// only when something fed them.
			if scoped.IsLoopScope(r.scope) || c.Value > 0 || c.Name == lb.DetectorFailureWindow {
				b.Counters = append(b.Counters, c)
			}
		}
	}
	return b, nil
}

// allowed reports whether a new check would let a caller (not the holder
// of a probe) go on now: an OPEN breaker whose cooldown is over, or a
// HALF_OPEN one whose probe is free, lets the next check through as the
// probe.
func allowed(st *lb.BreakerState, cfg lb.Config, now time.Time) bool {
	switch {
	case st.State == lb.Open:
		return st.OpenedAt != nil && !now.Before(st.OpenedAt.Add(cfg.Cooldown))
	case st.State == lb.HalfOpen && st.Mode == lb.ModeProbe:
		return st.Probe == nil || !now.Before(st.Probe.ExpiresAt)
	}
	return true
}

// restrictiveness orders breakers: halted by OPEN, halted by a held
// probe, warning, not CLOSED, CLOSED.
func restrictiveness(b Breaker) int {
	return lb.Decision{State: b.State, Allowed: b.Allowed, Warning: b.Warning}.Restrictiveness()
}
