// Package kilocode runs the real Kilo Code CLI 7.7.7 (`kilo run PROMPT`),
// a fork of OpenCode, against a scripted fake Anthropic Messages API on
// 127.0.0.1 and asserts what its plugin API does (hook/PROTOCOLS.md
// §0.11): that it runs tool calls offline, which plugin hooks fire with
// what inputs, and that a plugin can end the run (with a probe plugin of
// the test's own that logs what it sees), and that loopbreaker's adapter
// (agent/kilocode), installed with `hook install kilocode`, halts a loop
// (guard_test.go).
//
// Each scenario has its own HOME (so its own ~/.config/kilo and
// ~/.local/share/kilo). The CLI is pointed at the fake API by a custom
// provider in KILO_CONFIG_CONTENT (@ai-sdk/anthropic, bundled in the
// binary, with the fake's baseURL). Offline, Kilo would also npm-install
// @kilocode/plugin into every configuration directory it reads (.kilo/,
// ~/.config/kilo/): the scenarios mark those as installed and point npm
// at a closed port. Snapshots are off: on a loaded machine their first
// build asks a blocking question that `kilo run` waits out.
package kilocode

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Kilo Code is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.KiloCode7_7, &bins))
}
