package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkProcessRecordGit20k: `loopbreaker record` measuring the files
// changed in a repository of 20,000 tracked files, against `git status
// --porcelain` in the same repository in the same run (the two
// alternate, one file edited before each pair). It reports the medians
// and their ratio, the figure docs/benchmarks.md quotes, and the ratio of
// their processor times:
//
//	flock /tmp/lb-timing.lock go test -run='^$' -bench=RecordGit -benchtime=60x ./cmd/loopbreaker/
//
// LOOPBREAKER_BENCH_BASELINE=/path/to/an/older/loopbreaker measures that
// binary too, in the same alternation (before/after figures).
func BenchmarkProcessRecordGit20k(b *testing.B) {
	bin := buildBinary(b)
	baseline := os.Getenv("LOOPBREAKER_BENCH_BASELINE")
	dir := b.TempDir()
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.invalid", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.invalid"}
	repo := filepath.Join(dir, "repo")
	// cpu is the processor time of a process and of the processes it
	// waited for (git, for record): unlike the time on the wall, it
	// hardly moves with the load of the machine.
	var cpu time.Duration
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return d
	}
	const files, perDir = 20_000, 100
	for i := 0; i < files; i++ {
		p := filepath.Join(repo, fmt.Sprintf("pkg%03d", i/perDir), fmt.Sprintf("file%05d.go", i))
		if i%perDir == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package p\n\n// File %d.\nconst C%d = %d\n", i, i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".loopbreaker/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	run("git", "init", "-q")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "20,000 files")
	// Files of the index written in the second it was written are racily
	// clean: every status would hash them again. Wait that second out.
	time.Sleep(1100 * time.Millisecond)
	run("git", "status", "--porcelain")
	run(bin, "record")
	if baseline != "" {
		run(baseline, "record", "--session", "baseline")
	}

	var status, ours, record, base, statusCPU, recordCPU, baseCPU []time.Duration
	n := 0
	b.ResetTimer()
	for b.Loop() {
		n++
		if err := os.WriteFile(filepath.Join(repo, "pkg000", "file00000.go"), fmt.Appendf(nil, "package p\n\n// Edit %d.\n", n), 0o644); err != nil {
			b.Fatal(err)
		}
		status = append(status, run("git", "status", "--porcelain"))
		statusCPU = append(statusCPU, cpu)
		record = append(record, run(bin, "record"))
		recordCPU = append(recordCPU, cpu)
		// The command record runs, alone: what record adds is the rest.
		ours = append(ours, run("git", "--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--branch"))
		if baseline != "" {
			base = append(base, run(baseline, "record", "--session", "baseline"))
			baseCPU = append(baseCPU, cpu)
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	ms, mr := median(status), median(record)
	b.ReportMetric(ms, "ms-git-status")
	b.ReportMetric(mr, "ms-record")
	b.ReportMetric(mr/ms, "record/status")
	b.ReportMetric(median(ours), "ms-its-status")
	b.ReportMetric(median(recordCPU)/median(statusCPU), "cpu-record/status")
	if baseline != "" {
		mb := median(base)
		b.ReportMetric(mb, "ms-baseline")
		b.ReportMetric(mb/ms, "baseline/status")
		b.ReportMetric(median(baseCPU)/median(statusCPU), "cpu-baseline/status")
	}
}
