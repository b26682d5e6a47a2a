//go:build unix

package hookpolicy

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// writtenFiles lists the files under dir created or changed since before.
func writtenFiles(t *testing.T, dir string, before map[string]fileMark) []string {
	t.Helper()
	var out []string
	for path, m := range treeMarks(t, dir) {
		if old, ok := before[path]; !ok || old != m {
			out = append(out, path)
		}
	}
	return out
}

type fileMark struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func treeMarks(t *testing.T, dir string) map[string]fileMark {
	t.Helper()
	marks := map[string]fileMark{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		var ino uint64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		marks[path] = fileMark{fi.Size(), fi.ModTime(), ino}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return marks
}

// A hook call writes the breaker state and its journal, nothing else: what
// the session remembers is in the state.
func TestFilesWrittenPerHookCall(t *testing.T) {
	h := newHarness(t, "claude")
	warm, warmPost := readCall(t, "claude", "a.go", "toolu_warm")
	h.answer(warm)
	h.answer(warmPost)
	for i, step := range []string{"pre", "post"} {
		pre, post := readCall(t, "claude", "calc.go", fmt.Sprintf("toolu_%d", i))
		p := pre
		if step == "post" {
			h.answer(pre)
			p = post
		}
		before := treeMarks(t, h.pol.StateDir)
		h.answer(p)
		if got := writtenFiles(t, h.pol.StateDir, before); len(got) > 2 {
			t.Errorf("%s wrote %d files, want at most 2 (state and journal): %v", p.Event, len(got), got)
		}
	}
}
