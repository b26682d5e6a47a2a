package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}}
	tests := []struct {
		name                         string
		bi                           *debug.BuildInfo
		stamp                        [3]string
		version, revision, built, os string
	}{
		{"release stamp wins over a devel module", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			[3]string{"1.2.3", "fedcba9876543210", "2026-11-27T10:00:00Z"}, "1.2.3", "fedcba9876543210", BuiltRelease, ""},
		{"go install", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			[3]string{}, "v1.2.3", "", BuiltInstall, ""},
		{"go build in a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			[3]string{}, "(devel)", "0123456789abcdef0123", BuiltCheckout, "darwin"},
		{"go build with -buildvcs=false", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			[3]string{}, "(devel)", "", BuiltNoVCS, ""},
		{"no build info", nil, [3]string{}, "(devel)", "", BuiltNoModInfo, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := From(tt.bi, tt.stamp[0], tt.stamp[1], tt.stamp[2])
			if in.Version != tt.version || in.Revision != tt.revision || in.Built != tt.built {
				t.Errorf("got version %q revision %q built %q; want %q %q %q", in.Version, in.Revision, in.Built, tt.version, tt.revision, tt.built)
			}
			if tt.os != "" && in.OS != tt.os {
				t.Errorf("os %q, want %q from the build settings", in.OS, tt.os)
			}
			if in.Built == BuiltRelease && in.Modified {
				t.Error("a release stamp reports a modified tree")
			}
		})
	}
}
