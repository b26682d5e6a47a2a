// Package opencode runs the real OpenCode 1.18.33 (`opencode run PROMPT`)
// against a scripted fake Anthropic Messages API on 127.0.0.1, with
// loopbreaker's plugin installed, and asserts what loopbreaker did: the
// tool call at which it warned and halted, that the warning reached the
// model, that the run stopped, and that install and uninstall leave the
// project and the user's configuration as they were.
//
// Each scenario has its own HOME (so its own ~/.config/opencode and
// ~/.local/share/opencode). The CLI is pointed at the fake API by a
// custom provider in OPENCODE_CONFIG_CONTENT (@ai-sdk/anthropic, which
// the binary bundles, with the fake's baseURL). Offline, OpenCode would
// also fetch its models catalogue (OPENCODE_DISABLE_MODELS_FETCH=1 turns
// that off) and npm-install @opencode-ai/plugin into every configuration
// directory it reads (.opencode/, ~/.config/opencode/): the scenarios
// mark those as installed, as OpenCode leaves them, and point npm at a
// closed port.
package opencode

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when OpenCode is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.OpenCode1_18, &bins))
}
