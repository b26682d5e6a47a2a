//go:build unix

package residentwire

import (
	"fmt"
	"os"
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
