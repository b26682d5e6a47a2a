package hook

import (
	"bytes"
	"os"
	"path/filepath"
)

// ProjectFiles lists the files a project-level install wrote and that
// exist now: each tool's project settings file while it holds
// loopbreaker's hooks, its backup, and Codex's config.toml while it
// mentions loopbreaker (saved trust). They are loopbreaker's own files,
// so measuring the agent's changes leaves them out: installing or
// uninstalling the hooks between two iterations is not progress.
func ProjectFiles(project string) []string {
	var out []string
	for _, tool := range AllTools() {
		path, err := SettingsPath(tool, false, project, func(string) string { return "" })
		if err != nil {
			continue
		}
		if tool == Cline {
			// A folder: loopbreaker's scripts in it.
			for _, event := range ClineEvents() {
				for _, name := range ClineScriptNames(event) {
					if f := filepath.Join(path, name); mentionsLoopbreaker(f) {
						out = append(out, f)
					}
				}
			}
			continue
		}
		if mentionsLoopbreaker(path) {
			out = append(out, path)
		}
		if _, err := os.Stat(path + BackupSuffix); err == nil {
			out = append(out, path+BackupSuffix)
		}
		if tool == Codex {
			if cfg := filepath.Join(filepath.Dir(path), "config.toml"); mentionsLoopbreaker(cfg) {
				out = append(out, cfg)
			}
		}
	}
	return out
}

func mentionsLoopbreaker(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && bytes.Contains(data, []byte("loopbreaker"))
}
