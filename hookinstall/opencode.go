package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/hook"
)

// OpenCode has no settings to merge hooks into: loopbreaker installs a
// plugin of its own, a file OpenCode loads from a plugins directory
// (.opencode/plugins/ of the project, plugins/ of ~/.config/opencode).
// Install writes the file (the program it runs inside); uninstall deletes
// it and the plugins directory, and the .opencode directory of a project,
// when they are left empty. A loopbreaker.js that is not loopbreaker's
// plugin is the person's own: install refuses to overwrite it and
// uninstall leaves it.

// OpenCodeHooks are the OpenCode plugin hooks loopbreaker's plugin
// registers ("event" for failed tool parts, session.created and
// session.idle).
func OpenCodeHooks() []string {
	return []string{"tool.execute.before", "tool.execute.after", "chat.message", "event"}
}

// openCodePluginChange names the one change of an OpenCode install.
const openCodePluginChange = "plugin " + hook.OpenCodePluginName

// InstallOpenCodeProject writes loopbreaker's plugin running program into
// project's .opencode/plugins/, nothing followed below project (a cloned
// repository can ship links).
func InstallOpenCodeProject(project, program string) (FileResult, error) {
	return editOpenCode(project, ".opencode/plugins/"+hook.OpenCodePluginName, program, true, projectLinkHint)
}

// UninstallOpenCodeProject removes the plugin InstallOpenCodeProject wrote.
func UninstallOpenCodeProject(project, program string) (FileResult, error) {
	return editOpenCode(project, ".opencode/plugins/"+hook.OpenCodePluginName, program, false, projectLinkHint)
}

// InstallOpenCodeUser writes loopbreaker's plugin at path (plugins/ of the
// user's OpenCode configuration directory, which is created when
// missing; a link at that directory is followed, as a dotfiles setup).
func InstallOpenCodeUser(path, program string) (FileResult, error) {
	return editOpenCodeUser(path, program, true)
}

// UninstallOpenCodeUser removes the plugin InstallOpenCodeUser wrote.
func UninstallOpenCodeUser(path, program string) (FileResult, error) {
	return editOpenCodeUser(path, program, false)
}

func editOpenCodeUser(path, program string, install bool) (FileResult, error) {
	config := filepath.Dir(filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(config); err == nil {
		config = real
	}
	rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	return editOpenCode(config, rel, program, install, userLinkHint)
}

func editOpenCode(rootPath, rel, program string, install bool, hint string) (FileResult, error) {
	res := FileResult{Path: filepath.Join(rootPath, filepath.FromSlash(rel))}
	root, err := openRoot(rootPath, hint, install)
	if root == nil || err != nil {
		return res, err // a missing directory is nothing to uninstall
	}
	defer root.Close()
	data, err := root.ReadFile(rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	_, ours := hook.OpenCodePluginProgram(data)
	if exists && !ours {
		if install {
			return res, fmt.Errorf("%s exists and is not loopbreaker's plugin: rename it (OpenCode loads every file of the directory) and run the command again", res.Path)
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not loopbreaker's plugin: left as it is", res.Path))
		return res, nil
	}
	if !install {
		if !exists {
			return res, nil
		}
		if err := root.Remove(rel); err != nil {
			return res, err
		}
		res.Changes = []Change{{Event: openCodePluginChange, Action: "removed"}}
		res.Removed = true
		// The directories the plugin lived in go too when nothing else
		// is left (OpenCode's own files keep a .opencode directory).
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			if root.RemoveDir(dir) != nil {
				break
			}
			res.RemovedDir = filepath.Join(rootPath, filepath.FromSlash(dir))
		}
		return res, nil
	}
	want := hook.OpenCodePlugin(program)
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
	res.Changes = []Change{{Event: openCodePluginChange, Action: action}}
	return res, nil
}
