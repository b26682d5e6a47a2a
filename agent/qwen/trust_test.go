package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQwenFolderTrust(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if trusted, known, why := FolderTrust(project, getenv); !trusted || !known || !strings.Contains(why, "folder trust is off") {
		t.Fatalf("no settings: got %v %v %q, want trusted because folder trust is off", trusted, known, why)
	}
	write(filepath.Join(home, ".qwen", "settings.json"), `{"security":{"folderTrust":{"enabled":true}}}`)
	if trusted, known, _ := FolderTrust(project, getenv); trusted || known {
		t.Fatalf("folder trust on, no trust file: got %v %v, want unknown", trusted, known)
	}
	write(filepath.Join(home, ".qwen", "trustedFolders.json"), `{"`+project+`":"TRUST_FOLDER"}`)
	if trusted, known, _ := FolderTrust(filepath.Join(project), getenv); !trusted || !known {
		t.Fatalf("trusted folder: got %v %v", trusted, known)
	}
	// QWEN_HOME moves both files.
	env["QWEN_HOME"] = filepath.Join(home, "elsewhere")
	if trusted, _, why := FolderTrust(project, getenv); !trusted || !strings.Contains(why, "elsewhere") {
		t.Fatalf("QWEN_HOME without settings: got %v %q", trusted, why)
	}
	write(filepath.Join(home, "elsewhere", "settings.json"), `{"security":{"folderTrust":{"enabled":true}}}`)
	write(filepath.Join(home, "elsewhere", "trustedFolders.json"), `{"`+project+`":"DO_NOT_TRUST"}`)
	if trusted, known, _ := FolderTrust(project, getenv); trusted || !known {
		t.Fatalf("DO_NOT_TRUST under QWEN_HOME: got %v %v", trusted, known)
	}
}
