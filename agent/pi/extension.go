package pi

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

//go:embed piextension.js
var piExtensionSource string

// Extension is the extension file `hook install pi` writes: pi has no
// hook settings, so the extension is what runs `PROGRAM hook pi` for each
// event and applies the answer (piextension.js). The program is written
// into it as a JavaScript string; when it is missing the extension warns
// once (MissingProgramWarning) and the agent goes on unguarded.
func Extension(program string) string {
	// A JSON string is a JavaScript string literal.
	prog, _ := json.Marshal(program)
	missing, _ := json.Marshal(hook.MissingProgramWarning(program, "pi"))
	return strings.NewReplacer("__PROGRAM__", string(prog), "__MISSING__", string(missing)).Replace(piExtensionSource)
}

// ProgramOf finds the program an extension Extension wrote runs, and
// whether data is such an extension.
func ProgramOf(data []byte) (string, bool) {
	s := string(data)
	if !strings.HasPrefix(s, piExtensionMark) {
		return "", false
	}
	_, rest, ok := strings.Cut(s, "\nconst PROGRAM = ")
	if !ok {
		return "", false
	}
	line, _, _ := strings.Cut(rest, "\n")
	var prog string
	if err := json.Unmarshal([]byte(strings.TrimSuffix(line, ";")), &prog); err != nil {
		return "", false
	}
	return prog, true
}

// piExtensionMark is the first line of every extension Extension wrote.
var piExtensionMark, _, _ = strings.Cut(piExtensionSource, "\n")

// ExtensionFile is the name of loopbreaker's extension in pi's
// extension directories (project .pi/extensions, user
// ~/.pi/agent/extensions), which pi loads every *.js file of.
const ExtensionFile = "loopbreaker.js"
