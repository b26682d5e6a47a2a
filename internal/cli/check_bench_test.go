package cli

import (
	"os"
	"os/exec"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
)

// `loopbreaker check` as a whole process, embedded store against Redis:
//
//	go test -run='^$' -bench=CheckProcess -benchtime=200x ./internal/cli/
func BenchmarkCheckProcess(b *testing.B) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		b.Fatal(err)
	}
	srv := redistest.Start(b, redistest.Options{})
	dir := b.TempDir()
	for _, c := range []struct{ name, env string }{
		{"embedded", "XDG_STATE_HOME=" + stateHome(dir)},
		{"redis", "LOOPBREAKER_STORE=" + srv.URL()},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := append(os.Environ(), c.env, "HOME="+dir, "XDG_CONFIG_HOME="+dir)
			rec := exec.Command(bin, "record", "--files-changed", "1")
			rec.Dir, rec.Env = dir, env
			if out, err := rec.CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			b.ResetTimer()
			for b.Loop() {
				cmd := exec.Command(bin, "check")
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
}
