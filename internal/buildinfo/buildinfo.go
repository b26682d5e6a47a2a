// Package buildinfo says which build of loopbreaker is running: the
// version and revision a release script stamps in at link time, else what
// the Go toolchain recorded (the module version of `go install
// module@version`, the VCS revision of a `go build` in a checkout).
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Stamped by scripts/release with -ldflags "-X ...": a link-time constant,
// never written at run time. Empty in any other build.
var (
	stampedVersion  string
	stampedRevision string
	stampedTime     string
)

// How a binary was built, as Info.Built says it.
const (
	BuiltRelease   = "release"    // scripts/release stamped version and revision
	BuiltInstall   = "go install" // a module version from `go install module@version`
	BuiltCheckout  = "go build"   // in a git checkout, with VCS stamping on
	BuiltNoVCS     = "go build, -buildvcs=false"
	BuiltNoModInfo = "unknown: no module information"
)

// Info is what `loopbreaker version --json` prints.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"` // full commit hash; empty when unknown
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Built     string `json:"built"`
}

// Read is the running binary's Info.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return From(bi, stampedVersion, stampedRevision, stampedTime)
}

// From is the Info of a binary with build info bi and the values a release
// stamped in (empty when none): the stamp wins, since a release builds with
// -buildvcs=false and from a path, where the toolchain knows neither.
func From(bi *debug.BuildInfo, version, revision, when string) Info {
	in := Info{OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version()}
	if bi != nil {
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		in.Version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			case "GOOS":
				in.OS = s.Value
			case "GOARCH":
				in.Arch = s.Value
			}
		}
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	switch {
	case version != "":
		in.Version, in.Revision, in.Time, in.Modified = version, revision, when, false
		in.Built = BuiltRelease
	case bi == nil:
		in.Built = BuiltNoModInfo
	case in.Revision != "":
		in.Built = BuiltCheckout
	case in.Version != "(devel)":
		in.Built = BuiltInstall
	default:
		in.Built = BuiltNoVCS
	}
	return in
}

// Short is the revision cut to 12 characters, as git shows it.
func (in Info) Short() string {
	if len(in.Revision) > 12 {
		return in.Revision[:12]
	}
	return in.Revision
}
