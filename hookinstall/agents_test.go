package hookinstall_test

import (
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/agent/claude"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// The tests install into the settings formats of real agent CLIs: the
// shapes hookinstall edits are theirs.

// format is the settings format of tool.
func format(tool hook.Tool) *hookinstall.Format {
	a, err := all.Lookup(string(tool))
	if err != nil {
		panic(err)
	}
	return a.(interface{ Format() *hookinstall.Format }).Format()
}

func Install(tool hook.Tool, data []byte, command string) ([]byte, []hookinstall.Change, error) {
	return hookinstall.Merge(format(tool), data, command, &hookinstall.Options{})
}

func InstallWith(tool hook.Tool, data []byte, command string, o hookinstall.Options) ([]byte, []hookinstall.Change, error) {
	return hookinstall.Merge(format(tool), data, command, &o)
}

func Uninstall(tool hook.Tool, data []byte, command string) ([]byte, []hookinstall.Change, error) {
	return hookinstall.Merge(format(tool), data, command, nil)
}

func Entries(tool hook.Tool) []hookinstall.Entry { return format(tool).Entries }

func InstallFile(tool hook.Tool, path, command string) (hookinstall.FileResult, error) {
	return hookinstall.EditUserFile(format(tool), path, command, &hookinstall.Options{})
}

func InstallFileWith(tool hook.Tool, path, command string, o hookinstall.Options) (hookinstall.FileResult, error) {
	return hookinstall.EditUserFile(format(tool), path, command, &o)
}

func UninstallFile(tool hook.Tool, path, command string) (hookinstall.FileResult, error) {
	return hookinstall.EditUserFile(format(tool), path, command, nil)
}

func InstallProjectFile(tool hook.Tool, project, command string, o hookinstall.Options) (hookinstall.FileResult, error) {
	return hookinstall.EditProjectFile(format(tool), project, projectRel(tool), command, &o)
}

func UninstallProjectFile(tool hook.Tool, project, command string) (hookinstall.FileResult, error) {
	return hookinstall.EditProjectFile(format(tool), project, projectRel(tool), command, nil)
}

// projectRel is tool's settings file in a project, slash-separated.
func projectRel(tool hook.Tool) string {
	path, _ := settingsPath(tool, false, "/p", nil)
	rel, _ := filepath.Rel("/p", path)
	return filepath.ToSlash(rel)
}

func settingsPath(tool hook.Tool, user bool, project string, getenv func(string) string) (string, error) {
	a, err := all.Lookup(string(tool))
	if err != nil {
		return "", err
	}
	return a.SettingsPath(user, project, getenv)
}

func Warnings(tool hook.Tool, data []byte) []string {
	return format(tool).Warnings("", data)
}

func CodexConfigWarnings(dir string) []string {
	return format("codex").Warnings(filepath.Join(dir, "hooks.json"), nil)
}

func KnowsPostToolBatch(version string) (bool, bool) { return claude.KnowsPostToolBatch(version) }
