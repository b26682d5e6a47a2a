// Package cline runs the real Cline CLI 3.0.65 (headless `cline PROMPT`,
// act mode, tools auto-approved) against a scripted fake OpenAI Responses
// API on 127.0.0.1, with loopbreaker's hook scripts installed in
// .clinerules/hooks (or ~/.cline/hooks), and asserts what loopbreaker
// did: the tool call at which it warned and halted, that the warning
// reached the model, that the run ended there, and that install and
// uninstall leave the folders as they were.
//
// Each scenario has its own HOME (so its own ~/.cline, with the provider
// openai-native pointed at the fake API and a dummy key) and runs Cline
// with CLINE_SESSION_BACKEND_MODE=local: the session runs in the CLI's
// own process, not in a background hub daemon that would outlive the
// test.
package cline

import (
	"flag"
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Cline is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	// A run mostly waits (Cline's start, the fake API, the hooks): four
	// at a time on two cores, unless -parallel says otherwise.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	os.Exit(harness.TierMain(m, harness.Cline3_0, &bins))
}
