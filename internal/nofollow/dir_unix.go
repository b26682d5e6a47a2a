//go:build unix

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is an open directory. Names below it are resolved from its
// descriptor, one component at a time, never through a symbolic link.
type Dir struct {
	fd   int
	path string
	hint string
}

// OpenRoot opens the directory at path, following the links on path: it
// is the person's choice (LOOPBREAKER_DIR, a project directory). hint says
// what to do about an unexpected file below it ("": StateHint).
func OpenRoot(path, hint string) (*Dir, error) { return openRoot(path, hint, 0) }

// OpenResolved opens the directory at path, a path filepath.EvalSymlinks
// gave earlier, without following a link in its last component: a link
// put in the directory's place since it was resolved is refused.
func OpenResolved(path, hint string) (*Dir, error) { return openRoot(path, hint, unix.O_NOFOLLOW) }

func openRoot(path, hint string, extra int) (*Dir, error) {
	fd, err := openat(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_DIRECTORY|extra, 0)
	if err != nil {
		var st unix.Stat_t
		if !errors.Is(err, unix.ENOENT) && unix.Lstat(path, &st) == nil && (extra != 0 || st.Mode&unix.S_IFMT != unix.S_IFLNK) && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			d := &Dir{fd: unix.AT_FDCWD, hint: hint}
			return nil, d.unexpected(path, found(unix.AT_FDCWD, path, &st), wantDir)
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd, path: path, hint: hint}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Sync makes the directory's entries (new files, renames) durable.
func (d *Dir) Sync() error {
	if err := ignoringEINTR(func() error { return unix.Fsync(d.fd) }); err != nil {
		return &fs.PathError{Op: "sync", Path: d.path, Err: err}
	}
	return nil
}

func (d *Dir) openDir(name string, create bool, perm os.FileMode) (*Dir, error) {
	parts, err := split(name)
	if err != nil {
		return nil, err
	}
	if len(parts) > 1 {
		fd, err := openBeneath(d.fd, name)
		switch {
		case err == nil:
			return &Dir{fd: fd, path: d.Join(name), hint: d.hint}, nil
		case errors.Is(err, unix.ENOENT) && !create:
			return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
		}
	}
	fd := d.fd
	for i, p := range parts {
		next, err := d.sub(fd, p, joinParts(parts[:i+1]), create, perm)
		if fd != d.fd {
			unix.Close(fd)
		}
		if err != nil {
			return nil, err
		}
		fd = next
	}
	return &Dir{fd: fd, path: d.Join(name), hint: d.hint}, nil
}

// sub opens the directory component below the directory fd; shown is its
// name below d, for messages.
func (d *Dir) sub(fd int, component, shown string, create bool, perm os.FileMode) (int, error) {
	for made := false; ; made = true {
		next, err := openat(fd, component, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err == nil {
			return next, nil
		}
		if errors.Is(err, unix.ENOENT) && create && !made {
			if err := unix.Mkdirat(fd, component, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, &fs.PathError{Op: "mkdir", Path: d.Join(shown), Err: err}
			}
			continue
		}
		return -1, d.classify(fd, component, shown, wantDir, err)
	}
}

// parent opens the directory holding the last component of name (d's own
// descriptor for a name of one component) and returns that component;
// done releases the directory.
func (d *Dir) parent(name string) (fd int, base string, done func(), err error) {
	parts, err := split(name)
	if err != nil {
		return -1, "", nil, err
	}
	if len(parts) == 1 {
		return d.fd, parts[0], func() {}, nil
	}
	fd = d.fd
	for i, p := range parts[:len(parts)-1] {
		next, err := d.sub(fd, p, joinParts(parts[:i+1]), false, 0)
		if fd != d.fd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, "", nil, err
		}
		fd = next
	}
	return fd, parts[len(parts)-1], func() { unix.Close(fd) }, nil
}

// OpenFile opens the regular file name below d like os.OpenFile. A link,
// a directory, a named pipe or any other file that is not a regular file
// is an *Error (a named pipe is never waited on); so is a file opened for
// writing that has another name (a hard link), whose content would change
// elsewhere too. O_TRUNC truncates only after those checks.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, _, err := d.openFile(name, flag, perm)
	return f, err
}

// openFile is OpenFile, also returning the file's size as opened.
func (d *Dir) openFile(name string, flag int, perm os.FileMode) (*os.File, int64, error) {
	f, st, err := d.openFileStat(name, flag, perm)
	return f, st.Size, err
}

func (d *Dir) openFileStat(name string, flag int, perm os.FileMode) (*os.File, unix.Stat_t, error) {
	var st unix.Stat_t
	pfd, base, done, err := d.parent(name)
	if err != nil {
		return nil, st, err
	}
	defer done()
	fd, err := openat(pfd, base, (flag&^unix.O_TRUNC)|unix.O_NOFOLLOW|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		return nil, st, d.classify(pfd, base, name, wantFile, err)
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, st, &fs.PathError{Op: "stat", Path: d.Join(name), Err: err}
	}
	writing := flag&(unix.O_WRONLY|unix.O_RDWR) != 0
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		unix.Close(fd)
		return nil, st, d.unexpected(name, found(pfd, base, &st), wantFile)
	case writing && st.Nlink > 1:
		unix.Close(fd)
		return nil, st, d.unexpected(name, "a file with another name (a hard link), whose content would change there too", "a file of its own")
	}
	// The non-blocking open only kept a named pipe from blocking; a
	// regular file is read and written in blocking mode, as os.OpenFile
	// does.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&unix.O_APPEND); err != nil {
		unix.Close(fd)
		return nil, st, &fs.PathError{Op: "fcntl", Path: d.Join(name), Err: err}
	}
	if flag&unix.O_TRUNC != 0 && writing && st.Size > 0 {
		if err := ignoringEINTR(func() error { return unix.Ftruncate(fd, 0) }); err != nil {
			unix.Close(fd)
			return nil, st, &fs.PathError{Op: "truncate", Path: d.Join(name), Err: err}
		}
		st.Size = 0
	}
	return os.NewFile(uintptr(fd), d.Join(name)), st, nil
}

// Rename renames oldname to newname, both below d; neither is followed if
// it is a link (a link is moved or replaced as a name, its target is left
// alone).
func (d *Dir) Rename(oldname, newname string) error {
	return d.twoNames("rename", oldname, newname, unix.Renameat)
}

// twoNames runs op on the parents and last elements of a and b, never
// following a link on the way; a failure is a *os.LinkError of opName.
func (d *Dir) twoNames(opName, a, b string, op func(afd int, a string, bfd int, b string) error) error {
	afd, abase, adone, err := d.parent(a)
	if err != nil {
		return err
	}
	defer adone()
	bfd, bbase, bdone, err := d.parent(b)
	if err != nil {
		return err
	}
	defer bdone()
	if err := ignoringEINTR(func() error { return op(afd, abase, bfd, bbase) }); err != nil {
		return &os.LinkError{Op: opName, Old: d.Join(a), New: d.Join(b), Err: err}
	}
	return nil
}

// Remove removes the file (or link, never its target) name below d.
func (d *Dir) Remove(name string) error { return d.unlink(name, 0) }

// RemoveDir removes the empty directory name below d.
func (d *Dir) RemoveDir(name string) error { return d.unlink(name, unix.AT_REMOVEDIR) }

func (d *Dir) unlink(name string, flags int) error {
	pfd, base, done, err := d.parent(name)
	if err != nil {
		return err
	}
	defer done()
	if err := ignoringEINTR(func() error { return unix.Unlinkat(pfd, base, flags) }); err != nil {
		return &fs.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

// RemoveAll removes name below d and, if it is a directory, everything in
// it; links inside are removed, never followed. A missing name is fine.
func (d *Dir) RemoveAll(name string) error {
	fi, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return d.Remove(name)
	}
	sub, err := d.OpenDir(name)
	if err != nil {
		return err
	}
	des, err := sub.ReadDir()
	if err == nil {
		for _, de := range des {
			if err = sub.RemoveAll(de.Name()); err != nil {
				break
			}
		}
	}
	sub.Close()
	if err != nil {
		return err
	}
	return d.RemoveDir(name)
}

// ReadDir lists d's entries, as os.ReadDir does.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	fd, err := openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.ReadDir(-1)
}

// Lstat describes name below d without following it if it is a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	pfd, base, done, err := d.parent(name)
	if err != nil {
		return nil, err
	}
	defer done()
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	return fileInfo{name: base, st: st}, nil
}

// classify turns the error of opening component (shown below d) into an
// *Error when something of another type than want is there.
func (d *Dir) classify(fd int, component, shown, want string, err error) error {
	var st unix.Stat_t
	if !errors.Is(err, unix.ENOENT) && unix.Fstatat(fd, component, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		kind := st.Mode & unix.S_IFMT
		if (want == wantDir && kind != unix.S_IFDIR) || (want == wantFile && kind != unix.S_IFREG) || kind == unix.S_IFLNK {
			return d.unexpected(shown, found(fd, component, &st), want)
		}
	}
	return &fs.PathError{Op: "open", Path: d.Join(shown), Err: err}
}

// found describes the file st describes; a link with its target.
func found(fd int, name string, st *unix.Stat_t) string {
	what := Describe(fileInfo{st: *st}.Mode())
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		buf := make([]byte, 4096)
		if n, err := unix.Readlinkat(fd, name, buf); err == nil {
			what += " to " + string(buf[:n])
		}
	}
	return what
}

func openat(fd int, name string, flag int, perm uint32) (int, error) {
	for {
		nfd, err := unix.Openat(fd, name, flag|unix.O_CLOEXEC, perm)
		if !errors.Is(err, unix.EINTR) {
			return nfd, err
		}
	}
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// fileInfo is an fs.FileInfo from a stat of a name below a Dir.
type fileInfo struct {
	name string
	st   unix.Stat_t
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.st.Size }
func (fi fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi fileInfo) Sys() any           { return &fi.st }
func (fi fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// Swap exchanges the files (or links, never followed) a and b below d in
// one step. It fails with ErrSwapUnsupported where the platform or the
// file system cannot.
func (d *Dir) Swap(a, b string) error {
	return d.twoNames("swap", a, b, func(afd int, a string, bfd int, b string) error {
		err := swapat(afd, a, bfd, b)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
			return ErrSwapUnsupported
		}
		return err
	})
}
