//go:build unix && !linux

package nofollow

import "golang.org/x/sys/unix"

// openBeneath is not available here: the caller walks the components.
func openBeneath(fd int, name string) (int, error) { return -1, unix.ENOSYS }
