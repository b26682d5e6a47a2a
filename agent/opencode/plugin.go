package opencode

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

//go:embed opencodeplugin.js
var pluginSource string

// PluginName is the file name of loopbreaker's plugin in an
// OpenCode plugins directory (.opencode/plugins/, ~/.config/opencode/plugins/).
const PluginName = "loopbreaker.js"

// Plugin is the plugin that guards OpenCode with program: it runs
// `program hook opencode EVENT` for every tool call, prompt and turn end
// and applies the answer. program is spawned without a shell, so it is an
// absolute path or a name looked up on PATH; when it is missing the plugin
// warns once and lets every call go on.
func Plugin(program string) []byte { return PluginFor("opencode", program) }

// PluginFor is Plugin for a CLI built on OpenCode, whose hooks are named
// tool (`program hook TOOL EVENT`).
func PluginFor(tool hook.Tool, program string) []byte {
	// JSON strings are JavaScript string literals.
	prog, _ := json.Marshal(program)
	name, _ := json.Marshal(tool)
	missing, _ := json.Marshal(hook.MissingProgramWarning(program, tool))
	r := strings.NewReplacer(`"@PROGRAM@"`, string(prog), `"@AGENT@"`, string(name), `"@MISSING@"`, string(missing))
	return []byte(r.Replace(pluginSource))
}

// PluginProgram is the program an installed plugin runs, read back
// from its source, and whether the source is loopbreaker's plugin at all.
func PluginProgram(source []byte) (string, bool) {
	s := string(source)
	if !strings.HasPrefix(s, pluginHeader) {
		return "", false
	}
	const key = "\nconst PROGRAM = "
	i := strings.Index(s, key)
	if i < 0 {
		return "", false
	}
	line, _, _ := strings.Cut(s[i+len(key):], "\n")
	var prog string
	if err := json.Unmarshal([]byte(line), &prog); err != nil || prog == "" {
		return "", false
	}
	return prog, true
}

// pluginHeader starts every plugin loopbreaker wrote.
var pluginHeader, _, _ = strings.Cut(pluginSource, "\n")

// ConfigDir is OpenCode's user configuration directory:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode.
func ConfigDir(home string, getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	return filepath.Join(home, ".config", "opencode")
}
