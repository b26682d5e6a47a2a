package filestore

import (
	"errors"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

func TestVersionChangesWithEveryCommit(t *testing.T) {
	s := openStore(t, Options{})
	v0, err := s.Version("agent:a")
	if err != nil || v0 != 0 {
		t.Fatalf("Version of a scope never written = %d, %v; want 0", v0, err)
	}
	seen := map[uint64]bool{}
	for i := range 20 {
		storetest.MustUpdate(t, s, iterate(10), "agent:a") // same size every time
		v, err := s.Version("agent:a")
		if err != nil {
			t.Fatal(err)
		}
		if v == 0 || seen[v] {
			t.Fatalf("commit %d: version %d is zero or was seen before", i, v)
		}
		seen[v] = true
		again, _ := s.Version("agent:a")
		if again != v {
			t.Fatalf("version changed without a write: %d then %d", v, again)
		}
	}
	s.Close()
	if _, err := s.Version("agent:a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Version after Close: %v", err)
	}
}
