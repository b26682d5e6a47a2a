package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// fileWitness keeps the marks of one state directory, one small file
// per scope: "SEQ RESETS CHECK".
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

// witnessFileBytes bounds a mark's file: two numbers and their check.
const witnessFileBytes = 64

// witnessReads is how many times Mark reads a file whose check fails
// before it takes the mark for missing.
const witnessReads = 3

func (w *fileWitness) Mark(scope string) (lb.WitnessMark, bool) {
	path := filepath.Join(w.dir, fsname.Escape(scope))
	for range witnessReads {
		data, err := safeopen.ReadFile(path, safeopen.NoLinks, witnessFileBytes)
		if err != nil {
			return lb.WitnessMark{}, false
		}
		m, ok, torn := parseWitnessMark(data)
		if !torn {
			return m, ok
		}
	}
	return lb.WitnessMark{}, false
}

// parseWitnessMark reads "SEQ RESETS CHECK". torn: CHECK is not the two
// numbers' (a reader that held the file open while the next SetMark wrote
// it again in place, see atomicfile.Replace, can read old and new bytes
// mixed; taken as they are, a larger number would be a rollback that
// never happened). A mark without CHECK (written before it existed) is
// taken as it is.
func parseWitnessMark(data []byte) (m lb.WitnessMark, ok, torn bool) {
	fields := strings.Fields(string(data))
	if len(fields) < 2 {
		return m, false, false
	}
	seq, err1 := strconv.ParseUint(fields[0], 10, 64)
	resets, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil {
		return m, false, false
	}
	m = lb.WitnessMark{Seq: seq, Resets: resets}
	if len(fields) > 2 && fields[2] != witnessCheck(m) {
		return lb.WitnessMark{}, false, true
	}
	return m, true, false
}

// witnessCheck is the check SetMark writes after a mark's two numbers.
func witnessCheck(m lb.WitnessMark) string {
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE(fmt.Appendf(nil, "%d %d", m.Seq, m.Resets)))
}

// SetMark writes the mark whole: the spare file beside it (".SCOPE.spare",
// which no scope's file is named) filled and swapped with it, so that a
// hook call makes no new file for it (atomicfile.Replace). A failure is
// not reported: the witness is a second net, and the state itself was
// saved.
func (w *fileWitness) SetMark(scope string, m lb.WitnessMark) {
	name := fsname.Escape(scope)
	path, spare := filepath.Join(w.dir, name), filepath.Join(w.dir, "."+name+".spare")
	data := fmt.Appendf(nil, "%d %d %s\n", m.Seq, m.Resets, witnessCheck(m))
	if atomicfile.Replace(path, spare, data, 0o600) == nil {
		return
	}
	// The directory is made when it is first missing, not looked at on
	// every call.
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return
	}
	_ = atomicfile.Replace(path, spare, data, 0o600)
}
