package hookinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Qwen Code checks folder trust only when the user's settings switch it on
// (security.folderTrust.enabled, off by default); then it runs the hooks
// of a project's .qwen/settings.json only in a folder its
// trustedFolders.json trusts (the same format as Gemini CLI's). User-level
// hooks run everywhere.

// QwenDir is Qwen Code's user directory: QWEN_HOME, else ~/.qwen.
func QwenDir(getenv func(string) string) string { return agentDir(getenv, "QWEN_HOME", ".qwen") }

// agentDir is an agent CLI's user directory: the variable that moves it,
// else name in the home directory.
func agentDir(getenv func(string) string, variable, name string) string {
	if d := getenv(variable); d != "" {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, name)
}

// QwenTrustedFoldersPath is the trust file Qwen Code reads.
func QwenTrustedFoldersPath(getenv func(string) string) string {
	if p := getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(QwenDir(getenv), "trustedFolders.json")
}

// QwenFolderTrust says whether Qwen Code runs the project hooks of dir,
// and why; known is false when folder trust is on and nothing says (Qwen
// then asks, and runs no project hooks until trusted).
func QwenFolderTrust(dir string, getenv func(string) string) (trusted, known bool, why string) {
	settings := filepath.Join(QwenDir(getenv), "settings.json")
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if data, err := os.ReadFile(settings); err != nil || json.Unmarshal(data, &s) != nil || !s.Security.FolderTrust.Enabled {
		return true, true, "folder trust is off (security.folderTrust.enabled is not true in " + settings + ")"
	}
	return trustFromFile(QwenTrustedFoldersPath(getenv), dir)
}
