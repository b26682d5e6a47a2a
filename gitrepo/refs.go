package gitrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Bounds on what a refs fingerprint reads, so that a repository with a
// great many loose refs costs a bounded time per measurement.
const (
	maxLooseRefs   = 4096
	maxLooseRefLen = 512
)

// refsFingerprint fingerprints the repository's refs and, in a jj
// repository, its operation log heads: branches, tags, remote-tracking
// refs, bookmarks and every jj operation. Whatever command was run (a
// push, a bookmark moved, a tag, `jj op revert`, `jj workspace add`), the
// history changed when the fingerprint did: it is measured, not read off
// the command. Files are read without starting git: packed-refs by size
// and modification time (it is rewritten whole), each loose ref by its
// content, jj's operation heads by name. "" when none could be read.
func (r *Repo) refsFingerprint() string {
	h := sha256.New()
	read := false
	if common := r.commonDir(); common != "" {
		if fi, err := os.Stat(filepath.Join(common, "packed-refs")); err == nil {
			fmt.Fprintf(h, "packed-refs\x00%d\x00%d\x00", fi.Size(), fi.ModTime().UnixNano())
			read = true
		}
		n := 0
		root := filepath.Join(common, "refs")
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			// A cloned repository is not trusted: only regular files are
			// read (a FIFO would block), links are not followed.
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if n++; n > maxLooseRefs {
				return filepath.SkipAll
			}
			b, err := readSmall(path, maxLooseRefLen)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if ownRef(filepath.ToSlash(rel)) {
				return nil
			}
			h.Write([]byte(rel))
			h.Write([]byte{0})
			h.Write(b)
			read = true
			return nil
		})
	}
	// jj keeps one file per head of its operation log, named by the
	// operation: every operation that changes the repository replaces it.
	if heads, err := os.ReadDir(filepath.Join(r.Root, ".jj", "repo", "op_heads", "heads")); err == nil {
		for _, e := range heads {
			h.Write([]byte("jj\x00"))
			h.Write([]byte(e.Name()))
			read = true
		}
	}
	if !read {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// commonDir is the directory that holds the repository's refs: the git
// directory, or for a linked work tree the main one's (its commondir
// file). "" when none is found.
func (r *Repo) commonDir() string {
	dir := r.GitDir
	if dir == "" {
		dir = filepath.Join(r.Root, ".git")
		fi, err := os.Lstat(dir)
		if err != nil {
			return ""
		}
		if !fi.IsDir() {
			// A linked work tree or a submodule: ".git" is a file saying
			// "gitdir: <path>".
			b, err := readSmall(dir, 4096)
			if err != nil {
				return ""
			}
			p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return ""
			}
			dir = strings.TrimSpace(p)
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(r.Root, dir)
			}
		}
	}
	if b, err := readSmall(filepath.Join(dir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		return c
	}
	return dir
}

// ownRef reports whether a ref (below refs/) is loopbreaker's own: a
// checkpoint tag or a rescue ref moves when loopbreaker acts, not the agent.
func ownRef(rel string) bool {
	return strings.HasPrefix("refs/"+rel, "refs/tags/"+CheckpointTagPrefix) || strings.HasPrefix("refs/"+rel, RescueRefPrefix)
}

// readSmall reads at most max bytes of a regular file (a FIFO or a device
// is not opened).
func readSmall(path string, max int) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	// Without blocking: a pipe swapped in after the Lstat is refused.
	f, _, err := safeopen.Open(path, safeopen.NoLinks)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, max)
	n, err := f.Read(b)
	if n == 0 && err != nil {
		return nil, err
	}
	return b[:n], nil
}
