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
	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// fileWitness keeps the marks of one state directory, one small file
// per scope: "SEQ RESETS".
type fileWitness struct{ dir string }

// WitnessRoot is lb.WitnessDirName under $XDG_STATE_HOME, else under
// ~/.local/state: beside the state root, not in it, so that deleting a
// state directory (or the whole state root) leaves it. "" when neither is
// set. The agent's user can delete it too (docs/hooks.md says what that
// leaves).
func WitnessRoot(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, lb.WitnessDirName)
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", lb.WitnessDirName)
	}
	return ""
}

// witnessFor is the witness of stateDir, in a directory of WitnessRoot
// named by a hash of its path; nil when there is no root.
func witnessFor(stateDir string, getenv func(string) string) *fileWitness {
	root := WitnessRoot(getenv)
	if root == "" {
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
	_ = atomicfile.Write(name, fmt.Appendf(nil, "%d %d\n", m.Seq, m.Resets), 0o600)
}
