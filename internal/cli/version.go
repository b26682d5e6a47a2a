package cli

import (
	"context"
	"fmt"
	"runtime/debug"
)

// runVersion prints the module version and VCS revision the binary was
// built from.
func runVersion(_ context.Context, env *Env, _ []string) error {
	version, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " " + s.Value[:12]
			}
		}
	}
	fmt.Fprintf(env.Stdout, "loopbreaker %s%s\n", version, rev)
	return nil
}
