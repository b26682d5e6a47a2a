package qwen

import (
	"encoding/json"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/gemini"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Qwen Code checks folder trust only when the user's settings switch it on
// (security.folderTrust.enabled, off by default); then it runs the hooks
// of a project's .qwen/settings.json only in a folder its
// trustedFolders.json trusts (the same format as Gemini CLI's). User-level
// hooks run everywhere.

// homeDir is Qwen Code's user directory: QWEN_HOME, else ~/.qwen.
func homeDir(getenv func(string) string) string { return agent.UserDirOr(getenv, "QWEN_HOME", ".qwen") }

// TrustedFoldersPath is the trust file Qwen Code reads.
func TrustedFoldersPath(getenv func(string) string) string {
	if p := getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(homeDir(getenv), "trustedFolders.json")
}

// FolderTrust says whether Qwen Code runs the project hooks of dir,
// and why; known is false when folder trust is on and nothing says (Qwen
// then asks, and runs no project hooks until trusted).
func FolderTrust(dir string, getenv func(string) string) (trusted, known bool, why string) {
	settings := filepath.Join(homeDir(getenv), "settings.json")
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if data, err := safeopen.ReadFile(settings, safeopen.FollowLinks, safeopen.SmallFileLimit); err != nil || json.Unmarshal(data, &s) != nil || !s.Security.FolderTrust.Enabled {
		return true, true, "folder trust is off (security.folderTrust.enabled is not true in " + settings + ")"
	}
	return gemini.TrustFromFile(TrustedFoldersPath(getenv), dir)
}
