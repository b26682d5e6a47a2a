package claude

import (
	"encoding/json"
	"path/filepath"
	"strconv"

	"github.com/loopbreaker/loopbreaker/agent"
)

// Claude Code runs no hook, interactive, in a workspace whose trust was
// not accepted, and cli.js 2.0.77 reads that trust from its global config
// file at every hook call (CM0: "Skipping … hook execution - workspace
// trust not accepted"; SZ reads the file anew): projects["<dir>"].
// hasTrustDialogAccepted for the project or a folder above it, or
// bypassPermissionsModeAccepted in a session that bypasses permissions.
// The file is $CLAUDE_CONFIG_DIR/.config.json (~/.claude/.config.json)
// when that exists, else $CLAUDE_CONFIG_DIR/.claude.json
// (~/.claude.json) (QF). Claude Code writes the rest of it all the time;
// these values only when the person accepts the trust dialog.

// trustSwitches are the trust settings of the global config file Claude
// Code reads, for project and the folders above it.
func trustSwitches(r *agent.Reads, project string, getenv func(string) string) []string {
	home, _ := agent.Home(getenv)
	configDir, base := getenv("CLAUDE_CONFIG_DIR"), getenv("CLAUDE_CONFIG_DIR")
	if configDir == "" {
		configDir, base = filepath.Join(home, ".claude"), home
	}
	file := filepath.Join(configDir, ".config.json")
	data, err := r.ReadFile(file)
	if err != nil {
		file = filepath.Join(base, ".claude.json")
		if data, err = r.ReadFile(file); err != nil {
			return nil
		}
	}
	if !filepath.IsAbs(file) {
		return nil
	}
	var config struct {
		Bypass   json.RawMessage `json:"bypassPermissionsModeAccepted"`
		Projects map[string]struct {
			Trust json.RawMessage `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &config) != nil {
		return []string{file + ": not JSON"}
	}
	var out []string
	if config.Bypass != nil {
		out = append(out, file+": bypassPermissionsModeAccepted = "+string(config.Bypass))
	}
	for d := filepath.Clean(project); filepath.IsAbs(d); d = filepath.Dir(d) {
		if p, ok := config.Projects[d]; ok && p.Trust != nil {
			out = append(out, file+": projects["+strconv.Quote(d)+"].hasTrustDialogAccepted = "+string(p.Trust))
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return out
}
