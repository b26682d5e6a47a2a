// Package protected runs the real agent CLIs as they run in protected
// mode: loopbreaker's hooks installed by root in the CLI's managed
// settings (`hook install --managed`, `protect setup` with the protected
// breaker running as its own user), the agent run by an unprivileged
// user that tries to switch them off, in a private mount namespace
// (harness.Namespace) so that the machine's /etc is left untouched.
// Without root or a namespace every test skips with one line saying why.
package protected

import (
	"os"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// bins are loopbreaker and the hook-call logger, built once by TestMain
// (empty when Claude Code is not installed: every test skips then).
var bins harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(harness.TierMain(m, harness.ClaudeCode2_1, &bins))
}
