package hookpolicy

import (
	"context"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// A loopbreaker.yaml switched to enabled: false during a session is said,
// not obeyed: the call is answered with the configuration the session
// started with, in an update that records, and a turn end measures the
// work tree as before. A session that starts switched off records and
// measures nothing, and reads its state once a call.
func TestSwitchedOffDuringTheSession(t *testing.T) {
	off := lb.Defaults()
	off.Enabled = false
	// guarded gives the harness a guard and the engine of any
	// configuration, as the hook command does; measured counts the
	// measures of the work tree.
	guarded := func(h *harness) *int {
		measured := 0
		h.pol.Guard = &Guard{}
		h.pol.EngineFor = func(cfg lb.Config) *breaker.Engine {
			return scoped.EngineFor(cfg, h.pol.Scope, func() time.Time { return h.now })
		}
		h.pol.Files = func(context.Context) (gitrepo.Change, error) {
			measured++
			return gitrepo.Change{Files: h.files}, nil
		}
		return &measured
	}
	// switchOff opens the policy as a hook process does once the files
	// say enabled: false.
	switchOff := func(h *harness) {
		h.pol.Config = off
		h.pol.Service = &breaker.Service{Store: h.store, Engine: h.pol.EngineFor(off)}
	}

	h := newHarness(t, "s")
	measured := guarded(h)
	h.answer(payload(t, "claude", "UserPromptSubmit-prompt.json", nil))
	before := h.state()
	if before.ConfigInForce == "" {
		t.Fatal("no configuration kept at the session's start")
	}
	h.files = []string{"calc.go"}
	switchOff(h)
	h.answer(payload(t, "claude", "Stop-first.json", nil))
	after := h.state()
	if *measured != 1 || after.Iterations != before.Iterations+1 {
		t.Errorf("the turn end after the switch: %d measures, iterations %d → %d; want it measured and recorded", *measured, before.Iterations, after.Iterations)
	}
	if !strings.Contains(h.log.String(), "enabled: true → false") || after.ConfigInForce != before.ConfigInForce {
		t.Errorf("the switch is not said, or the kept configuration changed (%q → %q):\n%s", before.ConfigInForce, after.ConfigInForce, h.log.String())
	}

	fresh := newHarness(t, "t")
	measured = guarded(fresh)
	switchOff(fresh)
	loads := &countingStore{Store: fresh.store}
	fresh.pol.Service.Store = loads
	fresh.files = []string{"calc.go"}
	fresh.answer(payload(t, "claude", "UserPromptSubmit-prompt.json", nil))
	fresh.answer(payload(t, "claude", "Stop-first.json", nil))
	if st := fresh.state(); *measured != 0 || st.Seq != 0 || st.ConfigInForce != "" {
		t.Errorf("a session started switched off: %d measures, seq %d, kept %q; want nothing", *measured, st.Seq, st.ConfigInForce)
	}
	if loads.n != 2 {
		t.Errorf("two calls of a session switched off read the state %d times, want once each", loads.n)
	}
}

// countingStore counts the loads of a state.
type countingStore struct {
	lb.Store
	n int
}

func (s *countingStore) Load(ctx context.Context, scope string) (*lb.BreakerState, error) {
	s.n++
	return s.Store.Load(ctx, scope)
}
