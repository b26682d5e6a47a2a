package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what one of loopbreaker's own packages may allocate
// before main: every process (each hook call) pays for it, and a command
// that does not use a package-level regular expression or table should not
// build it (internal/lazyre compiles on first use).
const maxInitBytes = 1 << 10

// TestOwnPackagesInitCheaply reads the runtime's init trace of the real
// binary: no package of this module may allocate more than maxInitBytes
// at start-up.
func TestOwnPackagesInitCheaply(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	const module = "github.com/loopbreaker/loopbreaker"
	seen := 0
	for line := range strings.Lines(string(out)) {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || (f[1] != module && !strings.HasPrefix(f[1], module+"/")) {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected init trace line %q", line)
		}
		if n > maxInitBytes {
			t.Errorf("%s allocates %d bytes before main (at most %d): make its package-level regexps or tables lazy (internal/lazyre, sync.OnceValue)", f[1], n, maxInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace line for %s in:\n%s", module, out)
	}
}
