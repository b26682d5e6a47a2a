package pi

import (
	"strings"
	"testing"
)

// The program is written as a JavaScript string, whatever it contains,
// and read back.
func TestPiExtensionQuotesTheProgram(t *testing.T) {
	for _, prog := range []string{"loopbreaker", "/opt/my tools/loopbreaker", `/tmp/a"b\c/loopbreaker`, "/tmp/</script>\u2028/loopbreaker"} {
		ext := Extension(prog)
		if strings.Contains(ext, "__PROGRAM__") || strings.Contains(ext, "__MISSING__") {
			t.Fatalf("placeholders left in the extension for %q", prog)
		}
		if got, ok := ProgramOf([]byte(ext)); !ok || got != prog {
			t.Errorf("ProgramOf = %q, %v; want %q", got, ok, prog)
		}
	}
}
