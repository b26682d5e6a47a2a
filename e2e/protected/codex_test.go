package protected

import (
	"fmt"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// codexRequirements is /etc/codex/requirements.toml with a hook that
// logs at every tool call, with allow_managed_hooks_only, and, when pin,
// [features] hooks = true.
func codexRequirements(pin bool) string {
	s := "allow_managed_hooks_only = true\n\n"
	if pin {
		s += "[features]\nhooks = true\n\n"
	}
	for _, event := range []string{"PreToolUse", "PostToolUse"} {
		s += fmt.Sprintf("[[hooks.%s]]\n\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %q\n\n", event, event, logHook("LOG"))
	}
	return s
}

// Codex CLI 0.169 reads /etc/codex/requirements.toml, whose hooks need no
// trust. With [features] hooks = true pinned there, [features] hooks =
// false in the user's config.toml, --disable hooks and -c
// features.hooks=false do not stop them; without the pin the user's
// config.toml does, allow_managed_hooks_only or not (the control).
func TestCodexRequirementsHooks(t *testing.T) {
	harness.Require(t, harness.Codex0_169)
	ns := harness.NewNamespace(t)
	installed := managedInstall(ns, "codex")
	for _, c := range []struct {
		name  string
		root  []string
		pin   bool
		extra string
		flags []string
		fire  bool
	}{
		{name: "installed by hook install codex --managed, every switch", root: installed, extra: "\n[features]\nhooks = false\n", flags: []string{"--disable", "hooks", "-c", "features.hooks=false"}, fire: true},
		{name: "no attack", pin: true, fire: true},
		{name: "features.hooks = false in the user's config.toml", pin: true, extra: "\n[features]\nhooks = false\n", fire: true},
		{name: "--disable hooks", pin: true, flags: []string{"--disable", "hooks"}, fire: true},
		{name: "-c features.hooks=false", pin: true, flags: []string{"-c", "features.hooks=false"}, fire: true},
		{name: "control: no pin", extra: "\n[features]\nhooks = false\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			system := map[string]string{"/etc/codex/requirements.toml": codexRequirements(c.pin)}
			if c.root != nil {
				system = nil
			} else if c.name == "installed by hook install codex --managed, every switch" {
				t.Skip(notBuilt)
			}
			api := fakemodel.NewOpenAI(t, []fakemodel.Step{{Tool: "exec_command", Args: map[string]any{"cmd": "echo one"}}}, "I am done.")
			n, out := runProbe(t, ns, probe{agent: harness.Codex0_169,
				system: system, root: c.root,
				user: map[string]string{".codex/config.toml": fakemodel.CodexConfig(api.URL, c.extra)},
				env:  []string{"FAKE_OPENAI_API_KEY=dummy"},
				args: append(append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, c.flags...), "run it")})
			t.Logf("the system hooks ran %d times; %d model requests\n%s", n, len(api.Log.Main()), out)
			switch {
			case c.fire && n < 2:
				t.Errorf("the system hooks ran %d times, want PreToolUse and PostToolUse of the call", n)
			case !c.fire && n != 0:
				t.Errorf("the system hooks ran %d times, want none (the user's features.hooks = false wins without the pin)", n)
			}
		})
	}
}

// Protected mode whole with Codex CLI 0.169, its hooks switched off by
// the agent's user in its own and the project's config.toml, with
// --disable hooks and with -c features.hooks=false (runProtectedBreaker).
func TestProtectedBreakerWithCodex(t *testing.T) {
	off := "\n[features]\nhooks = false\n"
	runProtectedBreaker(t, protectedCLI{agent: harness.Codex0_169, tool: "codex",
		model: func(t *testing.T, cmds ...string) fakeModel {
			var steps []fakemodel.Step
			for _, c := range cmds {
				steps = append(steps, fakemodel.Shell(c))
			}
			api := fakemodel.NewOpenAI(t, steps, "I am done.")
			return fakeModel{url: api.URL, log: api.Log}
		},
		run: func(url string) (map[string]string, []string, []string) {
			return map[string]string{".codex/config.toml": fakemodel.CodexConfig(url, off), "repo/.codex/config.toml": off},
				[]string{"FAKE_OPENAI_API_KEY=dummy"},
				[]string{"exec", "--trust", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--disable", "hooks", "-c", "features.hooks=false", "run the commands"}
		}})
}
