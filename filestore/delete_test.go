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

func TestDelete(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(10), "agent:a", "agent:b")
	storetest.MustUpdate(t, s, iterate(10), "agent:a")

	// A refusal leaves everything in place and shows the current state.
	var seen *lb.BreakerState
	deleted, err := s.Delete(ctx, "agent:a", func(st *lb.BreakerState) bool { seen = st; return false })
	if err != nil || deleted {
		t.Fatalf("refused Delete = %v, %v; want false, nil", deleted, err)
	}
	if seen == nil || seen.Seq != 2 || seen.Iterations != 2 {
		t.Fatalf("ok saw %+v, want the state at seq 2", seen)
	}
	if got := storetest.MustLoad(t, s, "agent:a"); got.Seq != 2 {
		t.Fatalf("after a refused Delete the state is at seq %d, want 2", got.Seq)
	}

	deleted, err = s.Delete(ctx, "agent:a", nil)
	if err != nil || !deleted {
		t.Fatalf("Delete = %v, %v; want true, nil", deleted, err)
	}
	scopes, err := s.Scopes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(scopes) != 1 || scopes[0] != "agent:b" {
		t.Fatalf("Scopes after Delete = %v, want [agent:b]", scopes)
	}
	if st := storetest.MustLoad(t, s, "agent:a"); st.Seq != 0 || st.State != lb.Closed || st.Iterations != 0 {
		t.Fatalf("a deleted scope loads as %+v, want a new CLOSED state", st)
	}
	if es := storetest.MustJournal(t, s, "agent:a", 0); len(es) != 0 {
		t.Fatalf("a deleted scope still has %d journal entries", len(es))
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.Dir(), scopesDir, ".deleted-*"))
	if len(leftovers) != 0 {
		t.Fatalf("Delete left %v behind", leftovers)
	}

	// It starts over from seq 1, with a journal that is whole.
	storetest.MustUpdate(t, s, iterate(10), "agent:a")
	if n := checkContiguous(t, s, "agent:a"); n != 1 {
		t.Fatalf("re-created scope has %d events, want 1", n)
	}

	// Nothing to delete.
	if deleted, err := s.Delete(ctx, "agent:never", nil); err != nil || deleted {
		t.Fatalf("Delete of an unknown scope = %v, %v; want false, nil", deleted, err)
	}
}

func TestDeleteRefusesCorruptState(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(10), "agent:a")
	f := mustFiles(t, s, "agent:a")
	writeFile(t, f.state, []byte("{not json"))
	called := false
	deleted, err := s.Delete(ctx, "agent:a", func(*lb.BreakerState) bool { called = true; return true })
	if deleted || called || !errors.Is(err, lb.ErrCorruptState) {
		t.Fatalf("Delete of a corrupt state = %v, %v (ok called: %v); want an ErrCorruptState error", deleted, err, called)
	}
	if _, err := os.Stat(f.journal); err != nil {
		t.Fatalf("the journal of a corrupt state must stay for recovery: %v", err)
	}
}

func TestDeleteAfterClose(t *testing.T) {
	s := openStore(t, Options{})
	s.Close()
	if _, err := s.Delete(context.Background(), "agent:a", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Delete after Close = %v, want ErrClosed", err)
	}
}
