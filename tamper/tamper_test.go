package tamper

import (
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	"github.com/loopbreaker/loopbreaker/agent/all"
)

// fixture is a project at /home/dev/proj whose state lives under
// $XDG_STATE_HOME, as `loopbreaker hook` resolves it.
func fixture() Protected {
	p := Protected{
		Project:   "/home/dev/proj",
		Home:      "/home/dev",
		StateDir:  "/home/dev/.local/state/loopbreaker/projects/proj-1a2b",
		StateRoot: "/home/dev/.local/state/loopbreaker",
		Config:    []string{"/home/dev/.config/loopbreaker/config.yaml", "/etc/lb/team.yaml"},
		Binaries:  []string{"/usr/local/bin/loopbreaker"},
		Vars: map[string]string{
			"HOME":           "/home/dev",
			"XDG_STATE_HOME": "/home/dev/.local/state",
		},
	}
	// Every CLI's hook settings, as the hook of each guards its own.
	getenv := func(k string) string { return p.Vars[k] }
	for _, a := range all.Agents() {
		g := a.Guarded(p.Project, getenv)
		p.Hooks = append(p.Hooks, g.Files...)
		p.HookDirs = append(p.HookDirs, g.Dirs...)
	}
	return p
}

func kinds(fs []Finding) []Kind {
	var ks []Kind
	for _, f := range fs {
		if !slices.Contains(ks, f.Kind) {
			ks = append(ks, f.Kind)
		}
	}
	return ks
}

// TestShellRefused: each command would silence the breaker; the first
// kind listed must be among the findings.
func TestShellRefused(t *testing.T) {
	cases := []struct {
		cmd  string
		kind Kind
	}{
		// loopbreaker's own commands that change the breaker.
		{"loopbreaker reset --session claude", KindCommand},
		{"loopbreaker reset --session claude --guidance 'carry on'", KindCommand},
		{"/usr/local/bin/loopbreaker reset", KindCommand},
		{"./bin/loopbreaker hook uninstall claude", KindCommand},
		{"loopbreaker hook install claude --user", KindCommand},
		{"loopbreaker init", KindCommand},
		{"loopbreaker recover --discard", KindCommand},
		{"loopbreaker migrate --from .loopbreaker --to redis://127.0.0.1:6379/0", KindCommand},
		{"loopbreaker -C . reset", KindCommand},
		{"loopbreaker --set enabled=false record --iteration x", KindCommand},
		{"loopbreaker compact", KindCommand},
		{"loopbreaker serve --addr 127.0.0.1:7777", KindCommand},
		{"loopbreaker checkpoint clean", KindCommand},
		{"echo '{}' | loopbreaker hook claude", KindCommand},
		{"sudo loopbreaker reset", KindCommand},
		{"sudo -u root loopbreaker reset", KindCommand},
		{"command loopbreaker reset", KindCommand},
		{"exec loopbreaker reset", KindCommand},
		{"nohup loopbreaker reset >/dev/null 2>&1 &", KindCommand},
		{"timeout 5 loopbreaker reset", KindCommand},
		{"echo claude | xargs loopbreaker reset --session", KindCommand},
		{"env loopbreaker reset", KindCommand},
		{"env -i PATH=/usr/bin loopbreaker reset", KindCommand},
		{"go test ./... && loopbreaker reset", KindCommand},
		{"go test ./... || loopbreaker reset", KindCommand},
		{"echo hi; loopbreaker reset", KindCommand},
		{"true\nloopbreaker reset", KindCommand},
		{"cat notes | loopbreaker reset", KindCommand},
		{"(loopbreaker reset)", KindCommand},
		{"{ loopbreaker reset; }", KindCommand},
		{"echo $(loopbreaker reset)", KindCommand},
		{"echo `loopbreaker reset`", KindCommand},
		{"x=$(loopbreaker reset --session claude)", KindCommand},
		{"if true; then loopbreaker reset; fi", KindCommand},
		{"for i in 1 2; do loopbreaker reset; done", KindCommand},
		{"f() { loopbreaker reset; }; f", KindCommand},
		{"coproc loopbreaker reset", KindCommand},
		{"case x in x) loopbreaker reset;; esac", KindCommand},
		{"env -S 'loopbreaker reset'", KindCommand},
		{"bash -c 'loopbreaker reset'", KindCommand},
		{`sh -lc "cd /tmp && loopbreaker reset"`, KindCommand},
		{`bash -c "bash -c 'loopbreaker reset'"`, KindCommand},
		{`eval "loopbreaker reset"`, KindCommand},
		{`eval loopbreaker reset`, KindCommand},
		{"lb''reset=1; loop\"breaker\" re\\set", KindCommand},
		{"go run ./cmd/loopbreaker reset", KindCommand},
		{"go run github.com/loopbreaker/loopbreaker/cmd/loopbreaker@latest hook uninstall codex", KindCommand},
		{"loopbreaker $(echo reset)", KindCommand},
		{"Remove-Item -Recurse -Force .loopbreaker", KindState},

		// The state directory, legacy and resolved, and the state root.
		{"rm -rf .loopbreaker", KindState},
		{"rm -rf .loopbreaker/", KindState},
		{"rm .loopbreaker/state.json", KindState},
		{"rm -rf ~/.local/state/loopbreaker", KindState},
		{`rm -rf "$HOME/.local/state"`, KindState},
		{"rm -rf $XDG_STATE_HOME/loopbreaker", KindState},
		{"rm -rf ${XDG_STATE_HOME}/loopbreaker/projects/*", KindState},
		{"rm -rf /home/dev/.local/state/loopbreaker/projects/proj-1a2b/journal", KindState},
		{"rm -rf ~", KindState},
		{"rm -rf /", KindState},
		{"rm -rf .[!.]*", KindState},
		{"rm -rf .l*", KindState},
		{"mv .loopbreaker /tmp/lb-old", KindState},
		{"chmod 000 .loopbreaker", KindState},
		{"dd if=/dev/zero of=/home/dev/.local/state/loopbreaker/projects/proj-1a2b/state.json", KindState},
		{"git clean -fdx", KindState},
		{"git clean -fdX", KindState},
		{"find . -name '*.go' | xargs rm -rf .loopbreaker", KindState},

		// The configuration.
		{"rm loopbreaker.yaml", KindConfig},
		{"rm -f ./sub/../loopbreaker.yaml", KindConfig},
		{"rm -rf /home/dev/proj", KindConfig},
		{"cd .. && rm -rf proj", KindConfig},
		{"cd /tmp; cd /home/dev/proj && rm loopbreaker.yml", KindConfig},
		{"cd \"$SOMEWHERE\" && rm loopbreaker.yaml", KindConfig},
		{"cd \"$SOMEWHERE\" && rm -rf .loopbreaker", KindState},
		{"cd \"$SOMEWHERE\" && rm -rf .local", KindState},
		{"cd \"$SOMEWHERE\" && echo x > .claude/settings.json", KindHooks},
		{"rm -rf ./*", KindConfig},
		{"mv loopbreaker.yaml /tmp/", KindConfig},
		{"cp /dev/null loopbreaker.yaml", KindConfig},
		{"cp /tmp/mine.yaml /home/dev/proj/loopbreaker.yaml", KindConfig},
		{"truncate -s 0 loopbreaker.yml", KindConfig},
		{"sed -i 's/enabled: true/enabled: false/' loopbreaker.yaml", KindConfig},
		{"sed -i.bak -e 's/3/30/' loopbreaker.yaml", KindConfig},
		{"perl -pi -e 's/trip: 2/trip: 99/' loopbreaker.yaml", KindConfig},
		{"yq -i '.enabled = false' loopbreaker.yaml", KindConfig},
		{"echo 'enabled: false' > loopbreaker.yaml", KindConfig},
		{"echo 'cooldown: 1s' >> loopbreaker.yaml", KindConfig},
		{"printf 'enabled: false\\n' >| /home/dev/proj/loopbreaker.yaml", KindConfig},
		{"cat > loopbreaker.yaml <<'EOF'\nenabled: false\nEOF", KindConfig},
		{"echo x 2>&1 >loopbreaker.yaml", KindConfig},
		{"git checkout -- loopbreaker.yaml", KindConfig},
		{"git checkout HEAD~3 -- loopbreaker.yaml", KindConfig},
		{"git -C /home/dev/proj restore loopbreaker.yaml", KindConfig},
		{"git rm loopbreaker.yaml", KindConfig},
		{"vim loopbreaker.yaml", KindConfig},
		{"echo x > ~/.config/loopbreaker/config.yaml", KindConfig},
		{"rm /etc/lb/team.yaml", KindConfig},
		{"Set-Content -Path loopbreaker.yaml -Value 'enabled: false'", KindConfig},
		{"echo \"unterminated; rm loopbreaker.yaml", KindConfig},
		{"echo \"$(rm loopbreaker.yaml)\"; cd /tmp", KindConfig},
		{"rm loopbreaker.yaml\x00", KindConfig},

		// The agent CLIs' hook settings, project and user.
		{"ln -sf /dev/null .claude/settings.json", KindHooks},
		{"printf '{}' | tee .claude/settings.local.json", KindHooks},
		{"echo '{}' > ~/.claude/settings.json", KindHooks},
		{"echo '{}' > ~/.gemini/settings.json", KindHooks},
		{"cat > ~/.codex/hooks.json <<EOF\n{}\nEOF", KindHooks},
		{"rm ~/.codex/config.toml", KindHooks},
		{"rm -rf .codex", KindHooks},
		{"rm -rf .claude", KindHooks},
		{"git restore .claude/settings.json", KindHooks},
		{"jq 'del(.hooks)' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json", KindHooks},
		{"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\nEOF", KindHooks},
		{"rm .github/hooks/loopbreaker.json", KindHooks},
		{"rm -rf .github", KindHooks},
		{"echo '{\"version\":1,\"hooks\":{}}' > .github/hooks/loopbreaker.json", KindHooks},
		{"git checkout -- .github/hooks", KindHooks},

		// The program.
		{"rm /usr/local/bin/loopbreaker", KindBinary},
		{"cp /bin/true /usr/local/bin/loopbreaker", KindBinary},
		{"chmod -x /usr/local/bin/loopbreaker", KindBinary},
		{"sudo ln -sf /bin/true /usr/local/bin/loopbreaker", KindBinary},

		// Variables and processes.
		{"export LOOPBREAKER_ENABLED=false", KindEnv},
		{"LOOPBREAKER_ENABLED=0 claude -p 'go on'", KindEnv},
		{"declare -x LOOPBREAKER_DIR=/tmp/empty", KindEnv},
		{"unset LOOPBREAKER_SESSION", KindEnv},
		{"env -u LOOPBREAKER_DIR make", KindEnv},
		{"env LOOPBREAKER_SESSION=other make", KindEnv},
		{"pkill loopbreaker", KindKill},
		{`pkill -f "loopbreaker serve"`, KindKill},
		{"killall -9 loopbreaker", KindKill},
	}
	for _, c := range cases {
		got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{c.cmd}}, fixture())
		if !slices.Contains(kinds(got), c.kind) {
			t.Errorf("%q: findings %v, want one of kind %s", c.cmd, got, c.kind)
		}
	}
}

// TestShellAllowed: ordinary work, read-only uses of loopbreaker and its
// files, and commands that only mention it pass.
func TestShellAllowed(t *testing.T) {
	for _, cmd := range []string{
		"grep -rn loopbreaker .",
		"rg LOOPBREAKER_ docs/",
		"go test ./...",
		"go test ./... 2>&1 | tail -40",
		"go build -o bin/app ./cmd/app",
		"go run ./cmd/tool reset",
		"make test",
		"npm test",
		"python3 -m pytest -q",
		"cat loopbreaker.yaml",
		"less .claude/settings.json",
		"cat .claude/settings.json | jq .hooks",
		"cat .github/hooks/loopbreaker.json",
		"ls .github/hooks",
		"ls -la .loopbreaker ~/.local/state/loopbreaker",
		"cp loopbreaker.yaml /tmp/backup.yaml",
		"sed 's/enabled/x/' loopbreaker.yaml",
		"diff loopbreaker.yaml /tmp/backup.yaml",
		"loopbreaker status --session claude",
		"loopbreaker report --json",
		"loopbreaker history -n 20",
		"loopbreaker hook status",
		"loopbreaker config",
		"loopbreaker version",
		"loopbreaker --help",
		"loopbreaker",
		"loopbreaker scope justify internal/auth/token.go --test TestToken 'the token parser is what the test covers'",
		"loopbreaker checkpoint list",
		"echo 'run loopbreaker reset when you are back' > NOTES.md",
		"echo LOOPBREAKER_ENABLED",
		"git status",
		"git diff loopbreaker.yaml",
		"git commit -am 'fix the parser'",
		"git add -A && git commit -m wip",
		"git checkout main",
		"git checkout -b fix/parser",
		"git checkout -- src/main.go",
		"git restore --staged .",
		"git clean -fd",
		"git clean -ndx",
		"git log -p -- loopbreaker.yaml",
		"rm -rf build node_modules dist",
		"rm -f src/old.go && mv src/a.go src/b.go",
		"rm sub/loopbreaker.yaml",
		"touch loopbreaker.go",
		"sed -i 's/a/b/' main.go",
		"echo hi > out.txt",
		"go test ./... >&2",
		"cmd 2>/dev/null",
		"cp -r src .",
		"mv build/app .",
		"pgrep loopbreaker",
		"ps aux | grep loopbreaker",
		"kill %1",
		"cd /tmp && rm -rf scratch",
		"docker run --rm -v $PWD:/src golang go test ./...",
		"for f in *.go; do gofmt -l $f; done",
		"cat <<'EOF' > plan.md\nloopbreaker reset is for people\nEOF",
		"find . -name '*.orig' -delete",
		"cd \"$(mktemp -d)\" && rm -rf *",
		"cd \"$BUILD\" && rm -rf state dev home proj",
		"cd $WORKDIR && rm -rf */",
	} {
		if got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{cmd}}, fixture()); len(got) > 0 {
			t.Errorf("%q: refused as %v; ordinary work must pass", cmd, got)
		}
	}
}

// TestWrites: edit tools are checked by the paths they write.
func TestWrites(t *testing.T) {
	refused := map[string]Kind{
		"/home/dev/proj/loopbreaker.yaml":                                    KindConfig,
		"loopbreaker.yml":                                                    KindConfig,
		"src/../loopbreaker.yaml":                                            KindConfig,
		".claude/settings.json":                                              KindHooks,
		".claude/settings.local.json":                                        KindHooks,
		"~/.claude/settings.json":                                            KindHooks,
		"/home/dev/.gemini/settings.json":                                    KindHooks,
		".codex/hooks.json":                                                  KindHooks,
		"/home/dev/.codex/config.toml":                                       KindHooks,
		".github/hooks/loopbreaker.json":                                     KindHooks,
		".github/hooks/other.json":                                           KindHooks,
		"~/.copilot/hooks/loopbreaker.json":                                  KindHooks,
		".pi/extensions/loopbreaker.js":                                      KindHooks,
		".pi/extensions/undo.ts":                                             KindHooks,
		"opencode.json":                                                      KindHooks,
		".opencode/plugins/undo.js":                                          KindHooks,
		"~/.config/opencode/opencode.jsonc":                                  KindHooks,
		"~/.pi/agent/extensions/undo.js":                                     KindHooks,
		".opencode/plugins/loopbreaker.js":                                   KindHooks,
		".opencode/plugin/undo.ts":                                           KindHooks,
		"~/.config/opencode/plugins/undo.js":                                 KindHooks,
		".loopbreaker/state.json":                                            KindState,
		"/home/dev/.local/state/loopbreaker/projects/proj-1a2b/state.json":   KindState,
		"/home/dev/.local/state/loopbreaker/projects/other-9f9f/journal.log": KindState,
	}
	for path, kind := range refused {
		got := Check(Call{Cwd: "/home/dev/proj", Writes: []string{path}}, fixture())
		if !slices.Contains(kinds(got), kind) {
			t.Errorf("write %s: findings %v, want %s", path, got, kind)
		}
	}
	for _, path := range []string{"src/main.go", "docs/loopbreaker.yaml.md", ".claude/agents/reviewer.md", "/home/dev/other/loopbreaker.yaml", "CLAUDE.md", ".github/workflows/ci.yml", ".pi/prompts/review.md", ".opencode/agent/review.md"} {
		if got := Check(Call{Cwd: "/home/dev/proj", Writes: []string{path}}, fixture()); len(got) > 0 {
			t.Errorf("write %s: refused as %v", path, got)
		}
	}
}

// TestArgv: Codex's exec arrays are commands without a shell; a shell
// among them is read through its -c string.
func TestArgv(t *testing.T) {
	for _, argv := range [][]string{
		{"loopbreaker", "reset"},
		{"bash", "-lc", "loopbreaker reset --session codex"},
		{"rm", "-rf", "/home/dev/proj/.loopbreaker"},
	} {
		if got := Check(Call{Cwd: "/home/dev/proj", Argv: [][]string{argv}}, fixture()); len(got) == 0 {
			t.Errorf("%q: not refused", argv)
		}
	}
	if got := Check(Call{Cwd: "/home/dev/proj", Argv: [][]string{{"bash", "-lc", "go test ./..."}}}, fixture()); len(got) > 0 {
		t.Errorf("go test refused: %v", got)
	}
}

// TestNoProject: without a known project, home or state directory, only
// the loopbreaker commands and variables are recognised; nothing panics.
func TestNoProject(t *testing.T) {
	if got := Check(Call{Shell: []string{"rm -rf loopbreaker.yaml .loopbreaker; loopbreaker reset"}}, Protected{}); !slices.Contains(kinds(got), KindCommand) || len(got) != 1 {
		t.Errorf("findings %v, want only the command", got)
	}
}

// TestNestingBounded: a deeply nested bash -c ends without a stack
// overflow.
func TestNestingBounded(t *testing.T) {
	cmd := "true"
	for range 12 {
		cmd = "bash -c " + shell.Quote(cmd)
	}
	Check(Call{Shell: []string{cmd}}, fixture())
}

func TestFindingString(t *testing.T) {
	got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{"rm loopbreaker.yaml"}}, fixture())
	if len(got) != 1 || got[0].String() != "changes loopbreaker's configuration /home/dev/proj/loopbreaker.yaml (rm)" {
		t.Fatalf("got %v", got)
	}
}

// TestFindDeletes: a find that deletes what it finds is refused when its
// starting point holds or lies in a protected path and its name tests
// (if any) can reach one; a find whose name tests reach none of
// loopbreaker's files is ordinary clean-up.
func TestFindDeletes(t *testing.T) {
	for cmd, kind := range map[string]Kind{
		`find "$XDG_STATE_HOME" -mindepth 1 -delete`:                       KindState,
		`find . -maxdepth 1 -name 'loopbreaker.y*ml' -delete`:              KindConfig,
		`find ~ -name 'settings*.json' -exec rm {} +`:                      KindHooks,
		`find ~/.local/state/loopbreaker -name '*.json' -delete`:           KindState,
		`find . -not -name '*.go' -delete`:                                 KindConfig,
		`find . ! -name '*.go' -exec rm -f {} \;`:                          KindConfig,
		`find .. -name proj -exec rm -rf {} +`:                             KindConfig,
		`find /home/dev/.local -type f -delete`:                            KindState,
		`cd /tmp && find /home/dev/proj -iname 'LOOPBREAKER.YAML' -delete`: KindConfig,
	} {
		if got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{cmd}}, fixture()); !slices.Contains(kinds(got), kind) {
			t.Errorf("%q: findings %v, want %s", cmd, got, kind)
		}
	}
	for _, cmd := range []string{
		"find . -name '*.pyc' -delete",
		"find . -type d -name __pycache__ -exec rm -rf {} +",
		"find build -type f -delete",
		"find /tmp -name 'go-build*' -exec rm -rf {} +",
		"find . -name '*.json' -newer Makefile",
		"find ~/.local/state -name '*.log'",
		"find . -name 'loopbreaker.yaml' -print",
	} {
		if got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{cmd}}, fixture()); len(got) > 0 {
			t.Errorf("%q: refused as %v; ordinary work must pass", cmd, got)
		}
	}
}
