package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func open(t *testing.T, yaml string, o Options) *Session {
	t.Helper()
	if o.Project == "" {
		o.Project = t.TempDir()
	}
	if yaml != "" {
		if err := os.WriteFile(filepath.Join(o.Project, "loopbreaker.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(t.TempDir(), "state")
	}
	if o.Name == "" {
		o.Name = "loop"
	}
	if o.Now == nil {
		now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
		o.Now = func() time.Time { return now }
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Iterations that change nothing open the session's breaker at the
// threshold its configuration gives, warning one before.
func TestRecordIterationsWithoutProgress(t *testing.T) {
	s := open(t, "no_progress:\n  threshold: 3\n", Options{})
	ctx := context.Background()
	zero := 0
	var states []lb.State
	for range 3 {
		res, err := s.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &zero}})
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, res.Decision.State)
	}
	if got := []lb.State{lb.Closed, lb.HalfOpen, lb.Open}; !equalStates(states, got) {
		t.Fatalf("states %v, want %v", states, got)
	}
	res, err := s.Apply(ctx, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{Guidance: "try the other parser", By: "person"}})
	if err != nil || res.Decision.State != lb.Closed {
		t.Fatalf("after reset: %v %v", res.Decision.State, err)
	}
}

func equalStates(a, b []lb.State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The settings of the session's scope come from its breakers: entry.
func TestScopeSettingsFromBreakersEntry(t *testing.T) {
	s := open(t, "breakers:\n  - scope: session:loop\n    cooldown: 5m\n", Options{})
	if got := s.Service.Engine.Config.Cooldown; got != 5*time.Minute {
		t.Fatalf("cooldown of session:loop %v, want 5m from its breakers entry", got)
	}
	if got := s.Engine("session:other").Config.Cooldown; got != 30*time.Minute {
		t.Fatalf("cooldown of session:other %v, want the default 30m", got)
	}
}

// A bad session name or scope is the caller's mistake, said as such.
func TestUsageErrors(t *testing.T) {
	for _, o := range []Options{{Name: "a\nb"}, {Name: "x", Scope: "no-kind"}} {
		o.Project, o.StateDir = t.TempDir(), t.TempDir()
		if _, err := Open(o); !errors.Is(err, ErrUsage) {
			t.Errorf("Open(%q, scope %q): %v, want a usage error", o.Name, o.Scope, err)
		}
	}
}

// When the breaker itself fails, on_error decides: stop returns the
// error; continue lets the agent go on, loudly.
func TestOnError(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{lb.OnErrorStop, lb.OnErrorContinue} {
		var warn bytes.Buffer
		s := open(t, "on_error: "+mode+"\n", Options{Warn: &warn})
		one := 1
		if _, err := s.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{FilesChanged: &one}}); err != nil {
			t.Fatal(err)
		}
		state := filepath.Join(s.StateDir, "scopes", "session%3aloop", "state.json")
		if err := os.WriteFile(state, []byte(`{"state": {"scope": "session:loop", "state": "OP`), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.Apply(ctx, lb.Event{Kind: lb.EventCheck})
		switch mode {
		case lb.OnErrorStop:
			if err == nil || !errors.Is(err, lb.ErrCorruptState) {
				t.Fatalf("on_error stop: %v, want the corrupt state error", err)
			}
		case lb.OnErrorContinue:
			if err != nil || !res.Decision.Allowed || !res.Decision.Warning || !strings.Contains(warn.String(), "UNGUARDED") {
				t.Fatalf("on_error continue: %+v %v; warned %q", res.Decision, err, warn.String())
			}
		}
	}
}
