// Package droid runs the real Droid CLI 0.215.0 (Factory's `droid exec`)
// against a scripted fake Anthropic Messages API on 127.0.0.1 and asserts
// what its hooks protocol does (hook/PROTOCOLS.md §0.10): that it runs
// tool calls offline, which hook events fire with what payloads, and what
// a hook's answer does to the run (the hooks are the hook-call logger in
// front of a script that prints the answer a test chose), and that
// loopbreaker's adapter (agent/droid), installed with `hook install
// droid`, halts a loop (guard_test.go) and takes the calls of one message
// as one batch (batch_test.go: no call runs before every PreToolUse of
// its message answered, identical calls of one message are not failed
// repeats, a failed call's batch ends at the next message, a call whose
// PreToolUse the hook timeout killed is of its message's batch).
//
// Each scenario has its own HOME (so its own ~/.factory). The CLI is
// pointed at the fake API by a BYOK custom model in
// ~/.factory/settings.json (`"provider": "anthropic"`, its `baseUrl` the
// fake's), chosen with `-m custom:Fake-0`: no login is needed.
// FACTORY_AIRGAP_ENABLED=1 keeps it from resolving any other host.
package droid

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Droid is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.Droid0_215, &bins))
}
