package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
)

// OwnFile is a file of loopbreaker's own that guards a CLI without
// settings to merge hooks into (a plugin the CLI loads from a directory).
// Install writes it; uninstall deletes it and the directories it leaves
// empty. A file at its place that is not loopbreaker's is the person's:
// install refuses to overwrite it and uninstall leaves it.
type OwnFile struct {
	// Content is the file as loopbreaker writes it.
	Content []byte
	// Ours reports whether data is a file loopbreaker wrote.
	Ours func(data []byte) bool
	// Change names the one change an install or uninstall makes.
	Change string
	// What names the file for a person ("loopbreaker's plugin").
	What string
}

// EditOwnProjectFile installs (or uninstalls) f at rel below project,
// nothing followed below project (a cloned repository can ship links).
func EditOwnProjectFile(f *OwnFile, project, rel string, install bool) (FileResult, error) {
	return editOwnFile(f, project, rel, install, ProjectLinkHint)
}

// EditOwnUserFile installs (or uninstalls) f at path, in a directory of the
// user's configuration, which is created when missing; a link at the
// directory above it is followed, as a dotfiles setup.
func EditOwnUserFile(f *OwnFile, path string, install bool) (FileResult, error) {
	config := filepath.Dir(filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(config); err == nil {
		config = real
	}
	rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	return editOwnFile(f, config, rel, install, UserLinkHint)
}

func editOwnFile(f *OwnFile, rootPath, rel string, install bool, hint string) (FileResult, error) {
	res := FileResult{Path: filepath.Join(rootPath, filepath.FromSlash(rel))}
	root, err := OpenRoot(rootPath, hint, install)
	if root == nil || err != nil {
		return res, err // a missing directory is nothing to uninstall
	}
	defer root.Close()
	data, err := root.ReadFile(rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	ours := f.Ours(data)
	if exists && !ours {
		if install {
			return res, fmt.Errorf("%s exists and is not %s: rename it (the CLI loads every file of the directory) and run the command again", res.Path, f.What)
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not %s: left as it is", res.Path, f.What))
		return res, nil
	}
	if !install {
		if !exists {
			return res, nil
		}
		if err := root.Remove(rel); err != nil {
			return res, err
		}
		res.Changes = []Change{{Event: f.Change, Action: "removed"}}
		res.Removed = true
		// The directories the file lived in go too when nothing else is
		// left (the CLI's own files keep its directory).
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			if root.RemoveDir(dir) != nil {
				break
			}
			res.RemovedDir = filepath.Join(rootPath, filepath.FromSlash(dir))
		}
		return res, nil
	}
	want := f.Content
	if bytes.Equal(data, want) {
		return res, nil
	}
	action := "updated"
	if !exists {
		action, res.Created = "added", true
	}
	d, err := root.MkdirAll(path.Dir(rel), 0o755)
	if err != nil {
		return res, err
	}
	d.Close()
	if err := root.WriteAtomic(rel, want, 0o644); err != nil {
		return res, err
	}
	res.Changes = []Change{{Event: f.Change, Action: action}}
	return res, nil
}
