package filestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

func TestOpenReadOnlyCreatesNothing(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".loopbreaker")
	s, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load(ctx, "session:default")
	if err != nil || st.State != lb.Closed {
		t.Fatalf("Load of a missing store = %v, %v; want a new CLOSED state", st, err)
	}
	if scopes, err := s.Scopes(ctx); err != nil || len(scopes) != 0 {
		t.Fatalf("Scopes = %q, %v; want none", scopes, err)
	}
	if entries, err := s.Journal(ctx, "session:default", 10); err != nil || len(entries) != 0 {
		t.Fatalf("Journal = %v, %v; want none", entries, err)
	}
	if err := s.Update(ctx, []string{"session:default"}, iterate(1)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Update = %v, want ErrReadOnly", err)
	}
	nothing := func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) { return nil, nil }
	if err := s.Update(ctx, []string{"session:default", "session:x"}, nothing); err != nil {
		t.Fatalf("an Update that changes nothing = %v, want success", err)
	}
	if err := s.Replace(ctx, "session:default", lb.NewBreakerState("session:default")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Replace = %v, want ErrReadOnly", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the state directory exists after read-only use (%v); it must not be created", err)
	}
}

func TestOpenReadOnlyReadsAReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), "session:a")
	storetest.MustUpdate(t, s, iterate(1), "session:a")
	makeReadOnly(t, s.Dir())
	if _, err := Open(s.Dir(), Options{}); err == nil {
		t.Fatal("Open of the read-only directory succeeded; the test would prove nothing")
	}

	ro, err := OpenReadOnly(s.Dir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ro.Load(ctx, "session:a")
	if err != nil || st.Iterations != 2 {
		t.Fatalf("Load = %+v, %v; want the 2 iterations saved", st, err)
	}
	if entries, err := ro.Journal(ctx, "session:a", 0); err != nil || len(entries) != 2 {
		t.Fatalf("Journal = %d entries, %v; want 2", len(entries), err)
	}
	if scopes, err := ro.Scopes(ctx); err != nil || len(scopes) != 1 {
		t.Fatalf("Scopes = %q, %v", scopes, err)
	}
}

func TestOpenReadOnlyRejectsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(file, Options{}); err == nil {
		t.Fatal("OpenReadOnly of a file succeeded, want an error")
	}
}

// chmodTree sets the mode of every directory and file under root.
func chmodTree(t *testing.T, root string, dirMode, fileMode os.FileMode) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, dirMode)
		}
		return os.Chmod(p, fileMode)
	})
	if err != nil {
		t.Fatal(err)
	}
}
