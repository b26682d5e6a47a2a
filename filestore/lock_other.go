//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package filestore

import (
	"context"
	"fmt"
	"runtime"

	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// lockExclusive is not implemented here: without a cross-process lock the
// store could lose updates, so it refuses to write.
func lockExclusive(ctx context.Context, root *nofollow.Dir, name string) (func(), error) {
	return nil, fmt.Errorf("filestore: file locking is not supported on %s; use the Redis store instead", runtime.GOOS)
}

// writeSwapped: the store does not write here.
func (s *Store) writeSwapped(*nofollow.Dir, []byte) bool { return false }

// readStateFile reads the state file of d.
func readStateFile(d *nofollow.Dir) ([]byte, error) { return d.ReadFile(stateName) }
