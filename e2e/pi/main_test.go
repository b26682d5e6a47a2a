// Package pi runs the real pi 0.73.1 (@mariozechner/pi-coding-agent,
// headless `pi -p PROMPT`) against a scripted fake OpenAI Responses API
// on 127.0.0.1, with loopbreaker's extension installed, and asserts what
// loopbreaker did: the tool call at which it warned and halted, that the
// warning reached the model, that pi stopped, and that install and
// uninstall leave the project and the home as they were.
//
// Each scenario has its own HOME (so its own ~/.pi/agent) whose
// models.json names the fake API as a provider of its own.
package pi

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when pi is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.Pi0_73, &bins))
}
