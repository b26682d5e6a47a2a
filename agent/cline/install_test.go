package cline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listDir is every name below dir with its content, "" for a directory.
func listDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// A project with no hooks: install writes one executable script per
// event, a second install changes nothing, an install from another path
// updates them, and uninstall leaves the project as it was.
func TestClineInstallProjectRoundTrip(t *testing.T) {
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "go.mod"), []byte("module x\n"), 0o644)
	before := listDir(t, project)
	dir, _ := New().SettingsPath(false, project, nil)

	res, err := installDir(dir, project, "/opt/lb/loopbreaker")
	if err != nil || !res.Created || len(res.Changes) != 3 {
		t.Fatalf("install: %+v %v", res, err)
	}
	for _, ev := range Events() {
		fi, err := os.Stat(filepath.Join(dir, ev))
		if err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Fatalf("%s: %v %v", ev, fi, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, ev))
		if !strings.HasPrefix(string(b), "#!/bin/sh\n") || !strings.Contains(string(b), "exec /opt/lb/loopbreaker hook cline "+ev+" ||") {
			t.Errorf("%s:\n%s", ev, b)
		}
	}
	if events, prog := installedIn(dir); !slices.Equal(events, Events()) || prog != "/opt/lb/loopbreaker" {
		t.Errorf("installed: %v %q", events, prog)
	}
	if res, err := installDir(dir, project, "/opt/lb/loopbreaker"); err != nil || len(res.Changes) != 0 {
		t.Errorf("re-install: %+v %v", res, err)
	}
	res, err = installDir(dir, project, "/usr/bin/loopbreaker")
	if err != nil || len(res.Changes) != 3 || res.Changes[0].Action != "updated" {
		t.Errorf("upgrade: %+v %v", res, err)
	}
	if _, prog := installedIn(dir); prog != "/usr/bin/loopbreaker" {
		t.Errorf("after the upgrade the scripts run %q", prog)
	}
	res, err = uninstallDir(dir, project, "/usr/bin/loopbreaker")
	if err != nil || len(res.Changes) != 3 || res.RemovedDir != filepath.Join(project, ".clinerules") {
		t.Errorf("uninstall: %+v %v", res, err)
	}
	if after := listDir(t, project); len(after) != len(before) || after["go.mod"] != before["go.mod"] {
		t.Errorf("after uninstall the project holds %v, want %v", after, before)
	}
	if res, err := uninstallDir(dir, project, ""); err != nil || len(res.Changes) != 0 {
		t.Errorf("second uninstall: %+v %v", res, err)
	}
}

// A person's own PreToolUse stays as it is: loopbreaker's goes beside it
// as PreToolUse.sh (New() runs both), and uninstall takes only
// loopbreaker's away, leaving the folder and the person's bytes.
func TestClineInstallBesideOwnScripts(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".clinerules", "hooks")
	own := "#!/bin/bash\necho '{}'\n"
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "PreToolUse"), []byte(own), 0o700)
	before := listDir(t, project)
	if _, err := installDir(dir, project, "loopbreaker"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "PreToolUse.sh")); err != nil || !strings.Contains(string(b), "hook cline PreToolUse") {
		t.Fatalf("PreToolUse.sh: %v\n%s", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "PreToolUse")); string(b) != own {
		t.Errorf("the person's script changed:\n%s", b)
	}
	res, err := uninstallDir(dir, project, "loopbreaker")
	if err != nil || res.Removed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	after := listDir(t, project)
	if len(after) != len(before) || after[filepath.Join(".clinerules", "hooks", "PreToolUse")] != own {
		t.Errorf("after uninstall: %v, want %v", after, before)
	}

	// Both names taken by the person: an error that says what to do.
	os.WriteFile(filepath.Join(dir, "PreToolUse.sh"), []byte(own), 0o700)
	if _, err := installDir(dir, project, "loopbreaker"); err == nil || !strings.Contains(err.Error(), "rename one of them") {
		t.Errorf("both names taken: %v", err)
	}
}

// A cloned repository can ship .clinerules/hooks as a link to any folder
// of the person's: install refuses it and writes nothing there.
func TestClineInstallRefusesALinkInTheProject(t *testing.T) {
	project, elsewhere := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(project, ".clinerules"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(project, ".clinerules", "hooks")); err != nil {
		t.Skip(err)
	}
	_, err := installDir(filepath.Join(project, ".clinerules", "hooks"), project, "loopbreaker")
	if err == nil || !strings.Contains(err.Error(), "link") {
		t.Errorf("install through a link: %v", err)
	}
	if names, _ := os.ReadDir(elsewhere); len(names) != 0 {
		t.Errorf("written through the link: %v", names)
	}
}

// At user level the install creates ~/.cline/hooks; uninstall removes
// the folder and a ~/.cline left empty.
func TestClineInstallUserLevel(t *testing.T) {
	home := t.TempDir()
	dir, _ := New().SettingsPath(true, "", func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if dir != filepath.Join(home, ".cline", "hooks") {
		t.Fatalf("user folder %s", dir)
	}
	if res, err := installDir(dir, "", "loopbreaker"); err != nil || !res.Created {
		t.Fatalf("install: %+v %v", res, err)
	}
	if res, err := uninstallDir(dir, "", "loopbreaker"); err != nil || res.RemovedDir != filepath.Join(home, ".cline") {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if names, _ := os.ReadDir(home); len(names) != 0 {
		t.Errorf("left in the home: %v", names)
	}
}
