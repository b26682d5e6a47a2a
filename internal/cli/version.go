package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/buildinfo"
)

// runVersion prints the version and the revision the binary was built
// from, and how it was built, so that a bug report names its build.
func runVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlagSet("version", env)
	asJSON := fs.Bool("json", false, "print version, revision, go_version, os, arch and built (release, go install, go build) as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	in := buildinfo.Read()
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	fmt.Fprintln(env.Stdout, versionLine(in))
	return nil
}

// versionLine is `loopbreaker VERSION (revision REV, TIME, modified; HOW;
// GO OS/ARCH)`; a build that does not know its revision says why.
func versionLine(in buildinfo.Info) string {
	var details []string
	switch {
	case in.Revision != "":
		rev := []string{"revision " + in.Short()}
		if in.Time != "" {
			rev = append(rev, in.Time)
		}
		if in.Modified {
			rev = append(rev, "modified")
		}
		details = append(details, strings.Join(rev, ", "), in.Built)
	case in.Built == buildinfo.BuiltNoVCS:
		details = append(details, "revision unknown: built with -buildvcs=false or outside a git checkout; scripts/release stamps it in")
	case in.Built == buildinfo.BuiltNoModInfo:
		details = append(details, "revision unknown: built without module information")
	default:
		details = append(details, in.Built)
	}
	details = append(details, in.GoVersion+" "+in.OS+"/"+in.Arch)
	return "loopbreaker " + in.Version + " (" + strings.Join(details, "; ") + ")"
}

// buildVersion is the version the binary was built from, with its
// revision when it is a development build.
func buildVersion() string {
	in := buildinfo.Read()
	if in.Version == "(devel)" && in.Revision != "" {
		return in.Version + " " + in.Short()
	}
	return in.Version
}
