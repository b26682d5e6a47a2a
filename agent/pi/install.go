package pi

import (
	"bytes"
	"context"
	"fmt"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// extensionEvents are the events loopbreaker's pi extension asks about, in the
// words it sends them.
var extensionEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}

// extensionChange names the one change an install or uninstall of the pi
// extension makes.
const extensionChange = "extension"

// merge is the Format.Merge of pi, whose "settings file" is loopbreaker's
// extension, a file of its own (Extension); program is what the extension
// runs. Install writes it (or rewrites an older one for another
// program or version); uninstall empties it, which removes it. A file at
// that path that loopbreaker did not write is the person's: neither
// overwritten nor removed.
func merge(data []byte, program string, install bool) ([]byte, []hookinstall.Change, error) {
	empty := len(bytes.TrimSpace(data)) == 0
	_, ours := ProgramOf(data)
	if !empty && !ours {
		return nil, nil, fmt.Errorf("this file was not written by loopbreaker (it does not start as %s writes it): rename it, or remove it if it is an old copy, and run the command again", "`loopbreaker hook install pi`")
	}
	if !install {
		if empty {
			return data, nil, nil
		}
		return nil, []hookinstall.Change{{Event: extensionChange, Action: "removed"}}, nil
	}
	out := []byte(Extension(program))
	switch {
	case empty:
		return out, []hookinstall.Change{{Event: extensionChange, Action: "added"}}, nil
	case bytes.Equal(data, out):
		return data, nil, nil
	}
	return out, []hookinstall.Change{{Event: extensionChange, Action: "updated"}}, nil
}

// find is the Format.Find of pi's extension file.
func find(data []byte) hookinstall.Installed {
	prog, ok := ProgramOf(data)
	if !ok {
		return hookinstall.Installed{}
	}
	return hookinstall.Installed{Events: append([]string(nil), extensionEvents...), Programs: []string{prog}}
}

// Format is how loopbreaker's extension is installed: a file of its own,
// removed with the directories it leaves empty (.pi/extensions, then .pi
// in a project; in the user's home ~/.pi/agent holds pi's own files).
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(), Merge: merge, Find: find, DirLevels: 2,
		// pi runs no shell command: the extension spawns the program
		// itself and lets the agent go on when it is missing.
		Command: func(program, _ string) string { return program },
	}
}

// Install writes (or removes) loopbreaker's extension.
func (a Agent) Install(_ context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	res, err := agent.InstallFile(a.Format(), req, hookinstall.Options{})
	if err != nil || req.Uninstall {
		return res, err
	}
	if !req.User {
		res.Notes = append(res.Notes, fmt.Sprintf("pi loads .pi/extensions of the directory it starts in: start pi in %s", req.Project))
	}
	return res, nil
}

// Installed reads loopbreaker's extension file.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status: pi has nothing to trust.
func (Agent) Status(context.Context, *agent.StatusRequest) (string, []string) { return "", nil }
