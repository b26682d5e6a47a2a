package breakerserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// breakStore makes every store update fail before it reads a state: the
// file the store rolls multi-scope updates forward from is a directory.
// It returns the function that repairs the store.
func breakStore(t *testing.T, dir string) func() {
	t.Helper()
	txn := filepath.Join(dir, "txn.json")
	if err := os.Mkdir(txn, 0o755); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Remove(txn); err != nil {
			t.Fatal(err)
		}
	}
}

// outcomeWithin records an outcome and fails the test if no answer comes
// within bound.
func outcomeWithin(t *testing.T, e *env, c scoped.Context, id string, bound time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := e.m.Outcome(context.Background(), c, lb.Outcome{DecisionID: id, Result: lb.OutcomeFailure})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("outcome %s: no answer within %s", id, bound)
		return nil
	}
}

// In write-through mode a store that fails before the update reads any
// state answers every waiting caller with ErrUnavailable at once, and
// the change it refused is not applied later: not in memory (a read does
// not show it), not in the store once the store works again.
func TestWriteThroughStoreErrorAnswersAndDropsTheChange(t *testing.T) {
	e := newEnv(t, writeThrough, testConfig())
	bob := scoped.Context{AgentID: "bob", Stakes: "high"}
	e.outcome(bob, "d-1", lb.OutcomeFailure)

	repair := breakStore(t, e.dir)
	err := outcomeWithin(t, e, bob, "d-2", 30*time.Second) // a hang detector
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not applied") {
		t.Fatalf("outcome on a failing store: %v, want ErrUnavailable saying the change was not applied", err)
	}
	if err := e.m.Health(); err == nil {
		t.Error("health is ok right after a failed write")
	}
	if b := e.get("agent:bob"); b.Failures != 1 {
		t.Errorf("agent:bob shows %d failures after the refused outcome, want 1 (only what is durable)", b.Failures)
	}

	repair()
	d := e.outcome(bob, "d-3", lb.OutcomeFailure)
	if b := breakerOf(t, d, "stakes:high"); b.Failures != 2 || b.State != lb.Open {
		t.Fatalf("stakes:high after the store works again: %s with %d failures, want OPEN with 2 (d-1, d-3)", b.State, b.Failures)
	}
	for _, scope := range []string{"agent:bob", "stakes:high"} {
		st, err := e.store.Load(context.Background(), scope)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range st.Failures {
			ids = append(ids, f.DecisionID)
		}
		if strings.Join(ids, ",") != "d-1,d-3" {
			t.Errorf("%s stored failures %v, want d-1,d-3 (the refused d-2 never saved)", scope, ids)
		}
	}
	if err := e.m.Health(); err != nil {
		t.Errorf("health after a write succeeded again: %v", err)
	}
}

// A breaker whose state file is corrupt is listed as an error, not as
// CLOSED, and health says degraded while it fails the checks that match
// it (a corrupt global fails every check).
func TestCorruptBreakerIsAnErrorAndHealthSaysSo(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	e.fail(scoped.Context{AgentID: "bob"}, 1)
	e.close()
	if err := writeCorrupt(e.dir, "global"); err != nil {
		t.Fatal(err)
	}
	e.open()
	if _, err := e.m.Check(context.Background(), scoped.Context{AgentID: "bob"}); !errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("check with a corrupt global: %v", err)
	}
	if err := e.m.Health(); err == nil || !strings.Contains(err.Error(), "global") {
		t.Errorf("health with a corrupt global: %v, want degraded naming it", err)
	}
	list, err := e.m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list {
		if b.Scope == "global" && (b.State == lb.Closed || b.Error == "") {
			t.Errorf("corrupt global listed as %s (error %q), want an error", b.State, b.Error)
		}
	}
}
