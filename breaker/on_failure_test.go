package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// One rule for a breaker that failed to take an event, whoever asks: a
// saved update stands, a state that reads OPEN stops the agent whatever
// on_error says, then on_error decides (stop when it is not known).
func TestOnFailure(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	cfg := lb.Defaults()
	cfg.FailureWindow.Threshold = 2
	st, err := filestore.Open(t.TempDir(), filestore.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := &breaker.Service{Store: st, Engine: &breaker.Engine{Config: cfg, Now: clock.Now}}
	diskFull := errors.New("no space left on device")

	cases := []struct {
		name    string
		store   lb.Store
		onError string
		err     error
		want    breaker.Outcome
	}{
		{"saved", st, lb.OnErrorStop, fmt.Errorf("%w: %w", lb.ErrCommitted, diskFull), breaker.Saved},
		{"stop", st, lb.OnErrorStop, diskFull, breaker.Stop},
		{"continue", st, lb.OnErrorContinue, diskFull, breaker.Unguarded},
		{"configuration unread", st, "", diskFull, breaker.Stop},
		{"no store", nil, lb.OnErrorContinue, diskFull, breaker.Unguarded},
	}
	for _, c := range cases {
		got, d := breaker.OnFailure(ctx, c.store, "session:s", c.onError, c.err)
		if got != c.want {
			t.Errorf("%s: outcome %d, want %d", c.name, got, c.want)
		}
		if got == breaker.Unguarded && (!d.Allowed || !d.Warning || !strings.Contains(d.Reason, "on_error: continue")) {
			t.Errorf("%s: the unguarded decision does not say so: %+v", c.name, d)
		}
	}

	// Two failures open the breaker, through the engine.
	for _, id := range []string{"d1", "d2"} {
		if _, err := svc.Apply(ctx, []string{"session:s"}, lb.Event{Kind: lb.EventOutcome, Outcome: &lb.Outcome{DecisionID: id, Result: lb.OutcomeFailure}}); err != nil {
			t.Fatal(err)
		}
	}
	// The service's method reads its own store.
	for _, onError := range []string{lb.OnErrorContinue, lb.OnErrorStop, ""} {
		got, d := svc.OnFailure(ctx, "session:s", onError, diskFull)
		if got != breaker.OpenDespite || d.Allowed || d.State != lb.Open || !strings.Contains(d.Reason, "could not be recorded: no space left") {
			t.Errorf("on_error %q with the state OPEN: outcome %d, decision %+v; want the halt", onError, got, d)
		}
	}
	if got, _ := breaker.OnFailure(ctx, nil, "session:s", lb.OnErrorContinue, diskFull); got != breaker.Unguarded {
		t.Errorf("no store to read the OPEN state from: outcome %d, want on_error's", got)
	}
}
