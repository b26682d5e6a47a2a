package protected

import (
	"encoding/json"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// probePlugin is an OpenCode plugin that logs each tool call it sees.
const probePlugin = `import { appendFileSync } from "fs";
export const Probe = async () => ({
  "tool.execute.before": async () => { appendFileSync("LOG", "fired\n") },
});
`

// npmMarked are the files that tell OpenCode (and Kilo Code) that the
// plugin package of a configuration directory is installed, so that it
// runs no npm offline (harness.MarkNpmInstalled).
func npmMarked(dir, pkg, version string) map[string]string {
	return map[string]string{
		dir + "/package-lock.json":  `{"lockfileVersion":3,"packages":{"":{"dependencies":{"` + pkg + `":"` + version + `"}}}}` + "\n",
		dir + "/node_modules/.keep": "",
	}
}

// fakeProvider is an OpenCode (or Kilo Code) configuration whose one
// model is the fake Anthropic API at url.
func fakeProvider(url string) string {
	b, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/anthropic", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"claude-fake": map[string]any{"name": "Claude Fake", "tool_call": true, "limit": map[string]any{"context": 200000, "output": 8192}}},
		}},
		"model": "fake/claude-fake", "autoupdate": false, "share": "disabled",
	})
	return string(b)
}

// pluginProbe runs a plugin CLI (OpenCode, Kilo Code) with probePlugin in
// its managed configuration directory (root's, in /etc), as the agent's
// user with extra env and args, and returns how often the plugin saw a
// tool call.
func pluginProbe(t *testing.T, ns *harness.Namespace, a harness.Agent, pkg, etc, config, userDir, configVar string, env, args []string) int {
	t.Helper()
	fake := fakemodel.NewAnthropic(fakemodel.AnthropicStep{Tool: "bash", Input: map[string]any{"command": "echo one", "description": "Run echo one"}}, fakemodel.Text("done"))
	t.Cleanup(fake.Close)
	system := npmMarked(etc, pkg, a.Version)
	system[etc+"/plugins/probe.js"] = probePlugin
	system[etc+"/"+config] = `{"plugin": ["file://` + etc + `/plugins/probe.js"]}` + "\n"
	user := npmMarked(userDir, pkg, a.Version)
	e := append([]string{configVar + "=" + fakeProvider(fake.URL), "npm_config_registry=http://127.0.0.1:9/"}, env...)
	n, out := runProbe(t, ns, probe{agent: a, system: system, user: user, env: e, args: append([]string{"run", "run it"}, args...)})
	if len(fake.Log.Main()) < 2 {
		t.Fatalf("%s asked the model %d times, want 2 (the call and the answer)\n%s", a.Name, len(fake.Log.Main()), out)
	}
	t.Logf("the managed plugin saw %d tool calls", n)
	return n
}

// OpenCode 1.18 reads /etc/opencode as its managed configuration
// directory and loads a plugin its opencode.json names; but --pure or
// OPENCODE_PURE=1, which the agent's user sets at will, loads none: no
// managed scope that the user cannot switch off.
func TestOpenCodeManagedPlugins(t *testing.T) {
	harness.Require(t, harness.OpenCode1_18)
	ns := harness.NewNamespace(t)
	base := []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1"}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		fire bool
	}{
		{name: "no attack", fire: true},
		{name: "OPENCODE_PURE", env: []string{"OPENCODE_PURE=1"}},
		{name: "--pure", args: []string{"--pure"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := pluginProbe(t, ns, harness.OpenCode1_18, "@opencode-ai/plugin", "/etc/opencode", "opencode.json", ".config/opencode", "OPENCODE_CONFIG_CONTENT", append(base, c.env...), c.args)
			if c.fire != (n > 0) {
				t.Errorf("the managed plugin saw %d tool calls, want fired=%v", n, c.fire)
			}
		})
	}
}
