package filestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// ErrBothExist means a state directory cannot be moved because its
// destination already holds state of its own.
var ErrBothExist = errors.New("both directories hold loopbreaker state")

// movedFromName is the file a move by copy leaves in the destination: the
// source's path and every file it copied, so that a move interrupted after
// the copy and before the source was removed can be finished, and a source
// that changed meanwhile is never deleted.
const movedFromName = "moved-from.json"

type movedFrom struct {
	From  string               `json:"from"`
	Files map[string]fileStamp `json:"files"`
}

type fileStamp struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
}

// Move moves the state directory from to to, holding from's lock so that
// no writer of from changes it meanwhile. It reports whether this call
// moved anything: a missing from (never there, or moved by another
// process that held the lock first) is not an error.
//
// On one file system it is one rename: from is either still where it
// was, or all at to. Across file systems it copies from into a temporary
// directory next to to, renames that to to, then removes from; a process
// killed in between leaves from whole, and the next Move finishes the
// job (from is removed only if no file in it changed since the copy).
//
// A to that holds state already is ErrBothExist, never a merge; a to that
// holds only what an empty store has (lock, .gitignore, an empty scopes/,
// the record of its project) is replaced. A from that is a symbolic link,
// or holds one, is refused: the move would carry a pointer to elsewhere.
func Move(ctx context.Context, from, to string) (bool, error) {
	if err := checkMovable(from); err != nil || !exists(from) {
		return false, err
	}
	unlock, err := lockDir(ctx, from)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // moved away while we looked
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	if !exists(from) {
		return false, nil
	}
	if err := checkMovable(from); err != nil {
		return false, err
	}
	if done, err := finishCopy(from, to); done || err != nil {
		return done, err
	}
	if err := clearEmpty(from, to); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return false, ioError("create", filepath.Dir(to), err)
	}
	err = os.Rename(from, to)
	if err == nil {
		return true, syncDir(filepath.Dir(to))
	}
	if !errors.Is(err, syscall.EXDEV) {
		return false, fmt.Errorf("filestore: move %s to %s: %w", from, to, err)
	}
	if err := copyState(from, to); err != nil {
		return false, err
	}
	_, err = finishCopy(from, to)
	return true, err
}

// lockDir takes the lock of the state directory dir (never through a
// link in the lock's place).
func lockDir(ctx context.Context, dir string) (func(), error) {
	root, err := nofollow.OpenResolved(dir, nofollow.StateHint)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return lockExclusive(ctx, root, lockName)
}

// checkMovable refuses a from that is not a plain directory.
func checkMovable(from string) error {
	fi, err := os.Lstat(from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("filestore: %s: %w", from, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("filestore: %s is a symbolic link: loopbreaker does not move state through a link; remove the link (its target is not touched)", from)
	case !fi.IsDir():
		return fmt.Errorf("filestore: %s is not a directory: move it out of the way", from)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// clearEmpty removes a to that holds only what an empty store has, and
// refuses one that holds more.
func clearEmpty(from, to string) error {
	entries, err := os.ReadDir(to)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("filestore: read %s: %w", to, err)
	}
	bothExist := fmt.Errorf("filestore: %w: %s and %s; keep one: `loopbreaker migrate --from %s --to %s` copies the breakers %s lacks, then delete %s",
		ErrBothExist, from, to, from, to, filepath.Base(to), from)
	for _, e := range entries {
		switch e.Name() {
		case lockName, ".gitignore", ProjectRecordName:
		case scopesDir:
			if inner, err := os.ReadDir(filepath.Join(to, scopesDir)); err != nil || len(inner) > 0 {
				return bothExist
			}
		default:
			return bothExist
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(to, e.Name())); err != nil {
			return ioError("remove", filepath.Join(to, e.Name()), err)
		}
	}
	return os.Remove(to)
}

// ProjectRecordName is the file in a project's state directory that names
// the project, for people and for `loopbreaker status`.
const ProjectRecordName = "project"

// copyState copies from into a fresh directory next to to, with the list
// of what it copied, and renames it to to. Leftovers of an interrupted
// copy are removed first.
func copyState(from, to string) error {
	tmpPrefix := filepath.Base(to) + ".moving-"
	if old, err := filepath.Glob(filepath.Join(filepath.Dir(to), globEscape(tmpPrefix)+"*")); err == nil {
		for _, o := range old {
			_ = os.RemoveAll(o)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(to), tmpPrefix)
	if err != nil {
		return ioError("create", filepath.Dir(to), err)
	}
	rec := movedFrom{From: from, Files: map[string]fileStamp{}}
	err = filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(tmp, rel)
		switch {
		case d.IsDir():
			if rel == "." {
				return nil
			}
			return os.Mkdir(dst, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file (a link?): loopbreaker writes none; remove it and run again", path)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := copyFile(path, dst, fi.Mode().Perm()); err != nil {
			return err
		}
		rec.Files[filepath.ToSlash(rel)] = fileStamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
		return nil
	})
	if err == nil {
		var data []byte
		data, err = json.MarshalIndent(rec, "", "  ")
		if err == nil {
			err = copyBytes(data, filepath.Join(tmp, movedFromName))
		}
	}
	if err == nil {
		err = syncTree(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, to)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("filestore: copy %s to %s: %w (nothing was moved: %s is as it was)", from, to, err, from)
	}
	return syncDir(filepath.Dir(to))
}

// finishCopy removes from when to is its complete copy (to's record names
// from) and no file in from changed since: what a move by copy does last,
// or what a move killed before it did. A from that changed is
// ErrBothExist: someone wrote there after the copy.
func finishCopy(from, to string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(to, movedFromName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("filestore: read %s: %w", filepath.Join(to, movedFromName), err)
	}
	var rec movedFrom
	if err := json.Unmarshal(data, &rec); err != nil || rec.From != from {
		return false, nil // the copy of another directory: not ours to finish
	}
	err = filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(from, path)
		if err != nil || d.IsDir() || rel == lockName {
			return err // the lock is ours: taking it may have created it
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if want, ok := rec.Files[filepath.ToSlash(rel)]; !ok || want.Size != fi.Size() || want.ModTime != fi.ModTime().UnixNano() {
			return fmt.Errorf("filestore: %w: %s changed after it was copied to %s (%s); keep one: `loopbreaker migrate --from %s --to %s` copies the breakers %s lacks, then delete %s",
				ErrBothExist, from, to, rel, from, to, filepath.Base(to), from)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if err := os.RemoveAll(from); err != nil {
		return true, fmt.Errorf("filestore: %s was copied to %s but could not be removed: %w; remove it yourself", from, to, err)
	}
	return true, nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func copyBytes(data []byte, dst string) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncTree flushes every directory of a copied tree, so that its entries
// survive a power cut before the rename that publishes it.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return syncDir(path)
	})
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil // a file system that cannot sync directories
	}
	return err
}

// globEscape escapes the glob characters of a literal file name.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
