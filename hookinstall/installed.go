package hookinstall

import (
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Installed is what a settings file holds of loopbreaker's hooks.
type Installed struct {
	// Events with a loopbreaker handler, in file order.
	Events []string `json:"events"`
	// Programs the handlers run (see ProgramOf), without repeats.
	Programs []string `json:"programs"`
}

// FindInstalled reads loopbreaker's handlers for tool out of a settings
// document; an unreadable document holds none.
func FindInstalled(tool hook.Tool, data []byte) Installed {
	if tool == hook.Copilot {
		return findCopilotInstalled(data)
	}
	if tool == hook.Pi {
		return findInstalledPi(data)
	}
	var in Installed
	if tool == hook.OpenCode {
		// The "settings" are loopbreaker's plugin file.
		if prog, ok := hook.OpenCodePluginProgram(data); ok {
			in.Events, in.Programs = OpenCodeHooks(), []string{prog}
		}
		return in
	}
	obj, err := parseObject(data)
	if err != nil {
		return in
	}
	hi := obj.find("hooks")
	if hi < 0 {
		return in
	}
	hooks, err := parseObject(obj.members[hi].raw)
	if err != nil {
		return in
	}
	for _, m := range hooks.members {
		var groups []struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(m.raw, &groups) != nil {
			continue
		}
		found := false
		for _, g := range groups {
			for _, h := range g.Hooks {
				prog, ok := hook.ProgramOf(tool, h.Command)
				if !ok {
					continue
				}
				found = true
				if !slices.Contains(in.Programs, prog) {
					in.Programs = append(in.Programs, prog)
				}
			}
		}
		if found && !slices.Contains(in.Events, m.key) {
			in.Events = append(in.Events, m.key)
		}
	}
	return in
}

// CodexConfigTrust reads CODEX_HOME/config.toml just enough to say, when
// codex cannot be asked, how many hooks of file have a saved trust hash
// (not checked against the current hooks) and whether dir is a trusted
// project.
func CodexConfigTrust(configPath, file, dir string) (savedHashes int, projectTrusted bool) {
	data, err := os.ReadFile(configPath)
	if err != nil {
		return 0, false
	}
	section := ""
	stateOfFile := false
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			stateOfFile = strings.HasPrefix(section, `hooks.state."`+file+":")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)
		switch {
		case stateOfFile && k == "trusted_hash" && v != "":
			savedHashes++
		case k == "trust_level" && v == "trusted" && (section == "projects."+tomlKey(dir) || section == "projects."+tomlKey(canonicalPath(dir))):
			projectTrusted = true
		}
	}
	return savedHashes, projectTrusted
}
