package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// Whole-process benchmarks: the cost a loop or a hook pays per call,
// start-up included, with a short and a long journal. The median is
// reported as ms-median; the README records the figures.
//
//	go test -run='^$' -bench=Process -benchtime=200x ./cmd/loopbreaker/
//
// The binary is built with CGO_ENABLED=0 (see buildBinary);
// CGO_ENABLED=1 go test ... measures the default, libc-linked build.

// buildBinary builds the binary the way docs/server.md tells people to:
// CGO_ENABLED=0, a static binary that starts about 0.7 ms sooner than one
// linked against libc (no dynamic loader, no cgo thread start-up). Set
// CGO_ENABLED=1 in the environment to measure the default build.
func buildBinary(b testing.TB) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "loopbreaker")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = os.Environ()
	if os.Getenv("CGO_ENABLED") == "" {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("go build: %v", err)
	}
	return bin
}

// seedProject makes a project whose session journal holds n events,
// written through the real service and store into a state directory
// outside it, which benchEnv names.
func seedProject(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "loopbreaker.yaml"), []byte("enabled: true\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	store, err := filestore.Open(benchStateDir(dir), filestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	svc := &breaker.Service{Store: store, Engine: breaker.New(lb.Defaults())}
	files := 1
	ctx := context.Background()
	for i := 0; i < n; i++ {
		it := lb.Iteration{FilesChanged: &files, Summary: "edit"}
		if _, err := svc.Apply(ctx, []string{"session:default"}, lb.Event{Kind: lb.EventIteration, Caller: "default", Iteration: &it}); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchProcess(b *testing.B, args ...string) {
	bin := buildBinary(b)
	for _, n := range []int{100, 100_000} {
		b.Run(journalName(n), func(b *testing.B) {
			dir := seedProject(b, n)
			var times []time.Duration
			b.ResetTimer()
			for b.Loop() {
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				cmd.Env = benchEnv(dir)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				times = append(times, time.Since(start))
				if err != nil {
					b.Fatalf("%v: %v\n%s", args, err, out)
				}
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
		})
	}
}

func journalName(n int) string { return "journal=" + strconv.Itoa(n) }

func BenchmarkProcessCheck(b *testing.B) { benchProcess(b, "check") }

func BenchmarkProcessRecord(b *testing.B) {
	benchProcess(b, "record", "--files-changed", "1", "--tests-passing", "3", "--tests-failing", "1")
}

// benchStateDir is the state directory of a project the benchmarks seed:
// beside it, outside it.
func benchStateDir(project string) string { return project + ".state" }

// benchEnv is the environment of the processes a benchmark runs in
// project: an isolated home, and the state directory seeded for it.
// tool_calls.no_effect is off: the hook benchmarks make hundreds of tool
// calls that change nothing, and would measure an OPEN breaker after the
// 40th.
func benchEnv(project string) []string {
	return []string{"HOME=" + project, "XDG_CONFIG_HOME=" + project, "LOOPBREAKER_DIR=" + benchStateDir(project), "PATH=" + os.Getenv("PATH"), "LOOPBREAKER_TOOL_CALLS_NO_EFFECT=0"}
}
