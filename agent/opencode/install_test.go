package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

func readPlugin(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A project install writes the plugin running the program; installing
// again changes nothing, from another path updates it; uninstall removes
// it and the directories it created, and leaves .opencode when New()'s
// own files are in it.
func TestOpenCodeProjectInstallAndUninstall(t *testing.T) {
	for _, openCodeRan := range []bool{false, true} {
		project := t.TempDir()
		res, err := InstallOpenCodeProject(project, "/opt/lb/loopbreaker")
		if err != nil || !res.Created || len(res.Changes) != 1 || res.Changes[0].Action != "added" {
			t.Fatalf("install: %+v %v", res, err)
		}
		plugin := filepath.Join(project, ".opencode", "plugins", "loopbreaker.js")
		if res.Path != plugin {
			t.Errorf("installed in %s, want %s", res.Path, plugin)
		}
		if prog, ok := PluginProgram([]byte(readPlugin(t, plugin))); !ok || prog != "/opt/lb/loopbreaker" {
			t.Errorf("the plugin runs %q (%v), want /opt/lb/loopbreaker", prog, ok)
		}
		if res, err := InstallOpenCodeProject(project, "/opt/lb/loopbreaker"); err != nil || len(res.Changes) != 0 {
			t.Errorf("a second install changed %+v (%v)", res.Changes, err)
		}
		if res, err := InstallOpenCodeProject(project, "/usr/bin/loopbreaker"); err != nil || len(res.Changes) != 1 || res.Changes[0].Action != "updated" {
			t.Errorf("an install from another path: %+v (%v), want updated", res, err)
		}
		if !strings.Contains(readPlugin(t, plugin), `const PROGRAM = "/usr/bin/loopbreaker"`) {
			t.Error("the update did not change the program")
		}
		if openCodeRan {
			if err := os.WriteFile(filepath.Join(project, ".opencode", "package.json"), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err = UninstallOpenCodeProject(project, "/usr/bin/loopbreaker")
		if err != nil || !res.Removed {
			t.Fatalf("uninstall: %+v %v", res, err)
		}
		entries, _ := os.ReadDir(project)
		switch {
		case !openCodeRan && len(entries) != 0:
			t.Errorf("uninstall left %v in the project", entries)
		case openCodeRan:
			left, _ := os.ReadDir(filepath.Join(project, ".opencode"))
			if len(left) != 1 || left[0].Name() != "package.json" {
				t.Errorf(".opencode holds %v after uninstall, want New()'s package.json only", left)
			}
		}
		if res, err := UninstallOpenCodeProject(project, "/usr/bin/loopbreaker"); err != nil || len(res.Changes) != 0 {
			t.Errorf("a second uninstall: %+v %v", res, err)
		}
	}
}

// A loopbreaker.js that is the person's own is never overwritten nor
// removed.
func TestOpenCodeForeignPluginIsLeftAlone(t *testing.T) {
	project := t.TempDir()
	own := "export const Mine = async () => ({})\n"
	path := filepath.Join(project, ".opencode", "plugins", "loopbreaker.js")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallOpenCodeProject(project, "/opt/lb/loopbreaker"); err == nil || !strings.Contains(err.Error(), "rename it") {
		t.Errorf("install over the person's plugin: %v, want an error saying to rename it", err)
	}
	res, err := UninstallOpenCodeProject(project, "/opt/lb/loopbreaker")
	if err != nil || len(res.Changes) != 0 || len(res.Warnings) != 1 {
		t.Errorf("uninstall: %+v %v, want nothing done and a warning", res, err)
	}
	if got := readPlugin(t, path); got != own {
		t.Errorf("the person's plugin changed:\n%s", got)
	}
}

// A cloned repository's .opencode that is a link is never written
// through.
func TestOpenCodeProjectLinkRefused(t *testing.T) {
	project, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(project, ".opencode")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallOpenCodeProject(project, "/opt/lb/loopbreaker"); err == nil {
		t.Error("install wrote through a link in the project")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("the link's target got %v", entries)
	}
}

// At user level the plugins directory of the configuration directory is
// created and removed again; the configuration directory stays (New()
// keeps its own files there).
func TestOpenCodeUserInstallAndUninstall(t *testing.T) {
	home := t.TempDir()
	path, err := New().SettingsPath(true, "", func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil || path != filepath.Join(home, ".config", "opencode", "plugins", "loopbreaker.js") {
		t.Fatalf("user path %s (%v)", path, err)
	}
	if res, err := InstallOpenCodeUser(path, "loopbreaker"); err != nil || !res.Created {
		t.Fatalf("install: %+v %v", res, err)
	}
	in, _ := New().Installed(nil, path)
	if len(in.Programs) != 1 || in.Programs[0] != "loopbreaker" || len(in.Events) == 0 {
		t.Errorf("Installed: %+v", in)
	}
	res, err := UninstallOpenCodeUser(path, "loopbreaker")
	if err != nil || !res.Removed || res.RemovedDir != filepath.Dir(path) {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode")); err != nil {
		t.Errorf("the configuration directory is gone: %v", err)
	}
}

// InstallOpenCodeProject and the three below are the plugin file's edits as
// Install makes them.
func InstallOpenCodeProject(project, program string) (hookinstall.FileResult, error) {
	return hookinstall.EditOwnProjectFile(plugin("opencode", program), project, ".opencode/plugins/"+PluginName, true)
}

func UninstallOpenCodeProject(project, program string) (hookinstall.FileResult, error) {
	return hookinstall.EditOwnProjectFile(plugin("opencode", program), project, ".opencode/plugins/"+PluginName, false)
}

func InstallOpenCodeUser(path, program string) (hookinstall.FileResult, error) {
	return hookinstall.EditOwnUserFile(plugin("opencode", program), path, true)
}

func UninstallOpenCodeUser(path, program string) (hookinstall.FileResult, error) {
	return hookinstall.EditOwnUserFile(plugin("opencode", program), path, false)
}
