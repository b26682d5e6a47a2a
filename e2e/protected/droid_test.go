package protected

import (
	"encoding/json"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// droidHooks is a hooks object that runs command at every tool call.
func droidHooks(command string) map[string]any {
	h := []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 30}}}}
	return map[string]any{"PreToolUse": h, "PostToolUse": h}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

// Droid 0.215 reads /etc/factory/settings.json as its organisation's
// settings ("system-managed"). With "allowManagedHooksOnly": true at the
// top of that file its hooks keep running when the agent's user sets
// hooksDisabled in its own or the project's hooks.json, or in its
// settings.json; without it (or with the switch under "general" only) the
// user's hooksDisabled silences them.
func TestDroidSystemManagedHooks(t *testing.T) {
	harness.Require(t, harness.Droid0_215)
	ns := harness.NewNamespace(t)
	managedWith := func(top, general bool) map[string]string {
		doc := map[string]any{"hooks": droidHooks(logHook("LOG"))}
		if top {
			doc["allowManagedHooksOnly"] = true
		}
		if general {
			doc["general"] = map[string]any{"allowManagedHooksOnly": true}
		}
		return map[string]string{"/etc/factory/settings.json": jsonOf(doc)}
	}
	off := jsonOf(map[string]any{"hooksDisabled": true})
	installed := managedInstall(ns, "droid")
	both := map[string]string{".factory/hooks.json": off, "repo/.factory/hooks.json": off}
	for _, c := range []struct {
		name        string
		system      map[string]string
		user        map[string]string
		settingsOff bool
		root        []string
		fire        bool
	}{
		{name: "installed by hook install droid --managed, hooksDisabled everywhere", root: installed, user: both, settingsOff: true, fire: true},
		{name: "no attack", system: managedWith(true, false), fire: true},
		{name: "hooksDisabled in the user's and the project's hooks.json", system: managedWith(true, false), user: both, fire: true},
		{name: "hooksDisabled in the user's settings.json", system: managedWith(true, false), settingsOff: true, fire: true},
		{name: "control: no allowManagedHooksOnly", system: managedWith(false, false), user: both},
		{name: "control: allowManagedHooksOnly under general only", system: managedWith(false, true), user: both},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.system == nil && c.root == nil {
				t.Skip(notBuilt)
			}
			fake := fakemodel.NewAnthropic(
				fakemodel.AnthropicStep{Tool: "Execute", Input: map[string]any{"command": "echo one", "riskLevel": "low", "riskLevelReason": "a test"}},
				fakemodel.Text("done"))
			t.Cleanup(fake.Close)
			settings := map[string]any{"customModels": []any{map[string]any{
				"model": "claude-fake", "displayName": "Fake", "baseUrl": fake.URL,
				"apiKey": "dummy", "provider": "anthropic", "maxOutputTokens": 4096,
			}}}
			if c.settingsOff {
				settings["hooks"] = map[string]any{"hooksDisabled": true}
			}
			user := map[string]string{".factory/settings.json": jsonOf(settings)}
			for k, v := range c.user {
				user[k] = v
			}
			n, out := runProbe(t, ns, probe{agent: harness.Droid0_215, system: c.system, root: c.root, user: user,
				env:  []string{"FACTORY_AIRGAP_ENABLED=1", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"},
				args: []string{"exec", "--auto", "high", "-m", "custom:Fake-0", "run it"}})
			if len(fake.Log.Main()) < 2 {
				t.Fatalf("droid asked the model %d times, want 2 (the call and the answer)\n%s", len(fake.Log.Main()), out)
			}
			switch {
			case c.fire && n < 2:
				t.Errorf("the system hooks ran %d times, want PreToolUse and PostToolUse of the call\n%s", n, out)
			case !c.fire && n != 0:
				t.Errorf("the system hooks ran %d times, want none (the user's hooksDisabled wins here)\n%s", n, out)
			}
		})
	}
}

// Protected mode whole with Droid 0.215, its hooks switched off by the
// agent's user with hooksDisabled in its own and the project's hooks.json
// and in its settings.json (runProtectedBreaker).
func TestProtectedBreakerWithDroid(t *testing.T) {
	off := jsonOf(map[string]any{"hooksDisabled": true})
	runProtectedBreaker(t, protectedCLI{agent: harness.Droid0_215, tool: "droid",
		model: func(t *testing.T, cmds ...string) fakeModel {
			var steps []fakemodel.AnthropicStep
			for _, c := range cmds {
				steps = append(steps, fakemodel.AnthropicStep{Tool: "Execute", Input: map[string]any{"command": c, "riskLevel": "low", "riskLevelReason": "a test"}})
			}
			fake := fakemodel.NewAnthropic(append(steps, fakemodel.Text("done"))...)
			t.Cleanup(fake.Close)
			return fakeModel{url: fake.URL, log: &fake.Log}
		},
		run: func(url string) (map[string]string, []string, []string) {
			settings := jsonOf(map[string]any{"customModels": []any{map[string]any{
				"model": "claude-fake", "displayName": "Fake", "baseUrl": url,
				"apiKey": "dummy", "provider": "anthropic", "maxOutputTokens": 4096,
			}}, "hooks": map[string]any{"hooksDisabled": true}})
			return map[string]string{".factory/settings.json": settings, ".factory/hooks.json": off, "repo/.factory/hooks.json": off},
				[]string{"FACTORY_AIRGAP_ENABLED=1", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"},
				[]string{"exec", "--auto", "high", "-m", "custom:Fake-0", "run the commands"}
		}})
}
