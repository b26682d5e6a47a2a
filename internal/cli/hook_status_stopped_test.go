package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A Claude Code session whose transcript goes on well after its last hook
// call had its hooks stop (removed from the settings mid-session, say):
// `hook status` names it. A transcript written just after the last call
// (the turn's closing lines) is not flagged.
func TestHookStatusSeesHooksThatStopped(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker") // the test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	project := filepath.Join(root, "proj")
	home := filepath.Join(root, "home")
	os.MkdirAll(project, 0o755)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(root, ".xdg"),
		"XDG_STATE_HOME="+filepath.Join(root, ".state"), "CLAUDE_CONFIG_DIR=", "LOOPBREAKER_SESSION=", "LOOPBREAKER_NOW=", "LOOPBREAKER_DIR=")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = project, env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("loopbreaker %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("", "init")
	run("", "hook", "install", "claude")
	const session = "b52662f7-6cd9-4781-bbda-185147613b2b"
	payload, err := os.ReadFile("../../hook/testdata/claude/PreToolUse-bash-gotest.json")
	if err != nil {
		t.Fatal(err)
	}
	run(string(payload), "hook", "claude")
	lastCall := time.Now()

	dir := filepath.Join(home, ".claude", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(project, "-"))
	os.MkdirAll(dir, 0o755)
	transcript := filepath.Join(dir, session+".jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user"}`+"\n"), 0o644)
	stopped := func() []stoppedSession {
		t.Helper()
		var rep hookStatusReport
		if err := json.Unmarshal([]byte(run("", "hook", "status", "--json")), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Stopped
	}

	os.Chtimes(transcript, lastCall.Add(30*time.Second), lastCall.Add(30*time.Second))
	if s := stopped(); len(s) != 0 {
		t.Fatalf("a transcript written 30s after the last hook call is flagged: %+v", s)
	}
	os.Chtimes(transcript, lastCall.Add(10*time.Minute), lastCall.Add(10*time.Minute))
	s := stopped()
	if len(s) != 1 || s[0].ID != session || s[0].LastHookCall.After(lastCall) {
		t.Fatalf("stopped sessions: %+v, want %s", s, session)
	}
	if text := run("", "hook", "status"); !strings.Contains(text, "its hooks STOPPED being called") {
		t.Errorf("hook status does not say the hooks stopped:\n%s", text)
	}
}
