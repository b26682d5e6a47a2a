package copilot

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Copilot CLI runs a project's hooks (.github/hooks) only in a folder the
// person trusted: when it asks in its interactive UI and is told to
// remember, it adds the folder to "trustedFolders" of config.json in its
// directory; `copilot -p … --trust-folder` trusts one run, and
// COPILOT_ALLOW_ALL=true every folder. loopbreaker never trusts a folder
// for the person; it says whether the folder is trusted and how to trust
// it.

// homeDir is Copilot CLI's directory: COPILOT_HOME, else ~/.copilot.
func homeDir(getenv func(string) string) string {
	return agent.UserDirOr(getenv, "COPILOT_HOME", ".copilot")
}

// ConfigPath is the file Copilot CLI keeps its trusted folders in.
func ConfigPath(getenv func(string) string) string {
	return filepath.Join(homeDir(getenv), "config.json")
}

// FolderTrust says whether Copilot CLI runs the project hooks of
// dir, and why: COPILOT_ALLOW_ALL=true, or dir in trustedFolders.
func FolderTrust(folder string, getenv func(string) string) (trusted bool, why string) {
	if strings.TrimSpace(getenv("COPILOT_ALLOW_ALL")) == "true" {
		return true, "COPILOT_ALLOW_ALL=true"
	}
	path := ConfigPath(getenv)
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if err != nil {
		return false, "no " + path
	}
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if json.Unmarshal(withoutLineComments(data), &cfg) != nil {
		return false, path + " is not readable JSON"
	}
	folder = hookinstall.CanonicalPath(folder)
	for _, f := range cfg.TrustedFolders {
		if hookinstall.CanonicalPath(f) == folder {
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
