// Package copilot runs the real GitHub Copilot CLI 1.0.102 (headless
// `copilot -p PROMPT`) offline against a scripted fake OpenAI Responses
// API on 127.0.0.1, with loopbreaker's hooks installed, and asserts what
// loopbreaker did: the tool call at which it warned and halted, that the
// warning and the halt reached the model, that every call after the halt
// was refused, and that install and uninstall leave the hook settings as
// they were.
//
// Each scenario has its own HOME (so its own ~/.copilot, where the
// project is trusted) and points the CLI at the fake API with
// COPILOT_OFFLINE and COPILOT_PROVIDER_* (no GitHub login).
package copilot

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Copilot CLI is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.Copilot1_0, &bins))
}
