package hookpolicy

import (
	"os"
	"path"

	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// noteName is the name, relative to the state directory, of a note a
// refused Read or Write of Claude Code reads or writes instead (see
// harmlessInput); everything else a session remembers is in its breaker
// state.
func (p *Policy) noteName(suffix string) string {
	return path.Join(DirName, fsname.Escape(p.Session)+suffix)
}

// writeNote creates the note name (relative to the state directory) with
// data. Nothing below the state directory is followed: a link planted
// there is an error, never a way to write elsewhere.
func (p *Policy) writeNote(name string, data []byte) error {
	root, err := p.noteRoot(name)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// noteDir makes sure the directory of the note name is a directory of
// the state directory (created when missing), not a link.
func (p *Policy) noteDir(name string) error {
	root, err := p.noteRoot(name)
	if err == nil {
		root.Close()
	}
	return err
}

// noteRoot opens the state directory with the note's directory created.
func (p *Policy) noteRoot(name string) (*nofollow.Dir, error) {
	root, err := nofollow.OpenRoot(p.StateDir, "the state directory")
	if err != nil {
		return nil, err
	}
	dir, err := root.MkdirAll(path.Dir(name), 0o755)
	if err != nil {
		root.Close()
		return nil, err
	}
	dir.Close()
	return root, nil
}
