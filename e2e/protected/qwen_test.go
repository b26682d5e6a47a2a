package protected

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Qwen Code 0.24.4 reads /etc/qwen-code/settings.json as its system
// settings. `hook install qwen --managed` writes loopbreaker's hooks there
// with "disableAllHooks": false, and they keep firing when the agent's
// user sets disableAllHooks in its own and the project's settings; the
// same hooks there without the pin are silenced by it (the control).
func TestQwenSystemHooks(t *testing.T) {
	harness.Require(t, harness.Qwen0_24)
	if bins.Loopbreaker == "" {
		t.Skip(notBuilt)
	}
	ns := harness.NewNamespace(t)
	installed := managedInstall(ns, "qwen")
	off := jsonOf(map[string]any{"disableAllHooks": true})
	both := map[string]string{".qwen/settings.json": off, "repo/.qwen/settings.json": off}
	for _, c := range []struct {
		name   string
		system map[string]string
		root   []string
		user   map[string]string
		fire   bool
	}{
		{name: "installed by hook install qwen --managed, no attack", root: installed, fire: true},
		{name: "installed by hook install qwen --managed, disableAllHooks in the user's and the project's settings", root: installed, user: both, fire: true},
		{name: "control: the hooks without the pin", system: map[string]string{"/etc/qwen-code/settings.json": jsonOf(map[string]any{"hooks": droidHooks(logHook("LOG"))})}, user: both},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := fakemodel.NewOpenAI(t, []fakemodel.Step{{Tool: "run_shell_command", Args: map[string]any{"command": "echo one", "is_background": false, "description": "Run echo one"}}}, "I am done.")
			n, out := runProbe(t, ns, probe{agent: harness.Qwen0_24, system: c.system, root: c.root, user: c.user,
				env: []string{"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"},
				args: []string{"--auth-type", "openai-responses", "--openai-base-url", api.URL, "--openai-api-key", "dummy",
					"-m", "gpt-fake", "--yolo", "run it"}})
			if len(api.Log.Main()) < 2 {
				t.Fatalf("qwen asked the model %d times, want 2 (the call and the answer)\n%s", len(api.Log.Main()), out)
			}
			t.Logf("the system hooks ran %d times", n)
			switch {
			case c.fire && n < 2:
				t.Errorf("the system hooks ran %d times, want PreToolUse and PostToolUse of the call\n%s", n, out)
			case !c.fire && n != 0:
				t.Errorf("the system hooks ran %d times, want none (the user's disableAllHooks wins without the pin)\n%s", n, out)
			}
		})
	}
}

// Protected mode whole with Qwen Code 0.24.4, its hooks switched off by
// the agent's user with disableAllHooks in its own and the project's
// settings (runProtectedBreaker).
func TestProtectedBreakerWithQwen(t *testing.T) {
	off := jsonOf(map[string]any{"disableAllHooks": true})
	runProtectedBreaker(t, protectedCLI{agent: harness.Qwen0_24, tool: "qwen",
		model: func(t *testing.T, cmds ...string) fakeModel {
			var steps []fakemodel.Step
			for _, c := range cmds {
				steps = append(steps, fakemodel.Step{Tool: "run_shell_command", Args: map[string]any{"command": c, "is_background": false, "description": "Run " + c}})
			}
			api := fakemodel.NewOpenAI(t, steps, "I am done.")
			return fakeModel{url: api.URL, log: api.Log}
		},
		run: func(url string) (map[string]string, []string, []string) {
			return map[string]string{".qwen/settings.json": off, "repo/.qwen/settings.json": off},
				[]string{"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"},
				[]string{"--auth-type", "openai-responses", "--openai-base-url", url, "--openai-api-key", "dummy", "-m", "gpt-fake", "--yolo", "run the commands"}
		}})
}
