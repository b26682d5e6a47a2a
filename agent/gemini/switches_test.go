package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Gemini CLI adds the env of a hook's handler to the environment it runs
// it in: what loopbreaker's own handlers set there is set for the hook,
// as the .env file's variables are; another hook's env is not ours.
func TestSetEnvReadsLoopbreakersHandlerEnv(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".gemini", "settings.json")
	write(t, settings, `{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [
		{"type": "command", "command": "/opt/lb/loopbreaker hook gemini", "env": {"LOOPBREAKER_DIR": "/tmp/fresh", "N": 1}},
		{"type": "command", "command": "lint", "env": {"LOOPBREAKER_SESSION": "not ours"}}]}]}}`)
	write(t, filepath.Join(project, ".gemini", ".env"), "LOOPBREAKER_SESSION=other\n")
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	got := New().SetEnv(&agent.Reads{}, project, getenv)
	want := []agent.SetVar{
		{File: filepath.Join(project, ".gemini", ".env"), Name: "LOOPBREAKER_SESSION", Value: "other"},
		{File: settings, Name: "LOOPBREAKER_DIR", Value: "/tmp/fresh"},
		{File: settings, Name: "N", Value: "1"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("SetEnv = %+v, want %+v", got, want)
	}
}

// A .env file that sets BASH_ENV (bash, which runs every hook command,
// sources that file first) or makes the folder untrusted (a project hook
// is then not run) changes Gemini CLI's switches; another variable of it
// does not.
func TestSwitchesReadTheDotEnvVariablesThatStopHooks(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	switches := func() string { return strings.Join(New().Switches(&agent.Reads{}, project, getenv), "\n") }
	dotenv := filepath.Join(project, ".gemini", ".env")
	write(t, dotenv, "GEMINI_API_KEY=k\n")
	before := switches()
	for _, line := range []string{"BASH_ENV=/tmp/quiet.sh", "GEMINI_RESTRICTED_MODE=true", "GEMINI_CLI_TRUST_WORKSPACE=false"} {
		write(t, dotenv, "GEMINI_API_KEY=k\n"+line+"\n")
		name, value, _ := strings.Cut(line, "=")
		if got, want := switches(), dotenv+": env."+name+` = "`+value+`"`; !strings.Contains(got, want) {
			t.Errorf("with %s in the .env, the switches are %q, want a line %q", line, got, want)
		}
	}
	write(t, dotenv, "GEMINI_API_KEY=other\n")
	if got := switches(); got != before {
		t.Errorf("another variable of the .env changed the switches: %q, then %q", before, got)
	}
}
