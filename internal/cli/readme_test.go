package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/config"
)

// The README is the user's reference: every command and every
// configuration key must be documented there.
func TestREADMEDocumentsEveryCommandAndKey(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, c := range commands() {
		if !strings.Contains(readme, "`loopbreaker "+c.name) {
			t.Errorf("README does not document the command %q", c.name)
		}
	}
	for _, k := range config.Keys() {
		if !strings.Contains(readme, "`"+k.Key+"`") {
			t.Errorf("README does not document the configuration key %q", k.Key)
		}
	}
}
