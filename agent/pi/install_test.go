package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// pi's extension is a file of loopbreaker's own: install creates it (and
// its directories), a reinstall for another program rewrites it, and
// uninstall removes it with the directories it leaves empty, at project
// and user level.
func TestPiInstallCreatesAndUninstallRemovesEverything(t *testing.T) {
	for _, user := range []bool{false, true} {
		root := t.TempDir()
		project := filepath.Join(root, "proj")
		home := filepath.Join(root, "home")
		getenv := func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		path, err := New().SettingsPath(user, project, getenv)
		if err != nil {
			t.Fatal(err)
		}
		install := func(program string) hookinstall.FileResult {
			t.Helper()
			var res hookinstall.FileResult
			if user {
				res, err = hookinstall.EditUserFile(New().Format(), path, program, &hookinstall.Options{})
			} else {
				res, err = hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, program, &hookinstall.Options{})
			}
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			return res
		}
		if res := install("/opt/lb/loopbreaker"); !res.Created || len(res.Changes) != 1 || res.Changes[0].Action != "added" {
			t.Errorf("user=%v: first install: %+v", user, res)
		}
		if res := install("/opt/lb/loopbreaker"); len(res.Changes) != 0 {
			t.Errorf("user=%v: the same install again changed %v", user, res.Changes)
		}
		if res := install("/usr/bin/loopbreaker"); len(res.Changes) != 1 || res.Changes[0].Action != "updated" || res.BackupWritten {
			t.Errorf("user=%v: install for another program: %+v", user, res)
		}
		data, _ := os.ReadFile(path)
		if prog, ok := ProgramOf(data); !ok || prog != "/usr/bin/loopbreaker" {
			t.Errorf("user=%v: the extension runs %q (%v), want /usr/bin/loopbreaker", user, prog, ok)
		}
		if got := hookinstall.FindInstalled(New().Format(), data); len(got.Programs) != 1 || got.Programs[0] != "/usr/bin/loopbreaker" || len(got.Events) == 0 {
			t.Errorf("user=%v: hookinstall.FindInstalled %+v", user, got)
		}
		var res hookinstall.FileResult
		if user {
			res, err = hookinstall.EditUserFile(New().Format(), path, "", nil)
		} else {
			res, err = hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, "", nil)
		}
		if err != nil || !res.Removed {
			t.Fatalf("user=%v: uninstall: %+v %v", user, res, err)
		}
		// Project: .pi/extensions and .pi go; user: extensions goes, and
		// ~/.pi/agent (pi's own) stays.
		gone := filepath.Join(project, ".pi")
		if user {
			gone = filepath.Dir(path)
		}
		if _, err := os.Stat(gone); !os.IsNotExist(err) || res.RemovedDir != gone {
			t.Errorf("user=%v: %s is left (%v), RemovedDir %q", user, gone, err, res.RemovedDir)
		}
	}
}

// The person's own extensions beside loopbreaker's stay, with their
// directory; a file at loopbreaker's path that loopbreaker did not write
// is neither overwritten nor removed.
func TestPiInstallLeavesThePersonsFiles(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".pi", "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "audit.ts")
	if err := os.WriteFile(own, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, "/opt/lb/loopbreaker", &hookinstall.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, "", nil)
	if err != nil || !res.Removed || res.RemovedDir != "" {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("the person's extension is gone: %v", err)
	}

	theirs := "// my own loopbreaker helper\nexport default function () {}\n"
	path := filepath.Join(dir, ExtensionFile)
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []func() (hookinstall.FileResult, error){
		func() (hookinstall.FileResult, error) {
			return hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, "/opt/lb/loopbreaker", &hookinstall.Options{})
		},
		func() (hookinstall.FileResult, error) {
			return hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, "", nil)
		},
	} {
		if _, err := op(); err == nil || !strings.Contains(err.Error(), "not written by loopbreaker") {
			t.Errorf("a file of the person's at %s: %v, want a refusal", path, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Errorf("the person's file was changed: %q", b)
	}
}
