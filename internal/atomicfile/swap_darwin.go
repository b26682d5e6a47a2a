package atomicfile

import "golang.org/x/sys/unix"

// swap exchanges the files at a and b in one step.
func swap(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
