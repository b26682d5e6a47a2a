package hookinstall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Copilot CLI runs a project's hooks (.github/hooks) only in a folder the
// person trusted: when it asks in its interactive UI and is told to
// remember, it adds the folder to "trustedFolders" of config.json in its
// directory; `copilot -p … --trust-folder` trusts one run, and
// COPILOT_ALLOW_ALL=true every folder. loopbreaker never trusts a folder
// for the person; it says whether the folder is trusted and how to trust
// it.

// CopilotDir is Copilot CLI's directory: COPILOT_HOME, else ~/.copilot.
func CopilotDir(getenv func(string) string) string {
	return agentDir(getenv, "COPILOT_HOME", ".copilot")
}

// CopilotConfigPath is the file Copilot CLI keeps its trusted folders in.
func CopilotConfigPath(getenv func(string) string) string {
	return filepath.Join(CopilotDir(getenv), "config.json")
}

// CopilotFolderTrust says whether Copilot CLI runs the project hooks of
// dir, and why: COPILOT_ALLOW_ALL=true, or dir in trustedFolders.
func CopilotFolderTrust(dir string, getenv func(string) string) (trusted bool, why string) {
	if strings.TrimSpace(getenv("COPILOT_ALLOW_ALL")) == "true" {
		return true, "COPILOT_ALLOW_ALL=true"
	}
	path := CopilotConfigPath(getenv)
	data, err := os.ReadFile(path)
	if err != nil {
		return false, "no " + path
	}
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if json.Unmarshal(withoutLineComments(data), &cfg) != nil {
		return false, path + " is not readable JSON"
	}
	dir = canonicalPath(dir)
	for _, f := range cfg.TrustedFolders {
		if canonicalPath(f) == dir {
			return true, path + ": trustedFolders"
		}
	}
	return false, "not in trustedFolders of " + path
}

// withoutLineComments drops the lines that start with // (Copilot CLI
// heads its config.json with one).
func withoutLineComments(data []byte) []byte {
	var out [][]byte
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
