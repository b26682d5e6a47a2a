package harness

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TierMain is the TestMain of a tier package that needs nothing but
// loopbreaker and the hook-call logger: it builds them into *bins when a
// is installed (and the tier is not switched off), runs the tests and
// returns the exit code. When a is missing *bins stays empty and every
// test skips through Require.
func TierMain(m *testing.M, a Agent, bins *Binaries) int {
	if p, err := a.Path(); err == nil && os.Getenv("LOOPBREAKER_E2E") != "0" {
		if _, err := os.Stat(p); err == nil {
			dir, err := os.MkdirTemp("", "lb-e2e-"+strings.ToLower(a.Dir)+"-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			defer os.RemoveAll(dir)
			if *bins, err = Build(dir); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
	return m.Run()
}
