// Package qwen runs the real Qwen Code 0.24.4 (headless `qwen PROMPT`)
// against a scripted fake OpenAI Responses API on 127.0.0.1, with
// loopbreaker's hooks installed, and asserts what loopbreaker did: the
// tool call at which it warned and halted, that the warning reached the
// model, that the CLI stopped, and that install and uninstall leave the
// settings as they were.
//
// Each scenario has its own HOME (so its own ~/.qwen) and points the CLI
// at the fake API with --auth-type openai-responses, --openai-base-url
// and a dummy key.
package qwen

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Qwen Code is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.Qwen0_24, &bins))
}
