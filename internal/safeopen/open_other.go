//go:build !unix

package safeopen

import "os"

// openNonBlocking opens path; these systems have no named pipes in the
// file system to wait on, and the link in the last component is followed.
func openNonBlocking(path string, _ Links) (*os.File, error) {
	return os.Open(path)
}
