//go:build !unix

package cli

// heldError says that another process holds a lock file, and who.
type heldError struct{ holder string }

func (e *heldError) Error() string { return "held by " + e.holder }

// lockFile cannot lock on this platform: nothing keeps two processes
// apart.
func lockFile(path, holder string) (release func(), err error) { return func() {}, nil }

// probeLock finds no holder on this platform.
func probeLock(path string) error { return nil }
