package harness

import (
	"fmt"
	"os"
	"testing"
)

// TierMain is the TestMain of one agent's tier package: when a is
// installed (and LOOPBREAKER_E2E is not 0) it builds loopbreaker and the
// hook-call logger into a temp directory, stores their paths in bins, and
// runs the tests; otherwise the tests run with bins empty and skip.
func TierMain(m *testing.M, a Agent, bins *Binaries) int {
	if p, err := a.Path(); err == nil && os.Getenv("LOOPBREAKER_E2E") != "0" {
		if _, err := os.Stat(p); err == nil {
			dir, err := os.MkdirTemp("", "lb-e2e-"+a.Bin+"-")
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
