package kilocode

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// runTimeout bounds one `kilo run`; its start-up takes most of a run.
const runTimeout = 5 * time.Minute

// probePlugin is the test's plugin: it appends each hook's input and
// output as a JSON line to $KILO_PROBE_LOG, and, when $KILO_PROBE_HALT is
// set, aborts the session in tool.execute.before and fails the call with
// that text.
const probePlugin = `import fs from "node:fs";
const log = process.env.KILO_PROBE_LOG;
function write(hook, input, output) {
  fs.appendFileSync(log, JSON.stringify({ hook, input, output }) + "\n");
}
export const Probe = async ({ client }) => ({
  "tool.execute.before": async (input, output) => {
    write("tool.execute.before", input, output);
    const halt = process.env.KILO_PROBE_HALT;
    if (halt) {
      await client.session.abort({ path: { id: input.sessionID } });
      throw new Error(halt);
    }
  },
  "tool.execute.after": async (input, output) => write("tool.execute.after", input, output),
  "chat.message": async (input, output) => write("chat.message", input, output),
  event: async ({ event }) => {
    const part = event.properties && event.properties.part;
    const failed = event.type === "message.part.updated" && part.type === "tool" && part.state.status === "error";
    if (failed || event.type === "session.created" || event.type === "session.idle") write(event.type, event.properties, null);
  },
});
`

// agent is one scenario's Kilo Code: the project with the probe plugin
// in .kilo/plugin/, and the plugin's log.
type agent struct {
	harness.CLI
	log string
}

// newAgent prepares a scenario; it skips the test when Kilo Code 7.7.7 is
// not installed.
func newAgent(t *testing.T, env ...string) *agent {
	t.Helper()
	log := filepath.Join(t.TempDir(), "plugin.jsonl")
	a := &agent{CLI: harness.NewCLI(t, harness.KiloCode7_7, bins, nil,
		map[string]string{"README.md": "kilo smoke test\n", ".kilo/plugin/probe.js": probePlugin},
		append([]string{
			"KILO_PROBE_LOG=" + log,
			"KILO_DISABLE_MODELS_FETCH=1",
			"KILO_DISABLE_AUTOUPDATE=1",
			"KILO_DISABLE_SHARE=1",
			"KILO_DISABLE_LSP_DOWNLOAD=1",
			// Nothing of a scenario may reach the npm registry.
			"npm_config_registry=http://127.0.0.1:9/",
		}, env...)...), log: log}
	markDependencies(t, filepath.Join(a.Repo, ".kilo"))
	markDependencies(t, filepath.Join(a.Home, ".config", "kilo"))
	a.Commit("probe plugin")
	return a
}

// markDependencies marks @kilocode/plugin installed in dir, as Kilo
// leaves a configuration directory (harness.MarkNpmInstalled).
func markDependencies(t *testing.T, dir string) {
	t.Helper()
	harness.MarkNpmInstalled(t, dir, "@kilocode/plugin", harness.KiloCode7_7.Version)
}

// config is Kilo's configuration for a run: the fake API as a custom
// provider of @ai-sdk/anthropic, its one model the default, no snapshots.
func config(url string) string {
	b, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/anthropic", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "dummy"},
			"models": map[string]any{"claude-fake": map[string]any{
				"name": "Claude Fake", "tool_call": true,
				"limit": map[string]any{"context": 200000, "output": 8192},
			}},
		}},
		"model":      "fake/claude-fake",
		"autoupdate": false,
		"share":      "disabled",
		"snapshot":   false,
	})
	return string(b)
}

// kilo runs `kilo run --auto PROMPT` in the repository, the model
// answering script.
func (a *agent) kilo(prompt string, script ...fakemodel.AnthropicStep) harness.AnthropicRun {
	a.T.Helper()
	return harness.RunAnthropic(a.T, "kilo run", func(url string) harness.Cmd {
		return harness.Cmd{
			Path: a.Bin, Args: []string{"run", "--auto", prompt},
			Dir: a.Repo, Env: append(append([]string{}, a.Env...), "KILO_CONFIG_CONTENT="+config(url)),
			Timeout: runTimeout,
		}
	}, script...)
}

// entry is one line of the probe plugin's log.
type entry struct {
	Hook   string          `json:"hook"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// entries is the plugin's log.
func (a *agent) entries() []entry {
	a.T.Helper()
	f, err := os.Open(a.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		a.T.Fatal(err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			a.T.Fatalf("plugin log: %v: %s", err, sc.Bytes())
		}
		out = append(out, e)
	}
	return out
}

// ofHook are the entries of hook, in order.
func ofHook(es []entry, hook string) []entry {
	var out []entry
	for _, e := range es {
		if e.Hook == hook {
			out = append(out, e)
		}
	}
	return out
}

func bash(command string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "bash", Input: map[string]any{"command": command, "description": "Run " + command}}
}

func read(path string) fakemodel.AnthropicStep {
	return fakemodel.AnthropicStep{Tool: "read", Input: map[string]any{"filePath": path}}
}
