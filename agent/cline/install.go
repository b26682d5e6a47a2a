package cline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Cline has no settings file for hooks: it runs every script of its hooks
// folders (.clinerules/hooks in the workspace, ~/.cline/hooks) whose name,
// less an extension such as .sh, is an event. loopbreaker writes one
// script per event of Events and takes them away again; a
// person's own script for the same event stays, and both run (Cline runs
// them all and merges their answers).

// scriptHeader opens every script loopbreaker writes for Cline.
const scriptHeader = "#!/bin/sh\n# loopbreaker's Cline hook: `loopbreaker hook uninstall cline` removes it.\n"

// script is the script for event: the guarded command, so that a
// moved or deleted loopbreaker never blocks the agent.
func script(program, event string) []byte {
	return []byte(scriptHeader + hook.EventCommand(program, "cline", event) + "\n")
}

// isOurScript reports whether a hook script is loopbreaker's: a
// line of it runs `…/loopbreaker hook cline`.
func isOurScript(data []byte) bool {
	for line := range strings.SplitSeq(string(data), "\n") {
		if _, ok := hook.ProgramOf("cline", strings.TrimSpace(line)); ok {
			return true
		}
	}
	return false
}

// installDir writes loopbreaker's scripts into Cline's hooks folder
// dir (created when missing): program is the loopbreaker they run. A
// script of loopbreaker's already there is rewritten when it differs
// (another path), left alone otherwise. project is "" for the user's
// folder, which is reached as the person chose it (a link followed);
// below a project nothing is followed.
func installDir(dir, project, program string) (hookinstall.FileResult, error) {
	return editDir(dir, project, program, true)
}

// uninstallDir removes loopbreaker's scripts from Cline's hooks
// folder dir, and the folder (with a .clinerules left empty) when nothing
// else is in it. The person's scripts are never touched.
func uninstallDir(dir, project, program string) (hookinstall.FileResult, error) {
	return editDir(dir, project, program, false)
}

func editDir(dir, project, program string, install bool) (hookinstall.FileResult, error) {
	res := hookinstall.FileResult{Path: dir}
	rootPath, rel, hint := filepath.Dir(dir), filepath.Base(dir), hookinstall.UserLinkHint
	if project != "" {
		r, err := filepath.Rel(project, dir)
		if err != nil || r == "." || strings.HasPrefix(r, "..") {
			return res, fmt.Errorf("%s is not below the project %s", dir, project)
		}
		rootPath, rel, hint = project, filepath.ToSlash(r), hookinstall.ProjectLinkHint
	} else if real, err := filepath.EvalSymlinks(dir); err == nil {
		rootPath, rel = filepath.Dir(real), filepath.Base(real)
	}
	root, err := hookinstall.OpenRoot(rootPath, hint, install)
	if root == nil || err != nil {
		return res, err // nil, nil: nothing to uninstall
	}
	defer root.Close()
	if _, err := root.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		if !install {
			return res, nil
		}
		res.Created = true
	} else if err != nil {
		return res, err
	}
	if install {
		d, err := root.MkdirAll(rel, 0o755)
		if err != nil {
			return res, err
		}
		d.Close()
	}
	for _, event := range Events() {
		var ch *hookinstall.Change
		var err error
		if install {
			ch, err = installScript(root, rel, event, program)
		} else {
			ch, err = uninstallScript(root, rel, event)
		}
		if err != nil {
			return res, err
		}
		if ch != nil {
			res.Changes = append(res.Changes, *ch)
		}
	}
	if !install && len(res.Changes) > 0 {
		removeEmptyDirs(root, rel, &res)
		// The user's ~/.cline the install may have created, when nothing
		// else (Cline's own data) is in it.
		if project == "" && res.Removed && filepath.Base(rootPath) == ".cline" && os.Remove(rootPath) == nil {
			res.RemovedDir = rootPath
		}
	}
	return res, nil
}

// installScript writes the script for event under the first free
// name, or updates loopbreaker's where it is.
func installScript(root *nofollow.Dir, rel, event, program string) (*hookinstall.Change, error) {
	want := script(program, event)
	free := ""
	for _, name := range ScriptNames(event) {
		data, err := root.ReadFile(path.Join(rel, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if free == "" {
				free = name
			}
			continue
		case err != nil:
			return nil, err
		}
		if !isOurScript(data) {
			continue
		}
		if string(data) == string(want) {
			return nil, nil
		}
		if err := root.WriteAtomic(path.Join(rel, name), want, 0o755); err != nil {
			return nil, err
		}
		return &hookinstall.Change{Event: event, Action: "updated"}, nil
	}
	if free == "" {
		return nil, fmt.Errorf("%s and %s in %s are both scripts of your own: Cline runs every script named %s, so rename one of them (e.g. %s.bash) and install again",
			event, event+".sh", root.Join(rel), event, event)
	}
	if err := root.WriteAtomic(path.Join(rel, free), want, 0o755); err != nil {
		return nil, err
	}
	return &hookinstall.Change{Event: event, Action: "added"}, nil
}

// uninstallScript removes loopbreaker's script for event.
func uninstallScript(root *nofollow.Dir, rel, event string) (*hookinstall.Change, error) {
	for _, name := range ScriptNames(event) {
		data, err := root.ReadFile(path.Join(rel, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !isOurScript(data) {
			continue
		}
		if err := root.Remove(path.Join(rel, name)); err != nil {
			return nil, err
		}
		return &hookinstall.Change{Event: event, Action: "removed"}, nil
	}
	return nil, nil
}

// removeEmptyDirs removes the hooks folder when nothing is left in
// it, and then a .clinerules above it that is left empty too.
func removeEmptyDirs(root *nofollow.Dir, rel string, res *hookinstall.FileResult) {
	for dir := rel; dir != "." && dir != ""; dir = path.Dir(dir) {
		if root.RemoveDir(dir) != nil {
			return
		}
		res.Removed = true
		res.RemovedDir = root.Join(dir)
		if path.Base(path.Dir(dir)) != ".clinerules" {
			return
		}
	}
}

// installedIn lists the events of the hooks folder dir that have
// loopbreaker's script, and the program of the first.
func installedIn(dir string) (events []string, program string) {
	for _, event := range Events() {
		for _, name := range ScriptNames(event) {
			data, err := safeopen.ReadFile(filepath.Join(dir, name), safeopen.FollowLinks, safeopen.SmallFileLimit)
			if err != nil || !isOurScript(data) {
				continue
			}
			events = append(events, event)
			if program == "" {
				for line := range strings.SplitSeq(string(data), "\n") {
					if p, ok := hook.ProgramOf("cline", strings.TrimSpace(line)); ok {
						program = p
						break
					}
				}
			}
			break
		}
	}
	return events, program
}

// Install writes (or removes) loopbreaker's scripts in the hooks folder.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	inProject := req.Project
	if req.User {
		inProject = ""
	}
	edit := installDir
	if req.Uninstall {
		edit = uninstallDir
	}
	res, err := edit(req.Path, inProject, req.Program)
	if err != nil {
		return nil, err
	}
	out := &agent.InstallResult{FileResult: res, Folder: true, Command: hook.PlainCommand(req.Program, a.Name())}
	if !req.Uninstall {
		out.Notes = append(out.Notes, fmt.Sprintf("Cline runs these scripts without any setting to turn on; it reads %s when a task starts", res.Path))
	}
	return out, nil
}

// Installed reads loopbreaker's scripts in the hooks folder at path.
func (Agent) Installed(_ *agent.Reads, path string) (hookinstall.Installed, []string) {
	events, prog := installedIn(path)
	in := hookinstall.Installed{Events: events}
	if prog != "" {
		in.Programs = []string{prog}
	}
	return in, nil
}

// Status: Cline has nothing to trust.
func (Agent) Status(context.Context, *agent.StatusRequest) (string, []string) { return "", nil }
