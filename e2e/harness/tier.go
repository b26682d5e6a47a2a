package harness

import (
	"fmt"
	"os"
	"testing"
)

// TierMain runs the tests of a tier package whose scenarios drive a: when
// a is installed (and LOOPBREAKER_E2E is not 0) it first builds
// loopbreaker and the hook-call logger into *bins, in a temp directory
// removed at the end; otherwise *bins stays empty and every test skips
// at Require. It returns the exit code for os.Exit.
func TierMain(m *testing.M, a Agent, bins *Binaries) int {
	if p, err := a.Path(); err == nil && os.Getenv("LOOPBREAKER_E2E") != "0" {
		if _, err := os.Stat(p); err == nil {
			dir, err := os.MkdirTemp("", "lb-e2e-"+a.Dir+"-")
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
