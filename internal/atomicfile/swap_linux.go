package atomicfile

import "golang.org/x/sys/unix"

// swap exchanges the files at a and b in one step.
func swap(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
