package gemini

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGeminiFolderTrust(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	proj := filepath.Join(root, "work", "proj")
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)

	if _, known, _ := FolderTrust(proj, getenv); known {
		t.Error("no trust file: known")
	}
	write := func(s string) {
		os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(s), 0o644)
	}
	write(`{"` + filepath.Join(root, "work") + `": "TRUST_FOLDER", "` + filepath.Join(proj, "sub") + `": "DO_NOT_TRUST"}`)
	if ok, known, _ := FolderTrust(proj, getenv); !ok || !known {
		t.Error("a trusted parent folder does not trust the project")
	}
	if ok, known, _ := FolderTrust(filepath.Join(proj, "sub"), getenv); ok || !known {
		t.Error("DO_NOT_TRUST ignored")
	}
	write(`{"` + filepath.Join(proj, "file.txt") + `": "TRUST_PARENT"}`)
	if ok, _, _ := FolderTrust(proj, getenv); !ok {
		t.Error("TRUST_PARENT ignored")
	}
	if ok, _, _ := FolderTrust(filepath.Join(root, "work"), getenv); ok {
		t.Error("trust leaked upwards")
	}
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if ok, _, why := FolderTrust(filepath.Join(root, "work"), getenv); !ok || why != "GEMINI_CLI_TRUST_WORKSPACE=true" {
		t.Error("env ignored")
	}
}
