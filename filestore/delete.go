package filestore

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker"
)

// Delete removes a scope's state and journals when ok, called under the
// store's lock with the scope's current state, returns true (ok == nil:
// always). It reports whether it deleted anything: a scope without a
// state is left alone. A state that cannot be read is an error, never
// deleted: recover or discard it first. It is how idle scoped breakers are
// forgotten; a deleted scope starts over as a new CLOSED state.
//
// The scope's directory is first renamed out of the way (one atomic step),
// then removed; a crash in between leaves a "scopes/.deleted-*" directory
// that no scope lists and that can be removed by hand.
func (s *Store) Delete(ctx context.Context, scope string, ok func(*loopbreaker.BreakerState) bool) (bool, error) {
	if err := s.usable(ctx); err != nil {
		return false, err
	}
	f, err := s.files(scope)
	if err != nil {
		return false, err
	}
	root, done, err := s.begin(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	defer f.close()
	if err := s.openScope(root, &f, false); err != nil {
		return false, err
	}
	sf, exists, err := s.readState(f)
	if err != nil {
		return false, err
	}
	if !exists || (ok != nil && !ok(sf.State)) {
		return false, nil
	}
	scopes, err := root.OpenDir(scopesDir)
	if err != nil {
		return false, ioError("open", root.Join(scopesDir), err)
	}
	defer scopes.Close()
	name := filepath.Base(f.dir)
	trash := fmt.Sprintf(".deleted-%s-%d", name, s.opts.Now().UnixNano())
	if err := scopes.Rename(name, trash); err != nil {
		return false, ioError("move aside the scope directory", f.dir, err)
	}
	if err := s.syncDir(scopes); err != nil {
		return true, err
	}
	// The directory was checked to be a directory, not a link, and
	// RemoveAll never follows a link inside it.
	if err := scopes.RemoveAll(trash); err != nil {
		return true, ioError("remove", scopes.Join(trash), err)
	}
	return true, nil
}
