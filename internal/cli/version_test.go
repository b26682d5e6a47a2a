package cli

import (
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/buildinfo"
)

func TestVersionLine(t *testing.T) {
	base := buildinfo.Info{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64"}
	with := func(f func(*buildinfo.Info)) buildinfo.Info { in := base; f(&in); return in }
	tests := []struct {
		name string
		in   buildinfo.Info
		want string
	}{
		{"release", with(func(in *buildinfo.Info) {
			in.Version, in.Revision, in.Time, in.Built = "1.2.3", "0123456789abcdef0123", "2026-11-21T09:00:00Z", buildinfo.BuiltRelease
		}), "loopbreaker 1.2.3 (revision 0123456789ab, 2026-11-21T09:00:00Z; release; go1.26.8 linux/amd64)"},
		{"go install", with(func(in *buildinfo.Info) { in.Version, in.Built = "v1.2.3", buildinfo.BuiltInstall }),
			"loopbreaker v1.2.3 (go install; go1.26.8 linux/amd64)"},
		{"git checkout, modified", with(func(in *buildinfo.Info) {
			in.Version, in.Revision, in.Modified, in.Built = "(devel)", "0123456789abcdef0123", true, buildinfo.BuiltCheckout
		}), "loopbreaker (devel) (revision 0123456789ab, modified; go build; go1.26.8 linux/amd64)"},
		{"no vcs", with(func(in *buildinfo.Info) { in.Version, in.Built = "(devel)", buildinfo.BuiltNoVCS }),
			"loopbreaker (devel) (revision unknown: built with -buildvcs=false or outside a git checkout; scripts/release stamps it in; go1.26.8 linux/amd64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.in); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 12 * time.Second: "12s", time.Hour: "1h", 90 * time.Minute: "1h 30m",
		29*time.Minute + 59*time.Second + 400*time.Millisecond: "29m 59s", 25*time.Hour + 1*time.Second: "25h 1s",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
