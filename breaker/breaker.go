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
func (b *Breaker) Record(it *lb.Iteration) (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventIteration, Iteration: it})
}

// RecordProgress records an iteration's progress: files changed, tests
// passing and output length of the iteration that just ended.
func (b *Breaker) RecordProgress(filesChanged, testsPassing int, outputBytes int64) (lb.Decision, error) {
	return b.Record(&lb.Iteration{FilesChanged: &filesChanged, TestsPassing: &testsPassing, OutputBytes: &outputBytes})
}

// RecordToolCall applies one tool call.
func (b *Breaker) RecordToolCall(tc *lb.ToolCall) (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventToolCall, ToolCall: tc})
}

// RecordOutcome applies the reviewed outcome of a decision.
func (b *Breaker) RecordOutcome(o *lb.Outcome) (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventOutcome, Outcome: o, Caller: o.DecisionID})
}

// Check asks whether the loop may take its next step.
func (b *Breaker) Check() (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventCheck})
}

// CheckAs asks on behalf of one of several callers sharing the breaker.
func (b *Breaker) CheckAs(caller string) (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventCheck, Caller: caller})
}

// Reset is a person's reset.
func (b *Breaker) Reset(r lb.Reset) (lb.Decision, error) {
	return b.decision(&lb.Event{Kind: lb.EventReset, Reset: &r, Caller: r.By})
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

// decision applies ev and returns its decision. Small enough to be inlined
// into Record and the others, it fills the effect in their frame, so that
// the decision is copied once, not once per call level.
func (b *Breaker) decision(ev *lb.Event) (lb.Decision, error) {
	var a Applied
	err := b.apply(ev, &a)
	return a.Decision, err
}

// apply applies ev and fills a, a zero Applied, with its effect; on error
// a's decision says why the breaker halted.
func (b *Breaker) apply(ev *lb.Event, a *Applied) error {
	b.mu.Lock()
	if b.state == nil {
		err := fmt.Errorf("breaker halted after an internal error (create a new one from a saved state): %w", b.broken)
		b.mu.Unlock()
		a.Decision = lb.Decision{State: lb.Open, Reason: err.Error()}
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
		a.Decision = lb.Decision{State: b.state.State, Allowed: true, Reason: "the breaker is disabled"}
		b.mu.Unlock()
		return nil
	}
	// Apply changes the state in place: after a broken invariant it cannot
	// be trusted, so the breaker stops (fails closed) rather than guess.
	if err := b.engine.apply(b.state, ev, a); err != nil {
		b.state, b.broken = nil, err
		b.mu.Unlock()
		a.Decision = lb.Decision{State: lb.Open, Reason: err.Error()}
		return err
	}
	fn := b.onTransition
	b.mu.Unlock()
	if fn != nil {
		for _, t := range a.Transitions {
			fn(t)
		}
	}
	return nil
}
