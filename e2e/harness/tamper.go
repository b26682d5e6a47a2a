package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Snapshot is what files and directories held at one moment: a file's
// content, a directory's file names with their sizes, or that it was
// missing. An agent's attempt on loopbreaker's configuration, hooks or
// state is compared with Changed.
type Snapshot map[string]string

// Snap records paths.
func Snap(paths ...string) Snapshot {
	s := Snapshot{}
	for _, p := range paths {
		s[p] = describe(p)
	}
	return s
}

func describe(path string) string {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "<missing>"
	case !fi.IsDir():
		b, err := os.ReadFile(path)
		if err != nil {
			return "<unreadable: " + err.Error() + ">"
		}
		return string(b)
	}
	var files []string
	filepath.Walk(path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(path, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return "<dir>\n" + strings.Join(files, "\n")
}

// Changed lists how the recorded paths differ now. A directory counts as
// changed when it is gone or holds no file any more: loopbreaker adds and
// removes files of its own state as it works.
func (s Snapshot) Changed() []string {
	var out []string
	for p, was := range s {
		now := describe(p)
		switch {
		case strings.HasPrefix(was, "<dir>"):
			if !strings.HasPrefix(now, "<dir>") {
				out = append(out, fmt.Sprintf("%s: the directory is gone (%s)", p, now))
			} else if now == "<dir>\n" && was != now {
				out = append(out, fmt.Sprintf("%s: every file of the directory is gone", p))
			}
		case now != was:
			out = append(out, fmt.Sprintf("%s changed:\n--- before\n%s\n--- after\n%s", p, clipText(was, 400), clipText(now, 400)))
		}
	}
	sort.Strings(out)
	return out
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
