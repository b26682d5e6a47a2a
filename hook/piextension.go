package hook

import (
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed piextension.js
var piExtensionSource string

// PiExtension is the extension file `hook install pi` writes: pi has no
// hook settings, so the extension is what runs `PROGRAM hook pi` for each
// event and applies the answer (piextension.js). The program is written
// into it as a JavaScript string; when it is missing the extension warns
// once (MissingProgramWarning) and the agent goes on unguarded.
func PiExtension(program string) string {
	// A JSON string is a JavaScript string literal.
	prog, _ := json.Marshal(program)
	missing, _ := json.Marshal(MissingProgramWarning(program, Pi))
	return strings.NewReplacer("__PROGRAM__", string(prog), "__MISSING__", string(missing)).Replace(piExtensionSource)
}

// PiProgramOf finds the program an extension PiExtension wrote runs, and
// whether data is such an extension.
func PiProgramOf(data []byte) (string, bool) {
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

// piExtensionMark is the first line of every extension PiExtension wrote.
var piExtensionMark, _, _ = strings.Cut(piExtensionSource, "\n")

// PiExtensionFile is the name of loopbreaker's extension in pi's
// extension directories (project .pi/extensions, user
// ~/.pi/agent/extensions), which pi loads every *.js file of.
const PiExtensionFile = "loopbreaker.js"
