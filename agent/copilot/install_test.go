package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// A project install writes .github/hooks/loopbreaker.json in New()
// CLI's format, one handler per event naming its event; uninstall removes
// the file and the directories it made, and keeps a .github that holds
// anything else.
func TestCopilotProjectInstall(t *testing.T) {
	for _, withWorkflows := range []bool{false, true} {
		project := t.TempDir()
		if withWorkflows {
			os.MkdirAll(filepath.Join(project, ".github", "workflows"), 0o755)
			os.WriteFile(filepath.Join(project, ".github", "workflows", "ci.yml"), []byte("on: push\n"), 0o644)
		}
		command := hook.Command("/opt/lb/loopbreaker", New().Name())
		res, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, &hookinstall.Options{})
		if err != nil || !res.Created || len(res.Changes) != len(Events()) {
			t.Fatalf("install: %+v %v", res, err)
		}
		path := filepath.Join(project, ".github", "hooks", "loopbreaker.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version int `json:"version"`
			Hooks   map[string][]struct {
				Type       string `json:"type"`
				Bash       string `json:"bash"`
				TimeoutSec int    `json:"timeoutSec"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 1 {
			t.Fatalf("%s: %v\n%s", path, err, data)
		}
		for _, ev := range Events() {
			hs := doc.Hooks[ev]
			if len(hs) != 1 || hs[0].Type != "command" || hs[0].TimeoutSec != 10 || !strings.Contains(hs[0].Bash, "exec /opt/lb/loopbreaker hook copilot "+ev+" ||") {
				t.Errorf("%s: %+v", ev, hs)
			}
		}
		if in := hookinstall.FindInstalled(New().Format(), data); !slices.Equal(in.Events, Events()) || !slices.Equal(in.Programs, []string{"/opt/lb/loopbreaker"}) {
			t.Errorf("FindInstalled: %+v", in)
		}
		// Again, from another path: updated in place, no backup.
		res, err = hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, hook.Command("/usr/bin/loopbreaker", New().Name()), &hookinstall.Options{})
		if err != nil || res.BackupWritten || len(res.Changes) != len(Events()) || res.Changes[0].Action != "updated" {
			t.Fatalf("re-install: %+v %v", res, err)
		}
		res, err = hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, nil)
		if err != nil || !res.Removed {
			t.Fatalf("uninstall: %+v %v", res, err)
		}
		_, errHooks := os.Stat(filepath.Join(project, ".github", "hooks"))
		_, errGithub := os.Stat(filepath.Join(project, ".github"))
		if !os.IsNotExist(errHooks) || withWorkflows == os.IsNotExist(errGithub) {
			t.Errorf("with workflows %v: after uninstall .github/hooks %v, .github %v", withWorkflows, errHooks, errGithub)
		}
	}
}

// A loopbreaker.json of the person's own comes back byte for byte; a
// handler of theirs put into loopbreaker's file stays at uninstall.
func TestCopilotKeepsThePersonsHooks(t *testing.T) {
	project := t.TempDir()
	path := filepath.Join(project, ".github", "hooks", "loopbreaker.json")
	original := "{\n\t\"version\": 1,\n\t\"hooks\": {\"sessionEnd\": [{\"type\": \"command\", \"bash\": \"./audit.sh\"}]}\n}"
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(original), 0o600)
	command := hook.Command("/opt/lb/loopbreaker", New().Name())
	if res, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, &hookinstall.Options{}); err != nil || !res.BackupWritten {
		t.Fatalf("install: %+v %v", res, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "./audit.sh") || !strings.Contains(string(data), "hook copilot preToolUse") {
		t.Fatalf("installed file:\n%s", data)
	}
	res, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, nil)
	if err != nil || !res.Restored {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != original {
		t.Errorf("after uninstall:\n%s\nwant the original byte for byte", got)
	}
	// Without the backup (the person changed the file since): only
	// loopbreaker's handlers go.
	hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, &hookinstall.Options{})
	os.Remove(path + hook.BackupSuffix)
	if _, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, nil); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), "./audit.sh") || strings.Contains(string(data), "loopbreaker hook") {
		t.Errorf("after uninstall without backup:\n%s", data)
	}
	// A file that is not New()'s format is refused, untouched.
	os.WriteFile(path, []byte(`{"hooks": {"preToolUse": {"bash": "x"}}}`), 0o600)
	if _, err := hookinstall.EditProjectFile(New().Format(), project, New().Location.Project, command, &hookinstall.Options{}); err == nil || !strings.Contains(err.Error(), "fix it by hand") {
		t.Errorf("a broken file: %v", err)
	}
}
