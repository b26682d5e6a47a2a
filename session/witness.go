package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// witnessDirName is the directory, beside the state root and not under
// it, that keeps how far each state directory's scopes have gone: a
// state directory deleted or restored from an older copy is then found
// behind its mark (breaker.Service.Witness). It is a second place, not a
// protected one: the agent's user can delete it too (docs/hooks.md says
// what that leaves).
const witnessDirName = "loopbreaker-witness"

// fileWitness keeps the marks of one state directory, one small file
// per scope: "SEQ RESETS".
type fileWitness struct{ dir string }

// witnessFor is the witness of stateDir: under $XDG_STATE_HOME, else
// ~/.local/state; nil when neither is set.
func witnessFor(stateDir string, getenv func(string) string) *fileWitness {
	root := ""
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		root = filepath.Join(x, witnessDirName)
	} else if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		root = filepath.Join(h, ".local", "state", witnessDirName)
	} else {
		return nil
	}
	sum := sha256.Sum256([]byte(realpath.Of(stateDir)))
	return &fileWitness{dir: filepath.Join(root, hex.EncodeToString(sum[:])[:16])}
}

// witnessFileBytes bounds a mark's file: two numbers.
const witnessFileBytes = 64

func (w *fileWitness) Mark(scope string) (lb.WitnessMark, bool) {
	data, err := safeopen.ReadFile(filepath.Join(w.dir, fsname.Escape(scope)), safeopen.NoLinks, witnessFileBytes)
	if err != nil {
		return lb.WitnessMark{}, false
	}
	var m lb.WitnessMark
	if _, err := fmt.Sscanf(strings.TrimSpace(string(data)), "%d %d", &m.Seq, &m.Resets); err != nil {
		return lb.WitnessMark{}, false
	}
	return m, true
}

// SetMark writes the mark whole (a temporary file renamed over the old
// one). A failure is not reported: the witness is a second net, and the
// state itself was saved.
func (w *fileWitness) SetMark(scope string, m lb.WitnessMark) {
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return
	}
	name := filepath.Join(w.dir, fsname.Escape(scope))
	tmp, err := os.CreateTemp(w.dir, ".mark-*")
	if err != nil {
		return
	}
	_, err = fmt.Fprintf(tmp, "%d %d\n", m.Seq, m.Resets)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
