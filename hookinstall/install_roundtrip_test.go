package hookinstall_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hookinstall"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Uninstall leaves nothing behind, for every tool at project and user
// level: a file install created goes (with the directory it created), a
// file that existed comes back byte for byte, odd layouts included, and
// repeated installs (also from another path) never overwrite the
// original backup.
func TestUninstallLeavesNothingBehind(t *testing.T) {
	existing := map[string]string{
		"empty file":    "",
		"empty object":  "{}",
		"one line":      `{"model": "x", "hooks": {"Stop": []}, "env": {"A": "1"}}`,
		"empty events":  "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"Notification\": []\n  },\n  \"theme\": {\"name\": \"dark\"}\n}\n",
		"tabs, no EOL":  "{\n\t\"hooks\": {}\n}",
		"other handler": "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./log.sh\"}]}]}}\n",
	}
	levels := map[string]func(root string, tool hook.Tool) string{
		"project": func(root string, tool hook.Tool) string {
			p, _ := settingsPath(tool, false, filepath.Join(root, "proj"), nil)
			return p
		},
		"user": func(root string, tool hook.Tool) string {
			home := filepath.Join(root, "home")
			p, _ := settingsPath(tool, true, "", func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			})
			return p
		},
	}
	for _, a := range all.Agents() {
		tool := a.Name()
		// A folder of scripts (Cline) or a file that is loopbreaker's
		// alone (pi, OpenCode) is tested in its agent's package.
		if f, ok := a.(interface{ Format() *hookinstall.Format }); !ok || f.Format().Merge != nil {
			continue
		}
		for level, pathOf := range levels {
			t.Run(string(tool)+"/"+level+"/created", func(t *testing.T) {
				root := t.TempDir()
				path := pathOf(root, tool)
				dir := filepath.Dir(path)
				res, err := InstallFileWith(tool, path, hook.Command("/opt/lb/loopbreaker", tool), hookinstall.Options{Optional: true})
				if err != nil || !res.Created {
					t.Fatalf("install: %+v %v", res, err)
				}
				// A second install from another path (an upgrade) and a
				// re-install: still no backup of loopbreaker's own file.
				if _, err := InstallFile(tool, path, hook.Command("/usr/bin/loopbreaker", tool)); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(path + hook.BackupSuffix); err == nil {
					t.Fatal("a backup of loopbreaker's own file was written")
				}
				res, err = UninstallFile(tool, path, hook.Command("/usr/bin/loopbreaker", tool))
				if err != nil || !res.Removed {
					t.Fatalf("uninstall: %+v %v", res, err)
				}
				if _, err := os.Stat(path); err == nil {
					t.Error("the file install created is still there")
				}
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("the directory install created is still there: %s", dir)
				}
				if res.RemovedDir != dir {
					t.Errorf("RemovedDir %q, want %q", res.RemovedDir, dir)
				}
			})
			for name, content := range existing {
				t.Run(string(tool)+"/"+level+"/"+name, func(t *testing.T) {
					root := t.TempDir()
					path := pathOf(root, tool)
					os.MkdirAll(filepath.Dir(path), 0o755)
					if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
						t.Fatal(err)
					}
					for round := 0; round < 2; round++ {
						if _, err := InstallFile(tool, path, hook.Command("/opt/lb/loopbreaker", tool)); err != nil {
							t.Fatal(err)
						}
						// An upgrade from another path changes the file
						// again: the backup keeps the original.
						res, err := InstallFile(tool, path, hook.Command("/usr/bin/loopbreaker", tool))
						if err != nil || len(res.Changes) == 0 || res.BackupWritten {
							t.Fatalf("upgrade: %+v %v", res, err)
						}
						if b, _ := os.ReadFile(path + hook.BackupSuffix); string(b) != content {
							t.Fatalf("the backup was overwritten: %q", b)
						}
						res, err = UninstallFile(tool, path, "")
						if err != nil || !res.Restored {
							t.Fatalf("uninstall: %+v %v", res, err)
						}
						if b, _ := os.ReadFile(path); string(b) != content {
							t.Fatalf("round %d: not restored byte for byte:\n got %q\nwant %q", round, b, content)
						}
						if _, err := os.Stat(path + hook.BackupSuffix); err == nil {
							t.Fatal("the backup was left behind")
						}
						if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
							t.Errorf("mode %v", fi.Mode().Perm())
						}
					}
				})
			}
		}
	}
}

// A file edited by the person between install and uninstall keeps the
// edit: only loopbreaker's hooks go, and the outdated backup with them.
func TestUninstallKeepsEditsMadeSinceTheInstall(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{\n  \"model\": \"a\"\n}\n"), 0o644)
	if _, err := InstallFile("claude", path, hook.Command("loopbreaker", "claude")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"a"`), []byte(`"b"`), 1), 0o644)
	res, err := UninstallFile("claude", path, "")
	if err != nil || res.Restored || !res.BackupDropped {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\n  \"model\": \"b\"\n}\n" {
		t.Errorf("got %q", b)
	}
	if _, err := os.Stat(path + hook.BackupSuffix); err == nil {
		t.Error("backup left behind")
	}
	// A created file the person added settings to stays, without hooks.
	fresh := filepath.Join(t.TempDir(), ".gemini", "settings.json")
	InstallFile("gemini", fresh, hook.Command("loopbreaker", "gemini"))
	b, _ = os.ReadFile(fresh)
	os.WriteFile(fresh, append([]byte("{\"ui\": {},"), b[1:]...), 0o644)
	res, err = UninstallFile("gemini", fresh, "")
	if err != nil || res.Removed {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(fresh); !sameJSON(t, b, []byte(`{"ui": {}}`)) {
		t.Errorf("got %q", b)
	}
}

// Qwen Code writes "$version" into every settings file it loads: that is
// not the person's change, so uninstall still restores the original byte
// for byte, or removes a file the install created.
func TestQwenVersionKeyIsNotAChange(t *testing.T) {
	dir := t.TempDir()
	original := "{\n    \"general\": {\"vimMode\": true}\n}\n"
	existing := filepath.Join(dir, "existing", "settings.json")
	created := filepath.Join(dir, "created", ".qwen", "settings.json")
	if err := os.MkdirAll(filepath.Dir(existing), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{existing, created} {
		if _, err := InstallFile("qwen", path, "loopbreaker hook qwen"); err != nil {
			t.Fatal(err)
		}
		// What Qwen Code 0.24.4 does to the file when it starts.
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["$version"] = 4
		b, _ = json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := UninstallFile("qwen", path, "loopbreaker hook qwen"); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != original {
		t.Errorf("existing file after uninstall: %v\n%s\nwant the original", err, b)
	}
	if _, err := os.Stat(filepath.Dir(created)); !os.IsNotExist(err) {
		t.Errorf("the .qwen directory the install created is still there: %v", err)
	}
}
