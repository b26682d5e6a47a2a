package session

import (
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// A mark is read back as written, again and again through its spare; a
// mark whose check fails (old and new bytes mixed) is no mark, and one
// written before the check existed is read as it is.
func TestWitnessMarkReadsBack(t *testing.T) {
	w := &fileWitness{dir: filepath.Join(t.TempDir(), "w")}
	if _, ok := w.Mark("session:claude"); ok {
		t.Fatal("a mark before any was written")
	}
	for _, m := range []lb.WitnessMark{{Seq: 10999, Resets: 0}, {Seq: 11000, Resets: 0}, {Seq: 7, Resets: 2}} {
		w.SetMark("session:claude", m)
		if got, ok := w.Mark("session:claude"); !ok || got != m {
			t.Fatalf("read %+v, %v; want %+v", got, ok, m)
		}
	}
	path := filepath.Join(w.dir, "session%3aclaude")
	for data, want := range map[string]bool{
		"11999 0 " + witnessCheck(lb.WitnessMark{Seq: 11000}) + "\n": false,
		"42 1\n": true,
		"42\n":   false,
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := w.Mark("session:claude"); ok != want {
			t.Errorf("%q read as a mark: %v, want %v", data, ok, want)
		}
	}
}
