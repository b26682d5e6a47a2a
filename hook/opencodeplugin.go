package hook

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"
)

//go:embed opencodeplugin.js
var openCodePluginSource string

// OpenCodePluginName is the file name of loopbreaker's plugin in an
// OpenCode plugins directory (.opencode/plugins/, ~/.config/opencode/plugins/).
const OpenCodePluginName = "loopbreaker.js"

// OpenCodePlugin is the plugin that guards OpenCode with program: it runs
// `program hook opencode EVENT` for every tool call, prompt and turn end
// and applies the answer. program is spawned without a shell, so it is an
// absolute path or a name looked up on PATH; when it is missing the plugin
// warns once and lets every call go on.
func OpenCodePlugin(program string) []byte {
	// JSON strings are JavaScript string literals.
	prog, _ := json.Marshal(program)
	missing, _ := json.Marshal(MissingProgramWarning(program, OpenCode))
	r := strings.NewReplacer(`"@PROGRAM@"`, string(prog), `"@MISSING@"`, string(missing))
	return []byte(r.Replace(openCodePluginSource))
}

// OpenCodePluginProgram is the program an installed plugin runs, read back
// from its source, and whether the source is loopbreaker's plugin at all.
func OpenCodePluginProgram(source []byte) (string, bool) {
	s := string(source)
	if !strings.HasPrefix(s, openCodePluginHeader) {
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

// openCodePluginHeader starts every plugin loopbreaker wrote.
var openCodePluginHeader, _, _ = strings.Cut(openCodePluginSource, "\n")

// OpenCodeConfigDir is OpenCode's user configuration directory:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode.
func OpenCodeConfigDir(home string, getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	return filepath.Join(home, ".config", "opencode")
}
