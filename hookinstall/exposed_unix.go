//go:build unix

package hookinstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// Exposed lists why someone other than the user owner (root, 0, for a
// managed install) could change path or what it will be: the path itself
// and every directory above it, as written and with its links resolved.
// A part that does not exist yet is skipped (it is created by owner). A
// directory writable by others is fine with its sticky bit set (/tmp),
// since what is below it must be owner's anyway; one writable by its group
// is fine for group 0. Nothing found is nil.
func Exposed(path string, owner int) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	var out []string
	seen := map[string]bool{}
	chains := []string{abs}
	if real, err := realPathSoFar(abs); err == nil && real != abs {
		chains = append(chains, real)
	}
	for _, p := range chains {
		for ; ; p = filepath.Dir(p) {
			if !seen[p] {
				seen[p] = true
				if why := exposedOne(p, owner); why != "" {
					out = append(out, why)
				}
			}
			if p == filepath.Dir(p) {
				break
			}
		}
	}
	return out
}

// exposedOne says why someone other than owner could change p ("" for
// nobody, or when p does not exist).
func exposedOne(p string, owner int) string {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", p, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%s: cannot read its owner", p)
	}
	mode := fi.Mode()
	sticky := mode.IsDir() && mode&fs.ModeSticky != 0
	switch {
	case int(st.Uid) != owner:
		return fmt.Sprintf("%s is owned by %s, not %s, who can change it", p, userName(int(st.Uid)), userName(owner))
	case mode&fs.ModeSymlink != 0:
		return "" // the link cannot change; its target is checked as resolved
	case mode.Perm()&0o002 != 0 && !sticky:
		return fmt.Sprintf("%s is writable by every user (mode %04o)", p, mode.Perm())
	case mode.Perm()&0o020 != 0 && st.Gid != 0 && !sticky:
		return fmt.Sprintf("%s is writable by group %s (mode %04o)", p, groupName(int(st.Gid)), mode.Perm())
	}
	return ""
}

// realPathSoFar resolves the links of the longest part of p that exists,
// and keeps the rest as written.
func realPathSoFar(p string) (string, error) {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("user %s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return fmt.Sprintf("%s (gid %d)", g.Name, gid)
	}
	return fmt.Sprintf("gid %d", gid)
}
