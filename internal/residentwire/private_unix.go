//go:build unix

package residentwire

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// MakePrivate creates dir (and its parents) and checks that it is the
// user's alone: a directory, not a link, owned by this user, with no
// access for the group or others. A socket in a directory another user
// can write could be replaced by one that answers every call with "go
// on".
func MakePrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the resident breaker's directory: %w", err)
	}
	return CheckPrivate(dir)
}

// CheckPrivate checks dir as MakePrivate does, without creating it.
func CheckPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (%s): remove it so that loopbreaker can make its own", dir, fi.Mode().Type())
	case !ok:
		return fmt.Errorf("cannot read who owns %s", dir)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d): the resident breaker's directory must be the user's alone", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to others (mode %v): run `chmod 700 %s`", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// Fingerprint tells one build of a binary from another without reading
// it: its device, inode, size and modification time. An upgrade writes a
// new file (or a new inode by rename), so a resident breaker started from
// the old one no longer matches.
func Fingerprint(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()), nil
	}
	return fmt.Sprintf("%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano()), nil
}

// CheckSystem checks the system resident breaker's socket directory, for
// the client of protected mode: a socket there answers for the breaker,
// so neither the directory nor one above it may be the calling user's
// (root aside) or writable by a group or every user (a sticky directory
// such as /tmp aside: its entries stay their owners'). The agent's user
// could otherwise put a socket of its own that answers "go on".
func CheckSystem(dir string) error {
	uid := os.Getuid()
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		mode := fi.Mode()
		sticky := mode.IsDir() && mode&os.ModeSticky != 0
		switch {
		case p == dir && !fi.IsDir():
			return fmt.Errorf("%s is not a directory (%s): run `sudo loopbreaker protect setup` again", dir, mode.Type())
		case mode&os.ModeSymlink != 0:
			return fmt.Errorf("%s is a link: the protected breaker's socket directory must be a plain path that root owns; run `sudo loopbreaker protect setup` again", p)
		case !ok:
			return fmt.Errorf("cannot read who owns %s", p)
		case uid != 0 && int(st.Uid) == uid:
			return fmt.Errorf("%s belongs to this user (uid %d), who could replace the protected breaker's socket: a person runs `sudo loopbreaker protect setup` again", p, uid)
		case mode.Perm()&0o022 != 0 && !sticky && !(mode.Perm()&0o002 == 0 && st.Gid == 0):
			return fmt.Errorf("%s is writable by others (mode %04o), who could replace the protected breaker's socket: a person runs `sudo chmod go-w %s`", p, mode.Perm(), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// CheckService checks the system resident breaker's own directory, for
// the breaker: made by its set-up, it must be this user's, not a link,
// and writable by nobody else (the agents' users only reach the socket in
// it).
func CheckService(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the protected breaker's directory: %w: run `sudo loopbreaker protect setup`", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (%s): run `sudo loopbreaker protect setup` again", dir, fi.Mode().Type())
	case !ok:
		return fmt.Errorf("cannot read who owns %s", dir)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to uid %d, not to the protected breaker's user (uid %d): run `sudo loopbreaker protect setup` again", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v): run `sudo chmod 755 %s`", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// OwnedBy says why a user other than owners could change p ("" for
// none): p is owned by another user, or writable by every user or by a
// group other than root's. p must exist.
func OwnedBy(p string, owners ...int) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return err.Error()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("cannot read who owns %s", p)
	}
	owned := false
	for _, o := range owners {
		owned = owned || int(st.Uid) == o
	}
	switch {
	case !owned:
		return fmt.Sprintf("%s belongs to uid %d, who could change it", p, st.Uid)
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Sprintf("%s is a link", p)
	case fi.Mode().Perm()&0o002 != 0:
		return fmt.Sprintf("%s is writable by every user (mode %04o)", p, fi.Mode().Perm())
	case fi.Mode().Perm()&0o020 != 0 && st.Gid != 0:
		return fmt.Sprintf("%s is writable by group %d (mode %04o)", p, st.Gid, fi.Mode().Perm())
	}
	return ""
}

// OwnerOf is the uid that owns p, -1 when it cannot be read.
func OwnerOf(p string) int {
	fi, err := os.Lstat(p)
	if err != nil {
		return -1
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
