//go:build !unix

package cli

import "github.com/loopbreaker/loopbreaker/internal/nofollow"

// heldError says that another process holds a lock file, and who.
type heldError struct{ holder string }

func (e *heldError) Error() string { return "held by " + e.holder }

// lockFile cannot lock on this platform: nothing keeps two processes
// apart.
func lockFile(dir *nofollow.Dir, name, holder string) (release func(), err error) {
	return func() {}, nil
}

// probeLock finds no holder on this platform.
func probeLock(dir *nofollow.Dir, name string) error { return nil }
