package filestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// stateWith makes a store in dir with n iterations of scope and returns
// its directory.
func stateWith(t *testing.T, dir, scope string, n int) string {
	t.Helper()
	s, err := Open(dir, Options{Now: stepClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range n {
		if err := s.Update(context.Background(), []string{scope}, iterate(10)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// iterationsIn opens dir and returns scope's iteration count and journal
// length.
func iterationsIn(t *testing.T, dir, scope string) (int, int) {
	t.Helper()
	s, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	j, err := s.Journal(context.Background(), scope, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st.Iterations, len(j)
}

// mustMove moves from to to and checks that scope's n iterations and n
// journal entries are all there and from is gone.
func mustMove(t *testing.T, from, to, scope string, n int) {
	t.Helper()
	moved, err := Move(context.Background(), from, to)
	if err != nil || !moved {
		t.Fatalf("Move = %v, %v; want true, nil", moved, err)
	}
	if exists(from) {
		t.Errorf("%s is still there", from)
	}
	if it, entries := iterationsIn(t, to, scope); it != n || entries != n {
		t.Errorf("moved state: %d iterations, %d journal entries; want %d, %d", it, entries, n, n)
	}
}

func TestMoveRenamesAndIsIdempotent(t *testing.T) {
	from := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 3)
	to := filepath.Join(t.TempDir(), "state", "projects", "p-123")
	mustMove(t, from, to, "session:a", 3)
	// Again: nothing to move, nothing changed.
	if moved, err := Move(context.Background(), from, to); err != nil || moved {
		t.Fatalf("second Move = %v, %v; want false, nil", moved, err)
	}
	if it, _ := iterationsIn(t, to, "session:a"); it != 3 {
		t.Errorf("after a second Move: %d iterations, want 3", it)
	}
}

// Processes that open the project at once all try: one moves, the others
// find nothing left to move, and no state is lost or doubled.
func TestMoveConcurrent(t *testing.T) {
	from := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 2)
	to := filepath.Join(t.TempDir(), "p")
	var wg sync.WaitGroup
	results := make([]bool, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func() { defer wg.Done(); results[i], errs[i] = Move(context.Background(), from, to) }()
	}
	wg.Wait()
	n := 0
	for i, m := range results {
		if errs[i] != nil {
			t.Errorf("Move %d: %v", i, errs[i])
		}
		if m {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d Moves reported a move, want 1", n)
	}
	if it, _ := iterationsIn(t, to, "session:a"); it != 2 {
		t.Errorf("%d iterations after the moves, want 2", it)
	}
}

// A destination with breakers of its own is never merged into nor
// overwritten; an empty store there (what opening it creates) is replaced.
func TestMoveDestinationHoldsState(t *testing.T) {
	from := stateWith(t, filepath.Join(t.TempDir(), ".loopbreaker"), "session:a", 1)
	to := stateWith(t, filepath.Join(t.TempDir(), "p"), "session:b", 2)
	_, err := Move(context.Background(), from, to)
	if !errors.Is(err, ErrBothExist) {
		t.Fatalf("Move onto a store with state: %v, want ErrBothExist", err)
	}
	if it, _ := iterationsIn(t, from, "session:a"); it != 1 {
		t.Errorf("source changed: %d iterations", it)
	}
	if it, _ := iterationsIn(t, to, "session:b"); it != 2 {
		t.Errorf("destination changed: %d iterations", it)
	}

	empty := filepath.Join(t.TempDir(), "empty")
	s, err := Open(empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.WriteFile(filepath.Join(empty, ProjectRecordName), []byte("/somewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if moved, err := Move(context.Background(), from, empty); err != nil || !moved {
		t.Fatalf("Move onto an empty store = %v, %v; want true, nil", moved, err)
	}
	if it, _ := iterationsIn(t, empty, "session:a"); it != 1 {
		t.Errorf("%d iterations after the move, want 1", it)
	}
}

// A committed symbolic link named like the state directory (pointing at
// ~/.ssh, say) is not followed nor moved.
func TestMoveRefusesALink(t *testing.T) {
	target := stateWith(t, filepath.Join(t.TempDir(), "elsewhere"), "session:a", 1)
	from := filepath.Join(t.TempDir(), ".loopbreaker")
	if err := os.Symlink(target, from); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	to := filepath.Join(t.TempDir(), "p")
	if _, err := Move(context.Background(), from, to); err == nil || !errorContains(err, "symbolic link") {
		t.Fatalf("Move of a link: %v, want a refusal naming the link", err)
	}
	if exists(to) || !exists(target) {
		t.Errorf("the move did something: to exists %v, target exists %v", exists(to), exists(target))
	}
}

func errorContains(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}
