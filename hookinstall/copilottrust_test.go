package hookinstall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Copilot CLI's config.json, as it writes it (a comment line first),
// decides the trust of a folder; COPILOT_ALLOW_ALL=true trusts every one.
func TestCopilotFolderTrust(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	if trusted, why := CopilotFolderTrust(project, getenv); trusted || !strings.Contains(why, "config.json") {
		t.Errorf("no config: %v %q", trusted, why)
	}
	os.MkdirAll(filepath.Join(home, ".copilot"), 0o755)
	config := "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": [\n    \"" + project + "\"\n  ]\n}\n"
	os.WriteFile(filepath.Join(home, ".copilot", "config.json"), []byte(config), 0o644)
	if trusted, why := CopilotFolderTrust(project, getenv); !trusted {
		t.Errorf("trusted folder: %v %q", trusted, why)
	}
	if trusted, _ := CopilotFolderTrust(filepath.Join(project, "sub"), getenv); trusted {
		t.Error("a subfolder of a trusted folder counted as trusted")
	}
	env["COPILOT_HOME"] = t.TempDir()
	if trusted, _ := CopilotFolderTrust(project, getenv); trusted {
		t.Error("COPILOT_HOME does not move the config")
	}
	env["COPILOT_ALLOW_ALL"] = "true"
	if trusted, why := CopilotFolderTrust(project, getenv); !trusted || why != "COPILOT_ALLOW_ALL=true" {
		t.Errorf("allow all: %v %q", trusted, why)
	}
}
