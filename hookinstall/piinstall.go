package hookinstall

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/hook"
)

// piEvents are the events loopbreaker's pi extension asks about, in the
// words it sends them.
var piEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}

// piExtensionEvent names the one change an install or uninstall of the pi
// extension makes.
const piExtensionEvent = "extension"

// mergePi is merge for pi, whose "settings file" is loopbreaker's
// extension, a file of its own (PiExtension); command is the program the
// extension runs. Install writes it (or rewrites an older one for another
// program or version); uninstall empties it, which removes it. A file at
// that path that loopbreaker did not write is the person's: neither
// overwritten nor removed.
func mergePi(data []byte, program string, install bool) ([]byte, []Change, error) {
	empty := len(bytes.TrimSpace(data)) == 0
	_, ours := hook.PiProgramOf(data)
	if !empty && !ours {
		return nil, nil, fmt.Errorf("this file was not written by loopbreaker (it does not start as %s writes it): rename it, or remove it if it is an old copy, and run the command again", "`loopbreaker hook install pi`")
	}
	if !install {
		if empty {
			return data, nil, nil
		}
		return nil, []Change{{Event: piExtensionEvent, Action: "removed"}}, nil
	}
	out := []byte(hook.PiExtension(program))
	switch {
	case empty:
		return out, []Change{{Event: piExtensionEvent, Action: "added"}}, nil
	case bytes.Equal(data, out):
		return data, nil, nil
	}
	return out, []Change{{Event: piExtensionEvent, Action: "updated"}}, nil
}

// findInstalledPi is FindInstalled for pi's extension file.
func findInstalledPi(data []byte) Installed {
	prog, ok := hook.PiProgramOf(data)
	if !ok {
		return Installed{}
	}
	return Installed{Events: append([]string(nil), piEvents...), Programs: []string{prog}}
}

// removePiDirs removes, after the extension, the directories left empty:
// the extensions directory, and in a project the .pi directory above it
// (in the user's home, ~/.pi/agent holds pi's own files). dir is the
// extension's directory; the result is the outermost directory removed,
// "" for none.
func removePiDirs(sf settingsFile, dir string) string {
	sub := sf.dir()
	if sub == "" {
		// The user's extensions directory, reached as chosen.
		if os.Remove(dir) == nil {
			return dir
		}
		return ""
	}
	removed := ""
	// A project: .pi/extensions, then .pi, below the project's root,
	// never through a link.
	for ; sub != "." && sub != ""; sub, dir = path.Dir(sub), filepath.Dir(dir) {
		if sf.root.RemoveDir(sub) != nil {
			break
		}
		removed = dir
	}
	return removed
}
