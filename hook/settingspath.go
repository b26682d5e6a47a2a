package hook

import (
	"fmt"
	"os"
	"path/filepath"
)

// SettingsPath is the file loopbreaker's hooks go into (for Cline, the
// folder of its hook scripts): the user's
// (user=true) or the project's settings of tool. getenv reads HOME,
// CLAUDE_CONFIG_DIR, CODEX_HOME, QWEN_HOME, PI_CODING_AGENT_DIR and
// COPILOT_HOME, CLINE_DIR and XDG_CONFIG_HOME. pi's is the extension file
// loopbreaker writes, OpenCode's the plugin file.
func SettingsPath(tool Tool, user bool, project string, getenv func(string) string) (string, error) {
	if !user {
		switch tool {
		case Claude:
			return filepath.Join(project, ".claude", "settings.json"), nil
		case Codex:
			return filepath.Join(project, ".codex", "hooks.json"), nil
		case Gemini:
			return filepath.Join(project, ".gemini", "settings.json"), nil
		case Qwen:
			return filepath.Join(project, ".qwen", "settings.json"), nil
		case Cline:
			// A folder: one script per event.
			return filepath.Join(project, ".clinerules", "hooks"), nil
		case Copilot:
			// Copilot CLI runs every *.json of the directory: a file of
			// loopbreaker's own, merged with nothing.
			return filepath.Join(project, ".github", "hooks", CopilotHooksFile), nil
		case Pi:
			return filepath.Join(project, ".pi", "extensions", PiExtensionFile), nil
		case OpenCode:
			return filepath.Join(project, ".opencode", "plugins", OpenCodePluginName), nil
		}
		return "", fmt.Errorf("unknown tool %q", tool)
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find your home directory (%v): set HOME or use --project", err)
		}
		home = h
	}
	switch tool {
	case Claude:
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "settings.json"), nil
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	case Codex:
		if d := getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "hooks.json"), nil
		}
		return filepath.Join(home, ".codex", "hooks.json"), nil
	case Gemini:
		return filepath.Join(home, ".gemini", "settings.json"), nil
	case Qwen:
		if d := getenv("QWEN_HOME"); d != "" {
			return filepath.Join(d, "settings.json"), nil
		}
		return filepath.Join(home, ".qwen", "settings.json"), nil
	case Cline:
		if d := getenv("CLINE_DIR"); d != "" {
			return filepath.Join(d, "hooks"), nil
		}
		return filepath.Join(home, ".cline", "hooks"), nil
	case Copilot:
		if d := getenv("COPILOT_HOME"); d != "" {
			return filepath.Join(d, "hooks", CopilotHooksFile), nil
		}
		return filepath.Join(home, ".copilot", "hooks", CopilotHooksFile), nil
	case Pi:
		if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
			return filepath.Join(d, "extensions", PiExtensionFile), nil
		}
		return filepath.Join(home, ".pi", "agent", "extensions", PiExtensionFile), nil
	case OpenCode:
		return filepath.Join(OpenCodeConfigDir(home, getenv), "plugins", OpenCodePluginName), nil
	}
	return "", fmt.Errorf("unknown tool %q", tool)
}

// BackupSuffix is appended to a settings file's name for the copy of its
// content from before loopbreaker's first install.
const BackupSuffix = ".loopbreaker.bak"

// CopilotHooksFile is the name of loopbreaker's hooks file in Copilot
// CLI's hooks directories.
const CopilotHooksFile = "loopbreaker.json"
