package gemini

import (
	"encoding/json"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Gemini CLI reads workspace settings (a project install) and runs
// settings hooks only in a trusted folder, and headless `gemini -p`
// refuses an untrusted folder outright (exit 55). Trust comes from
// GEMINI_CLI_TRUST_WORKSPACE=true, or from trustedFolders.json in the
// user's .gemini directory: {"<abs dir>": "TRUST_FOLDER" | "TRUST_PARENT"
// | "DO_NOT_TRUST"}, the longest matching entry deciding.

// TrustedFoldersPath is the trust file Gemini CLI reads; getenv
// reads GEMINI_CLI_TRUSTED_FOLDERS_PATH and HOME.
func TrustedFoldersPath(getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(agent.UserDirOr(getenv, "", ".gemini"), "trustedFolders.json")
}

// FolderTrust says whether Gemini CLI trusts dir, and why: known is
// false when nothing says (Gemini then asks, or refuses when headless).
func FolderTrust(dir string, getenv func(string) string) (trusted, known bool, why string) {
	switch getenv("GEMINI_CLI_TRUST_WORKSPACE") {
	case "true":
		return true, true, "GEMINI_CLI_TRUST_WORKSPACE=true"
	case "false":
		return false, true, "GEMINI_CLI_TRUST_WORKSPACE=false"
	}
	return TrustFromFile(TrustedFoldersPath(getenv), dir)
}

// TrustFromFile reads a trustedFolders.json ({"<abs dir>": "TRUST_FOLDER"
// | "TRUST_PARENT" | "DO_NOT_TRUST"}, the longest matching entry
// deciding), as Gemini CLI and Qwen Code write it.
func TrustFromFile(path, dir string) (trusted, known bool, why string) {
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if err != nil {
		return false, false, ""
	}
	var entries map[string]string
	if json.Unmarshal(data, &entries) != nil {
		return false, false, path + " is not valid JSON"
	}
	dir = hookinstall.CanonicalPath(dir)
	best := -1
	for p, level := range entries {
		scope := hookinstall.CanonicalPath(p)
		if level == "TRUST_PARENT" {
			scope = filepath.Dir(scope)
		}
		if level == "DO_NOT_TRUST" && scope != dir {
			continue
		}
		if !hookinstall.Within(dir, scope) || len(scope) <= best {
			continue
		}
		best = len(scope)
		trusted, known, why = level != "DO_NOT_TRUST", true, path+": "+p+" "+level
	}
	return trusted, known, why
}
