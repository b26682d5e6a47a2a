package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fishingSession is an agent under guard searching its project for a
// symbol that does not exist, ten times with other spellings, through
// real hook calls (`loopbreaker hook claude`, PreToolUse, the real grep,
// PostToolUse with what grep printed), then a turn end and one more
// Read, as Claude Code would send them. It returns what each grep
// printed and the JSON answer of the last Read.
func fishingSession(t *testing.T, project string, env []string) (outputs []string, lastRead string) {
	t.Helper()
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the test binary is not on PATH as loopbreaker: %v", err)
	}
	hookCall := func(payload map[string]any) string {
		t.Helper()
		payload["session_id"] = "fishing-session"
		payload["cwd"] = project
		payload["transcript_path"] = filepath.Join(t.TempDir(), "none.jsonl")
		payload["permission_mode"] = "bypassPermissions"
		data, _ := json.Marshal(payload)
		cmd := exec.Command(bin, "hook", "claude")
		cmd.Dir, cmd.Env, cmd.Stdin = project, env, bytes.NewReader(data)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("hook claude %s: %v\n%s", payload["hook_event_name"], err, errb.String())
		}
		return out.String()
	}
	for i := range 10 {
		command := fmt.Sprintf("grep -rn %s .", fishedSymbol(i))
		input := map[string]any{"command": command, "description": "find the symbol"}
		id := fmt.Sprintf("toolu_%02d", i)
		hookCall(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": id})
		grep := exec.Command("sh", "-c", command)
		grep.Dir = project
		found, _ := grep.Output() // exit 1: nothing found
		outputs = append(outputs, string(found))
		hookCall(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": input, "tool_use_id": id,
			"tool_response": map[string]any{"stdout": string(found), "stderr": "", "interrupted": false, "isImage": false}})
	}
	hookCall(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Still looking."})
	lastRead = hookCall(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": "toolu_read",
		"tool_input": map[string]any{"file_path": filepath.Join(project, "calc.go")}})
	return outputs, lastRead
}

// fishedSymbol is the i-th spelling of a symbol the project lacks.
func fishedSymbol(i int) string {
	return []string{"ParseWidgetZ", "parseWidgetZ", "parse_widget_z", "ParseWidgetsZ", "WidgetParserZ",
		"widgetParserZ", "ParseWidgetZs", "parseWidgetsZ", "WidgetZParse", "widget_parser_z"}[i]
}

// filesMentioning lists the files under dir whose content holds s.
func filesMentioning(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(s)) {
			found = append(found, path)
		}
		return nil
	})
	return found
}

func newGitProject(t *testing.T) string {
	t.Helper()
	project := filepath.Join(t.TempDir(), "calc")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"calc.go":          "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"loopbreaker.yaml": "enabled: true\n",
	} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", project}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	return project
}

func hookTestEnv(project string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(project), "XDG_CONFIG_HOME=" + filepath.Join(filepath.Dir(project), ".xdg"),
		"XDG_STATE_HOME=" + stateHome(project), "CLAUDE_PROJECT_DIR=" + project, "LOOPBREAKER_SESSION=", "LOOPBREAKER_NOW=2026-11-21T09:00:00Z",
		"GIT_CONFIG_NOSYSTEM=1"}
}

// An agent that searches its project never meets loopbreaker's own files:
// no search finds anything of loopbreaker's, nothing in the project names
// the commands it ran, and the fishing loop is stopped, because each
// search finding nothing is no new information. The note a refused Read
// reads is outside the project too.
func TestHookSessionLeavesNothingInTheProject(t *testing.T) {
	project := newGitProject(t)
	env := hookTestEnv(project)
	outputs, lastRead := fishingSession(t, project, env)
	for i, out := range outputs {
		if out != "" {
			t.Errorf("search %d (%s) found:\n%s", i+1, fishedSymbol(i), out)
		}
	}
	for i := range 10 {
		if found := filesMentioning(t, project, fishedSymbol(i)); len(found) > 0 {
			t.Errorf("the project holds the command text %q in %v", fishedSymbol(i), found)
		}
	}
	var st struct {
		State    string `json:"state"`
		StateDir string `json:"state_dir"`
	}
	claudeStatus(t, project, env, &st)
	if st.State != "OPEN" {
		t.Errorf("after ten fruitless searches the breaker is %s, want OPEN", st.State)
	}
	if strings.HasPrefix(st.StateDir, project+string(filepath.Separator)) || !strings.HasPrefix(st.StateDir, stateHome(project)) {
		t.Errorf("state directory %s, want it under %s", st.StateDir, stateHome(project))
	}
	if len(filesMentioning(t, st.StateDir, fishedSymbol(9))) == 0 {
		t.Errorf("the state directory %s does not hold the calls: the test looks in the wrong place", st.StateDir)
	}
	// The refused Read reads loopbreaker's note, outside the project.
	if !strings.Contains(lastRead, st.StateDir) || strings.Contains(lastRead, `"file_path":"`+project+"/") {
		t.Errorf("the refused Read's input does not point into the state directory:\n%s", lastRead)
	}
}

// The same session with the state inside the project, where it used to
// be: the searches find loopbreaker's own files, so the check above is
// one that fails when the state is in the agent's sight.
func TestHookSessionWithStateInsideIsFoundBySearches(t *testing.T) {
	project := newGitProject(t)
	env := append(hookTestEnv(project), "LOOPBREAKER_DIR="+filepath.Join(project, ".loopbreaker"))
	outputs, _ := fishingSession(t, project, env)
	found := 0
	for _, out := range outputs {
		if strings.Contains(out, ".loopbreaker/") {
			found++
		}
	}
	if found == 0 {
		t.Fatalf("no search found the state inside the project; outputs: %q", outputs)
	}
	if len(filesMentioning(t, project, fishedSymbol(9))) == 0 {
		t.Errorf("nothing in the project names the last command")
	}
	cmd := exec.Command("loopbreaker", "status", "--session", "claude", "--json")
	cmd.Dir, cmd.Env = project, env
	out, _ := cmd.Output()
	if strings.Contains(string(out), `"state": "OPEN"`) {
		t.Errorf("the fishing loop was stopped although each search found something:\n%s", out)
	}
}
