package breaker

import (
	"fmt"
	"slices"
	"sync"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// Breaker is an in-process breaker for one loop, safe for concurrent use:
// the library form of loopbreaker (recordProgress, recordError,
// check, reset, getStatus). It keeps its state in memory; use Service with
// a Store to persist it.
type Breaker struct {
	mu      sync.Mutex
	engine  Engine
	state   *lb.BreakerState
	pending []lb.ErrorText
	// caller is this breaker's identity for events that name none.
	caller string
	// broken is why the state was dropped; every later call reports it.
	broken error
	// OnTransition, when set, is called after every state change, outside
	// the lock, with the transition.
	onTransition func(lb.Transition)
}

// Option configures a Breaker.
type Option func(*Breaker)

// WithClock injects the clock (tests, replays).
func WithClock(now func() time.Time) Option { return func(b *Breaker) { b.engine.Now = now } }

// WithState starts from a saved state instead of a new CLOSED one; the
// breaker changes s in place from then on.
func WithState(s *lb.BreakerState) Option { return func(b *Breaker) { b.state = s } }

// WithCaller names the loop this breaker guards (default "local"); the
// half-open probe is tied to it.
func WithCaller(name string) Option { return func(b *Breaker) { b.caller = name } }

// OnTransition registers a listener for state changes.
func OnTransition(fn func(lb.Transition)) Option { return func(b *Breaker) { b.onTransition = fn } }

// NewBreaker returns a CLOSED breaker with cfg.
func NewBreaker(scope string, cfg lb.Config, opts ...Option) *Breaker {
	b := &Breaker{engine: Engine{Config: cfg, ownsStates: true}, caller: "local"}
	for _, o := range opts {
		o(b)
	}
	if b.state == nil {
		b.state = lb.NewBreakerState(scope)
	} else {
		// A saved state may share its attempt history with copies
		// (BreakerState.Clone), which the breaker trims in place.
		b.state.Attempts = slices.Clone(b.state.Attempts)
	}
	if err := Validate(b.state); err != nil {
		b.state, b.broken = nil, err
	}
	return b
}

// RecordError notes an error of the current iteration; it is counted when
// the iteration is recorded.
func (b *Breaker) RecordError(text string) {
	b.mu.Lock()
	b.pending = append(b.pending, lb.ErrorText{Raw: errsig.Truncate(text, maxRawErrorText), Signature: errsig.Signature(text)})
	b.mu.Unlock()
}

// Record ends an iteration: it applies it, with the errors noted since the
// last one, and decides whether the loop may go on.
func (b *Breaker) Record(it *lb.Iteration) (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventIteration, Iteration: it}, &d)
	return d, err
}

// RecordProgress records an iteration's progress: files changed, tests
// passing and output length of the iteration that just ended.
func (b *Breaker) RecordProgress(filesChanged, testsPassing int, outputBytes int64) (lb.Decision, error) {
	return b.Record(&lb.Iteration{FilesChanged: &filesChanged, TestsPassing: &testsPassing, OutputBytes: &outputBytes})
}

// RecordToolCall applies one tool call.
func (b *Breaker) RecordToolCall(tc *lb.ToolCall) (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventToolCall, ToolCall: tc}, &d)
	return d, err
}

// RecordOutcome applies the reviewed outcome of a decision.
func (b *Breaker) RecordOutcome(o *lb.Outcome) (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventOutcome, Outcome: o, Caller: o.DecisionID}, &d)
	return d, err
}

// Check asks whether the loop may take its next step.
func (b *Breaker) Check() (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventCheck}, &d)
	return d, err
}

// CheckAs asks on behalf of one of several callers sharing the breaker.
func (b *Breaker) CheckAs(caller string) (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventCheck, Caller: caller}, &d)
	return d, err
}

// Reset is a person's reset.
func (b *Breaker) Reset(r lb.Reset) (d lb.Decision, err error) {
	err = b.decide(&lb.Event{Kind: lb.EventReset, Reset: &r, Caller: r.By}, &d)
	return d, err
}

// Status is the breaker's status (getStatus in other libraries).
func (b *Breaker) Status() lb.Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == nil {
		return lb.Status{State: lb.Open, Reason: fmt.Sprintf("breaker halted after an internal error: %v", b.broken)}
	}
	return b.engine.Status(b.state, b.engine.now())
}

// State returns a copy of the state, for saving: later records do not
// change it.
func (b *Breaker) State() (lb.BreakerState, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == nil {
		return lb.BreakerState{}, b.broken
	}
	cp := b.state.Clone()
	// The breaker trims its attempt history in place: the copy gets its own.
	cp.Attempts = slices.Clone(cp.Attempts)
	return *cp, nil
}

// decide applies ev and fills d, a zero decision, with its decision: the
// callers' result, filled in place (a named result whose address does not
// escape is not copied on return), so that the decision is neither built
// aside nor copied out.
func (b *Breaker) decide(ev *lb.Event, d *lb.Decision) error {
	b.mu.Lock()
	if b.state == nil {
		err := fmt.Errorf("breaker halted after an internal error (create a new one from a saved state): %w", b.broken)
		b.mu.Unlock()
		*d = lb.Decision{State: lb.Open, Reason: err.Error()}
		return err
	}
	if ev.Caller == "" {
		ev.Caller = b.caller
	}
	if len(b.pending) > 0 && ev.Kind == lb.EventIteration {
		ev.Iteration.Errors = append(ev.Iteration.Errors, b.pending...)
		b.pending = b.pending[:0]
	}
	if !b.engine.Config.Enabled {
		*d = lb.Decision{State: b.state.State, Allowed: true, Reason: "the breaker is disabled"}
		b.mu.Unlock()
		return nil
	}
	// Apply changes the state in place: after a broken invariant it cannot
	// be trusted, so the breaker stops (fails closed) rather than guess.
	var ch changes
	if err := b.engine.apply(b.state, ev, &effect{Decision: d, changes: &ch}); err != nil {
		b.state, b.broken = nil, err
		b.mu.Unlock()
		*d = lb.Decision{State: lb.Open, Reason: err.Error()}
		return err
	}
	fn := b.onTransition
	b.mu.Unlock()
	if fn != nil {
		for _, t := range ch.Transitions {
			fn(t)
		}
	}
	return nil
}
