package hookpolicy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// ordinaryWork is a developer's everyday work that mentions loopbreaker's
// files or words (its configuration, the agent CLIs' settings, reset,
// hooks, state): none of it silences the breaker. Each is a shell command
// or an edit (path, then the text written).
var ordinaryWork = []struct{ shell, edit, text string }{
	{shell: "cat loopbreaker.yaml"},
	{shell: "git log --oneline -- .claude/settings.json"},
	{shell: "git checkout -b feature/reset"},
	{shell: "rm -rf build/"},
	{shell: "grep -rn disableAllHooks docs/"},
	{shell: "python3 -m pytest -q tests/"},
	{shell: "git stash list"},
	{shell: "npm run reset"},
	{shell: "make clean"},
	{shell: "cat ~/.claude/settings.json"},
	{shell: "git diff HEAD~1 -- loopbreaker.yaml"},
	{shell: "git blame .gemini/settings.json"},
	{shell: "jq '.hooks | keys' .claude/settings.json"},
	{shell: "ls -la ~/.local/state/"},
	{shell: "loopbreaker status"},
	{shell: "loopbreaker report --session claude | head -40"},
	{shell: "git switch -c fix/hooks-config"},
	{shell: "rm -f coverage.out && go test -coverprofile=coverage.out ./..."},
	{shell: "find . -name '*.pyc' -delete"},
	{shell: "git stash push -m wip src/parser.go"},
	{shell: "git reset --soft HEAD~1"},
	{shell: "git reset HEAD src/parser.go"},
	{shell: "curl -s -X POST localhost:8080/api/password/reset -d '{\"email\":\"a@example.com\"}'"},
	{shell: "sed -i 's/disableAllHooks/disable_all_hooks/' src/config/keys.go"},
	{shell: "mv docs/hooks.md docs/hooks-overview.md"},
	{shell: "cp .env.example .env"},
	{shell: "rm -rf .pytest_cache .mypy_cache __pycache__"},
	{shell: "git clean -fd build/"},
	{shell: "pkill -f 'node server.js'"},
	{shell: "export NODE_ENV=test && npm test"},
	{shell: "tail -n 50 ~/.codex/log/codex-tui.log"},
	{shell: "cat ~/.gemini/settings.json | jq .model"},
	{shell: "go run ./cmd/migrate reset --dry-run"},
	{shell: "./scripts/reset-db.sh --yes"},
	{shell: "rm -rf node_modules && npm ci"},
	{shell: "git checkout HEAD~3 -- src/parser.go"},
	{shell: "git restore src/parser.go"},
	{shell: "git bisect start HEAD v1.0"},
	{shell: "chmod +x scripts/build.sh"},
	{shell: "truncate -s 0 logs/app.log"},
	{shell: "git commit -am 'Reset the parser state between runs'"},
	{shell: "git worktree add ../calc-review main"},
	{edit: "docs/loopbreaker.md", text: "Run `loopbreaker reset` from your own terminal after a halt.\n"},
	{edit: "src/hooks/useReset.ts", text: "export function useReset() { return () => setState(initial) }\n"},
	{edit: ".github/workflows/ci.yml", text: "jobs:\n  test:\n    runs-on: ubuntu-latest\n"},
	{edit: "tests/fixtures/settings.json", text: "{\"disableAllHooks\": true}\n"},
	{edit: "README.md", text: "Hooks: see .claude/settings.json and loopbreaker.yaml.\n"},
	{edit: "config/loopbreaker.example.yaml", text: "enabled: true\n"},
	{edit: ".claude/commands/review.md", text: "Review the diff for bugs.\n"},
	{edit: "internal/state/reset.go", text: "package state\n\nfunc Reset() {}\n"},
}

// TestOrdinaryWorkLeftAlone runs each piece of ordinary work through the
// guard as the hook of Claude Code, Codex and Gemini CLI reads it (their
// own payloads, parsed by their packages, the guard built as the hook
// builds it): at most one is refused per CLI, and a refused one is named
// and explained in docs/hooks.md.
func TestOrdinaryWorkLeftAlone(t *testing.T) {
	if len(ordinaryWork) != 50 {
		t.Fatalf("%d pieces of ordinary work, want 50", len(ordinaryWork))
	}
	docs, err := os.ReadFile(filepath.Join("..", "docs", "hooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	project := filepath.Join(home, "src", "calc")
	getenv := func(k string) string {
		return map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, ".local", "state")}[k]
	}
	for _, name := range []string{"claude", "codex", "gemini"} {
		a, err := all.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		g := hookpolicy.NewGuard(hookpolicy.GuardInput{
			Agent: a, Project: project, Home: home, Getenv: getenv,
			StateDir:  filepath.Join(home, ".local", "state", "loopbreaker", "projects", "calc-3f2a9c"),
			StateRoot: filepath.Join(home, ".local", "state", "loopbreaker"),
			Config:    []string{filepath.Join(home, ".config", "loopbreaker", "config.yaml")},
			Binaries:  []string{filepath.Join(home, "go", "bin", "loopbreaker")},
		})
		var refused []string
		for _, w := range ordinaryWork {
			p, err := a.Parse(preToolEvent(a), preToolPayload(t, name, project, w.shell, w.edit, w.text))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if found := tamper.Check(tamper.CallOf(p, project), g.Protected); len(found) > 0 {
				what := w.shell + w.edit
				refused = append(refused, what)
				t.Logf("%s refuses %q: %v", name, what, found)
				if !strings.Contains(string(docs), "`"+what+"`") {
					t.Errorf("%s refuses %q, which docs/hooks.md does not name", name, what)
				}
			}
		}
		// The same payloads reach the guard: the attacks beside them are
		// refused.
		for _, attack := range []struct{ shell, edit string }{{shell: "rm -f loopbreaker.yaml"}, {edit: "loopbreaker.yaml"}, {shell: "loopbreaker reset"}} {
			p, err := a.Parse(preToolEvent(a), preToolPayload(t, name, project, attack.shell, attack.edit, "enabled: false\n"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if found := tamper.Check(tamper.CallOf(p, project), g.Protected); len(found) == 0 {
				t.Errorf("%s lets %q through: the payloads do not reach the guard", name, attack.shell+attack.edit)
			}
		}
		if len(refused) > 1 {
			t.Errorf("%s refuses %d of %d pieces of ordinary work, want at most 1: %q", name, len(refused), len(ordinaryWork), refused)
		}
	}
}

// preToolEvent is the event name a CLI that names it on the command line
// is called with ("" for the others).
func preToolEvent(a agent.Agent) string {
	if a.Traits().EventArgument {
		return "preToolUse"
	}
	return ""
}

// preToolPayload is the CLI's own hook payload before a tool call: its
// shell tool running command, or its edit tool writing text to edit.
func preToolPayload(t *testing.T, name, project, command, edit, text string) []byte {
	t.Helper()
	p := map[string]any{"session_id": "s1", "cwd": project, "hook_event_name": "PreToolUse"}
	switch {
	case name == "gemini" && command != "":
		p["hook_event_name"], p["tool_name"] = "BeforeTool", "run_shell_command"
		p["tool_input"] = map[string]any{"command": command, "description": "run it"}
	case name == "gemini":
		p["hook_event_name"], p["tool_name"] = "BeforeTool", "write_file"
		p["tool_input"] = map[string]any{"file_path": filepath.Join(project, edit), "content": text}
	case name == "codex" && command != "":
		p["turn_id"], p["tool_name"] = "t1", "Bash"
		p["tool_input"] = map[string]any{"command": command}
	case name == "codex":
		p["turn_id"], p["tool_name"] = "t1", "apply_patch"
		p["tool_input"] = map[string]any{"command": fmt.Sprintf("*** Begin Patch\n*** Add File: %s\n+%s*** End Patch\n", edit, text)}
	case command != "":
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]any{"command": command, "description": "run it"}
	default:
		p["tool_name"] = "Write"
		p["tool_input"] = map[string]any{"file_path": filepath.Join(project, edit), "content": text}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
