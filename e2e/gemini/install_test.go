package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// geminiEvents are the events loopbreaker's Gemini hooks answer.
var geminiEvents = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"}

const simpleAnswer = "calc.go has Add and Mul."

// simpleTask is a short productive run: one read, then the answer.
func simpleTask(repo string) fakemodel.GeminiScript {
	return fakemodel.GeminiScript{Steps: []fakemodel.GeminiStep{
		readFile(filepath.Join(repo, "calc.go")),
		fakemodel.GeminiText(simpleAnswer),
	}, Final: "unexpected extra turn"}
}

// installedEvents are the events of a Gemini settings file whose hooks
// run command (empty when the file does not exist).
func installedEvents(t *testing.T, path, command string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	var events []string
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if strings.Contains(h.Command, command) && !slices.Contains(events, ev) {
					events = append(events, ev)
				}
			}
		}
	}
	slices.Sort(events)
	return events
}

// checkHooksRan asserts that a productive run went through every event's
// hook, that loopbreaker asked nothing, and that the agent finished.
func (a *agent) checkHooksRan(r run) {
	t := a.t
	t.Helper()
	v, _ := a.check(want{warn: never, halt: never, state: lb.Closed})
	if missing, seen := harness.Missing(a.Calls(), geminiEvents...); len(missing) > 0 {
		t.Errorf("no hook call of %v (calls: %v)", missing, seen)
	}
	if v.Tools != 1 || v.Ran != 1 {
		t.Errorf("tool calls %d, ran %d, want 1 and 1", v.Tools, v.Ran)
	}
	if got := response(r); got != simpleAnswer {
		t.Errorf("the agent answered %q, want %q", got, simpleAnswer)
	}
}

func TestInstallProject(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{install: "project"})
	want := slices.Sorted(slices.Values(geminiEvents))
	if got := installedEvents(t, filepath.Join(a.Repo, ".gemini", "settings.json"), a.Command); !slices.Equal(got, want) {
		t.Errorf("project settings run loopbreaker on %v, want %v", got, want)
	}
	a.checkHooksRan(a.gemini("what is in calc.go?", simpleTask(a.Repo)))
}

// TestDefaultInstallRunsTheClient: what a person gets from `hook install
// gemini` with a release, which ships loopbreaker-hook beside loopbreaker:
// the hooks run the thin client, its first call starts the resident
// breaker, and identical reads are halted through it with no call
// falling back to the in-process hook.
func TestDefaultInstallRunsTheClient(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{install: "none"})
	c := harness.InstallClient(t, bins, a.Repo, a.Env, "gemini")
	a.Env = c.Env
	a.Commit("hooks")
	r := a.gemini("fix the failing tests", fakemodel.GeminiScript{Steps: repeat(8, readFile(filepath.Join(a.Repo, "calc.go"))), Final: "I read calc.go again and again."})
	if st := a.Status("gemini"); st.State != lb.Open || st.Detector != lb.DetectorToolRepeat {
		t.Errorf("status: %s by %q (%s), want OPEN by tool_repeat", st.State, st.Detector, st.Reason)
	}
	if a.api.Log.FirstMainContaining("loopbreaker") == 0 {
		t.Errorf("no word of loopbreaker reached the model")
	}
	c.CheckAnswered(t, a.Home, r.Stdout+r.Stderr)
}

func TestInstallUser(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{install: "user"})
	userFile := filepath.Join(a.Home, ".gemini", "settings.json")
	want := slices.Sorted(slices.Values(geminiEvents))
	if got := installedEvents(t, userFile, a.Command); !slices.Equal(got, want) {
		t.Errorf("user settings run loopbreaker on %v, want %v", got, want)
	}
	// The user's own settings stay (the run below depends on them too).
	var s map[string]any
	b, _ := os.ReadFile(userFile)
	if err := json.Unmarshal(b, &s); err != nil || s["security"] == nil || s["model"] == nil {
		t.Errorf("the user's settings lost their keys: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(a.Repo, ".gemini", "settings.json")); err == nil {
		t.Error("a user install wrote project settings")
	}
	a.checkHooksRan(a.gemini("what is in calc.go?", simpleTask(a.Repo)))
}

// Uninstall leaves nothing behind: the project file that install created
// is removed (no "{}", no backup), the user file that existed comes back
// byte for byte, and no hook runs afterwards.
func TestUninstall(t *testing.T) {
	t.Parallel()
	a := newAgent(t, setup{install: "none"})
	userFile := filepath.Join(a.Home, ".gemini", "settings.json")
	projectDir := filepath.Join(a.Repo, ".gemini")
	original, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"--project", "--user"} {
		a.Loopbreaker("hook", "install", "gemini", where, "--command", a.Command)
	}
	// A real run with both installs: the hooks work (from both files).
	a.gemini("what is in calc.go?", simpleTask(a.Repo))
	before := len(a.Calls())
	if before == 0 {
		t.Fatal("no hook call with the hooks installed")
	}
	for _, where := range []string{"--project", "--user"} {
		a.Loopbreaker("hook", "uninstall", "gemini", where, "--command", a.Command)
	}

	left, _ := filepath.Glob(filepath.Join(projectDir, "*"))
	if len(left) > 0 {
		var shown []string
		for _, p := range left {
			b, _ := os.ReadFile(p)
			shown = append(shown, filepath.Base(p)+": "+strings.TrimSpace(string(b[:min(len(b), 80)])))
		}
		t.Errorf("uninstall left files in .gemini/, which install created: %q", shown)
	}
	if got, err := os.ReadFile(userFile); err != nil || !bytes.Equal(got, original) {
		t.Errorf("the user's settings.json is not back byte for byte (%v):\n%s\nwant:\n%s", err, got, original)
	}

	r := a.gemini("what is in calc.go?", simpleTask(a.Repo))
	recordLatencies(a.Calls())
	after := len(a.Calls()) - before
	a.note(fmt.Sprintf("hook calls %d with both installs, %d after uninstall; files left in .gemini/: %d", before, after, len(left)))
	if n := after; n != 0 {
		t.Errorf("%d hook calls after uninstall, want 0", n)
	}
	if got := response(r); got != simpleAnswer {
		t.Errorf("the agent answered %q after uninstall, want %q\n%s", got, simpleAnswer, tail(r.Stderr, 2000))
	}
}

// notFound matches what tells the person that a command is missing.
var notFound = regexp.MustCompile(`(?i)not found|no such file|missing|moved|does not exist`)

// A hook whose loopbreaker was moved away or deleted must not block the
// agent: the run goes on as without loopbreaker, and the person is warned.
func TestMissingBinaryDoesNotBlockTheAgent(t *testing.T) {
	for _, tt := range []struct {
		name string
		lose func(command string) error
	}{
		{"moved", func(command string) error { return os.Rename(filepath.Dir(command), filepath.Dir(command)+".moved") }},
		{"deleted", os.Remove},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAgent(t, setup{})
			if err := tt.lose(a.Command); err != nil {
				t.Fatal(err)
			}
			r := a.gemini("what is in calc.go?", simpleTask(a.Repo))
			seen := r.Stdout + "\n" + r.Stderr
			a.note(fmt.Sprintf("exit %d, model requests %d (2 scripted), answer %q", r.Exit, r.Main, response(r)))
			if r.Main != 2 {
				t.Errorf("the model was asked %d times, want 2 (read, answer): the agent was blocked\n%s", r.Main, tail(seen, 2000))
			}
			if got := response(r); got != simpleAnswer {
				t.Errorf("the agent answered %q, want %q", got, simpleAnswer)
			}
			if strings.Contains(seen, "blocked") {
				t.Errorf("the person sees the agent blocked:\n%s", blockedLines(seen))
			}
			if !strings.Contains(seen, "loopbreaker") || !notFound.MatchString(seen) {
				t.Errorf("no visible warning that loopbreaker is missing; gemini printed:\n%s", tail(seen, 2000))
			}
			if r.Exit != 0 {
				t.Errorf("gemini exit %d", r.Exit)
			}
		})
	}
}

func blockedLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "blocked") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
