//go:build !unix

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is a directory. Without the *at system calls of Unix, names below it
// are checked component by component with Lstat before they are used: a
// link planted in advance (a cloned repository's) is refused, one swapped
// in between the check and the use is not.
type Dir struct {
	path string
	hint string
}

// OpenRoot opens the directory at path, following the links on path: it
// is the person's choice. hint says what to do about an unexpected file
// below it ("": StateHint).
func OpenRoot(path, hint string) (*Dir, error) { return openRoot(path, hint, os.Stat) }

// OpenResolved opens the directory at path, resolved by
// filepath.EvalSymlinks earlier, refusing a link in its last component.
func OpenResolved(path, hint string) (*Dir, error) { return openRoot(path, hint, os.Lstat) }

func openRoot(path, hint string, stat func(string) (fs.FileInfo, error)) (*Dir, error) {
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	d := &Dir{path: path, hint: hint}
	if !fi.IsDir() {
		return nil, &Error{Path: path, Found: Describe(fi.Mode()), Want: wantDir, Hint: d.hintText()}
	}
	return d, nil
}

func (d *Dir) hintText() string {
	if d.hint == "" {
		return StateHint
	}
	return d.hint
}

// Close releases nothing here.
func (d *Dir) Close() error { return nil }

// Sync does nothing here: directories cannot be synced on these systems.
func (d *Dir) Sync() error { return nil }

func (d *Dir) openDir(name string, create bool, perm os.FileMode) (*Dir, error) {
	parts, err := split(name)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		shown := joinParts(parts[:i+1])
		if err := d.check(shown, wantDir, create, perm); err != nil {
			return nil, err
		}
	}
	return &Dir{path: d.Join(name), hint: d.hint}, nil
}

// check makes sure shown (below d) is of the type want; create makes a
// missing directory.
func (d *Dir) check(shown, want string, create bool, perm os.FileMode) error {
	p := d.Join(shown)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := os.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err = os.Lstat(p)
	}
	if err != nil {
		return err
	}
	if (want == wantDir && !fi.IsDir()) || (want == wantFile && !fi.Mode().IsRegular()) {
		return d.unexpected(shown, Describe(fi.Mode()), want)
	}
	return nil
}

func (d *Dir) parents(name string) error {
	parts, err := split(name)
	if err != nil {
		return err
	}
	for i := range parts[:len(parts)-1] {
		if err := d.check(joinParts(parts[:i+1]), wantDir, false, 0); err != nil {
			return err
		}
	}
	return nil
}

// OpenFile opens the regular file name below d like os.OpenFile; a link or
// a file of another type is an *Error.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if err := d.parents(name); err != nil {
		return nil, err
	}
	if err := d.check(name, wantFile, false, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(d.Join(name), flag, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, d.unexpected(name, Describe(fi.Mode()), wantFile)
	}
	return f, nil
}

// openFile is OpenFile, also returning the file's size as opened.
func (d *Dir) openFile(name string, flag int, perm os.FileMode) (*os.File, int64, error) {
	f, err := d.OpenFile(name, flag, perm)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Rename renames oldname to newname, both below d.
func (d *Dir) Rename(oldname, newname string) error {
	if err := d.parents(oldname); err != nil {
		return err
	}
	if err := d.parents(newname); err != nil {
		return err
	}
	return os.Rename(d.Join(oldname), d.Join(newname))
}

// Remove removes the file name below d.
func (d *Dir) Remove(name string) error {
	if err := d.parents(name); err != nil {
		return err
	}
	return os.Remove(d.Join(name))
}

// RemoveDir removes the empty directory name below d.
func (d *Dir) RemoveDir(name string) error { return d.Remove(name) }

// RemoveAll removes name below d and everything in it; os.RemoveAll does
// not follow links.
func (d *Dir) RemoveAll(name string) error {
	if err := d.parents(name); err != nil {
		return err
	}
	return os.RemoveAll(d.Join(name))
}

// ReadDir lists d's entries.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) { return os.ReadDir(d.path) }

// Lstat describes name below d without following it if it is a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := d.parents(name); err != nil {
		return nil, err
	}
	return os.Lstat(filepath.Join(d.path, filepath.FromSlash(name)))
}

// Swap cannot exchange two files in one step here.
func (d *Dir) Swap(a, b string) error {
	return &os.LinkError{Op: "swap", Old: d.Join(a), New: d.Join(b), Err: ErrSwapUnsupported}
}
