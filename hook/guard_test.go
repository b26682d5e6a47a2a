package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runHookCommand runs an installed hook command the way the agent CLIs
// do (sh -c, the payload on stdin) and returns its output and exit code.
func runHookCommand(t *testing.T, command string, env []string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`)
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// A hook whose program was moved or deleted lets the agent go on (exit 0)
// and says so in a systemMessage the CLI shows, for every tool; with the
// program in place, the program answers.
func TestCommandFailsOpenWhenTheProgramIsMissing(t *testing.T) {
	dir := t.TempDir()
	for _, tool := range []Tool{"claude", "codex", "gemini", "copilot"} {
		for _, program := range []string{
			filepath.Join(dir, "gone", "loopbreaker"),
			filepath.Join(dir, "it's \"odd\" \\ here", "loopbreaker"),
			"loopbreaker", // by name, not on PATH
		} {
			command := Command(program, tool)
			out, errOut, code := runHookCommand(t, command, []string{"PATH=/usr/bin:/bin"})
			if code != 0 {
				t.Errorf("%s %s: exit %d, want 0 (stderr %q)", tool, program, code, errOut)
			}
			var ans struct {
				SystemMessage string `json:"systemMessage"`
			}
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatalf("%s %s: stdout is not JSON: %v\n%s", tool, program, err, out)
			}
			want := MissingProgramWarning(program, tool)
			if ans.SystemMessage != want {
				t.Errorf("%s: systemMessage %q, want %q", tool, ans.SystemMessage, want)
			}
			if !strings.Contains(errOut, "UNGUARDED") {
				t.Errorf("%s: stderr %q", tool, errOut)
			}
			if got, ok := ProgramOf(tool, command); !ok || got != program {
				t.Errorf("ProgramOf(%s) = %q %v, want %q", command, got, ok, program)
			}
			if !IsOurs(tool, command, "") {
				t.Errorf("the guarded command is not recognised as ours: %s", command)
			}
		}
	}

	// The program there: it runs, with the payload, and its exit code
	// and output are the hook's.
	prog := filepath.Join(dir, "bin", "loopbreaker")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	script := "#!/bin/sh\necho \"args=$*\"\ncat\nexit 3\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runHookCommand(t, Command(prog, Tool("gemini")), []string{"PATH=/usr/bin:/bin"})
	if code != 3 || !strings.HasPrefix(out, "args=hook gemini\n{\"hook_event_name\"") {
		t.Errorf("program present: exit %d, out %q", code, out)
	}
	// By name, found on PATH.
	out, _, code = runHookCommand(t, Command("loopbreaker", Tool("codex")), []string{"PATH=" + filepath.Dir(prog) + ":/usr/bin:/bin"})
	if code != 3 || !strings.HasPrefix(out, "args=hook codex\n") {
		t.Errorf("program on PATH: exit %d, out %q", code, out)
	}
}

// Tool("copilot") CLI's command names its event after the tool, inside the
// guard; missing, it fails open like the others.
func TestEventCommandNamesTheEvent(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "bin", "loopbreaker")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"args=$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	command := EventCommand(prog, Tool("copilot"), "preToolUse")
	out, _, code := runHookCommand(t, command, []string{"PATH=/usr/bin:/bin"})
	if code != 0 || out != "args=hook copilot preToolUse\n" {
		t.Errorf("exit %d, out %q", code, out)
	}
	if got, ok := ProgramOf(Tool("copilot"), command); !ok || got != prog {
		t.Errorf("ProgramOf = %q %v", got, ok)
	}
	os.Remove(prog)
	out, _, code = runHookCommand(t, command, []string{"PATH=/usr/bin:/bin"})
	if code != 0 || !strings.Contains(out, `"systemMessage"`) || !strings.Contains(out, "UNGUARDED") {
		t.Errorf("program gone: exit %d, out %q", code, out)
	}
	if EventCommand(prog, Tool("claude"), "") != Command(prog, Tool("claude")) {
		t.Error("EventCommand without an event is not Command")
	}
}

// A hook installed with --command PROGRAM of any name is loopbreaker's when
// it is loopbreaker's guard: hook status sees it and uninstall takes it
// out. The same program in a command of the person's own is not.
func TestProgramOfACustomCommand(t *testing.T) {
	for _, tool := range []Tool{"claude", "codex", "gemini", "qwen", "copilot", "cline"} {
		for _, program := range []string{"/opt/wrap/lb-wrapper", "lb wrapper with spaces", "lbwrap"} {
			command := EventCommand(program, tool, "")
			if got, ok := ProgramOf(tool, command); !ok || got != program {
				t.Errorf("%s: ProgramOf(%s) = %q %v, want %q", tool, command, got, ok, program)
			}
			if _, ok := ProgramOf(tool, PlainCommand(program, tool)); ok {
				t.Errorf("%s: a plain `%s` without the guard counts as loopbreaker's", tool, PlainCommand(program, tool))
			}
			// The guard's words after a plain command: not ours, no panic.
			if _, ok := ProgramOf(tool, PlainCommand(program, tool)+" # "+MissingProgramWarning(program, tool)); ok {
				t.Errorf("%s: a plain command followed by the guard's words counts as loopbreaker's", tool)
			}
		}
		// Another tool's guard is not this tool's hook.
		other := Tool("claude")
		if tool == other {
			other = "gemini"
		}
		if _, ok := ProgramOf(tool, Command("/opt/wrap/lb-wrapper", other)); ok {
			t.Errorf("%s: the %s guard counts as this tool's", tool, other)
		}
	}
}

// Protected mode's command fails closed: with its program gone a tool
// call is denied (exit 2) and any other event is a hook error (exit 1),
// never an allow; with the program there it runs it with --protected
// ROOT; and it is recognised as loopbreaker's.
func TestProtectedCommandFailsClosed(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone", "loopbreaker-hook")
	command := ProtectedCommand(gone, "/", "claude")
	out, errOut, code := runHookCommand(t, command, []string{"PATH=/usr/bin:/bin"})
	if code != 2 || out != "" || !strings.Contains(errOut, "denies the tool call") {
		t.Errorf("a tool call with the program gone: exit %d, out %q, err %q; want a denial (exit 2)", code, out, errOut)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop"}`)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("a Stop with the program gone: %v, want exit 1 (exit 2 would make the agent go on)", err)
	}
	if got, ok := ProgramOf("claude", command); !ok || got != gone {
		t.Errorf("ProgramOf = %q %v, want %q", got, ok, gone)
	}
	prog := filepath.Join(dir, "bin", "loopbreaker-hook")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"args=$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code = runHookCommand(t, ProtectedCommand(prog, "/srv/it's", "claude"), []string{"PATH=/usr/bin:/bin"})
	if code != 0 || out != "args=hook claude --protected /srv/it's\n" {
		t.Errorf("program present: exit %d, out %q", code, out)
	}
}
