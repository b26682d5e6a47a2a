//go:build unix

package cli

import "syscall"

// canWrite reports whether this process may create entries in dir,
// without creating any.
func canWrite(dir string) error { return syscall.Access(dir, 0x2) } // W_OK
