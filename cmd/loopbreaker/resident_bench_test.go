//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// BenchmarkProcessHookResident is BenchmarkProcessHook through the thin
// client: `loopbreaker-hook claude` forwarding each PreToolUse and
// PostToolUse (10,000-event journal) to a warm resident breaker, each
// paired with a hello-world run just before it. cpu-x-hello counts the
// client process alone; resident-cpu-ms is the resident breaker's CPU per
// call (from /proc, over the whole loop, Linux only) and
// total-cpu-x-hello adds it to the client's. first-call starts the
// resident breaker on each call (the one before stopped) and pairs it
// with today's in-process `loopbreaker hook claude` on the same project:
// first-x-inprocess is the median ratio of their wall times.
//
//	go test -run='^$' -bench=ProcessHookResident -benchtime=150x ./cmd/loopbreaker/
func BenchmarkProcessHookResident(b *testing.B) {
	bin := buildBinary(b)
	client := filepath.Join(filepath.Dir(bin), "loopbreaker-hook")
	build := exec.Command("go", "build", "-o", client, "../loopbreaker-hook")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build loopbreaker-hook: %v\n%s", err, out)
	}
	hello := buildHello(b)
	pre := readPayload(b, "PreToolUse-bash-gotest.json")
	post := readPayload(b, "PostToolUse-bash-gotest-pass.json")
	const n = 10_000
	dir := seedHookProject(b, bin, n)
	runDir, err := os.MkdirTemp("", "lbb")
	if err != nil {
		b.Fatal(err)
	}
	env := append(benchEnv(dir), "XDG_RUNTIME_DIR="+runDir)
	b.Cleanup(func() {
		stop := exec.Command(bin, "resident", "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(runDir)
	})
	run := func(path string, in []byte, check bool, args ...string) (wall, cpu float64) {
		return timeProcess(b, dir, env, path, in, check, args...)
	}
	i := 0
	// next is a new tool call's payloads: a loop of identical calls would
	// warn or open the breaker and measure that path instead.
	next := func() (preIn, postIn []byte) {
		i++
		id := fmt.Sprintf("toolu_res%06d", i)
		input := map[string]any{"command": fmt.Sprintf("go test ./internal/pkg%d/...", i), "description": "Run the tests"}
		pre["tool_use_id"], pre["tool_input"] = id, input
		post["tool_use_id"], post["tool_input"] = id, input
		post["session_id"] = pre["session_id"]
		post["tool_response"] = map[string]any{"stdout": fmt.Sprintf("ok  \texample.com/calc/internal/pkg%d\t0.0%ds\n", i, i%10), "stderr": "", "interrupted": false, "isImage": false}
		preIn, _ = json.Marshal(pre)
		postIn, _ = json.Marshal(post)
		return preIn, postIn
	}
	b.Run("warm/"+journalName(n), func(b *testing.B) {
		p, q := next()
		run(client, p, true, "claude") // starts the resident breaker
		run(client, q, true, "claude")
		pid := residentPID(b, runDir)
		cpu0, cpuOK := procCPU(pid)
		var wallX, cpuX, clientT, helloT, helloC []float64
		calls := 0
		for b.Loop() {
			p, q := next()
			for _, in := range [][]byte{p, q} {
				h, hc := run(hello, in, false)
				t, tc := run(client, in, true, "claude")
				calls++
				helloT, helloC, clientT = append(helloT, h), append(helloC, hc), append(clientT, t)
				wallX = append(wallX, t/h)
				if hc > 0 {
					cpuX = append(cpuX, tc/hc)
				}
			}
		}
		b.StopTimer()
		b.ReportMetric(median(clientT)*1000, "call-ms")
		b.ReportMetric(median(helloT)*1000, "hello-ms")
		b.ReportMetric(median(wallX), "x-hello")
		b.ReportMetric(median(cpuX), "cpu-x-hello")
		if cpu1, ok := procCPU(pid); ok && cpuOK && calls > 0 {
			per := (cpu1 - cpu0) / float64(calls)
			b.ReportMetric(per*1000, "resident-cpu-ms")
			b.ReportMetric((median(cpuX)*median(helloC)+per)/median(helloC), "total-cpu-x-hello")
		}
	})
	// A loop script's check and record through the client, against the
	// same commands in a process of their own, each beside a hello-world.
	for _, lc := range []struct {
		name string
		args []string
	}{
		{"check", []string{"check"}},
		{"record", []string{"record", "--files-changed", "1", "--tests-passing", "3", "--tests-failing", "1"}},
	} {
		b.Run(lc.name+"/"+journalName(n), func(b *testing.B) {
			timeCommand(b, dir, env, client, lc.args...) // the resident breaker is warm
			var wallX, cpuX, inprocX, clientT []float64
			for b.Loop() {
				h, hc := run(hello, nil, false)
				t, tc := timeCommand(b, dir, env, client, lc.args...)
				u, _ := timeCommand(b, dir, env, bin, lc.args...)
				clientT = append(clientT, t)
				wallX, inprocX = append(wallX, t/h), append(inprocX, u/h)
				if hc > 0 {
					cpuX = append(cpuX, tc/hc)
				}
			}
			b.StopTimer()
			b.ReportMetric(median(clientT)*1000, "call-ms")
			b.ReportMetric(median(wallX), "x-hello")
			b.ReportMetric(median(cpuX), "cpu-x-hello")
			b.ReportMetric(median(inprocX), "inprocess-x-hello")
		})
	}
	b.Run("first-call/"+journalName(n), func(b *testing.B) {
		var ratios, firstT, inprocT []float64
		for b.Loop() {
			b.StopTimer()
			stopResident(b, bin, env, runDir)
			p, q := next()
			b.StartTimer()
			t, _ := run(client, p, true, "claude")
			b.StopTimer()
			stopResident(b, bin, env, runDir)
			b.StartTimer()
			u, _ := run(bin, q, true, "hook", "claude")
			firstT, inprocT = append(firstT, t), append(inprocT, u)
			ratios = append(ratios, t/u)
		}
		b.StopTimer()
		b.ReportMetric(median(firstT)*1000, "first-ms")
		b.ReportMetric(median(inprocT)*1000, "inprocess-ms")
		b.ReportMetric(median(ratios), "first-x-inprocess")
	})
}

var residentListening = regexp.MustCompile(`listening on \S+ \(pid (\d+),`)

// residentPID is the pid of the resident breaker that started last.
func residentPID(b *testing.B, runDir string) int {
	b.Helper()
	log, _ := os.ReadFile(filepath.Join(runDir, "loopbreaker", "resident.log"))
	m := residentListening.FindAllStringSubmatch(string(log), -1)
	if len(m) == 0 {
		b.Fatalf("no resident breaker started:\n%s", log)
	}
	pid, _ := strconv.Atoi(m[len(m)-1][1])
	return pid
}

// procCPU is a process's CPU time so far in seconds (user + system),
// from /proc; false where there is none.
func procCPU(pid int) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command's name, which is in parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100, true // USER_HZ is 100 on Linux
}

// stopResident stops the resident breaker and waits until its process has
// ended (a zombie no longer holds the lock), so that the next call starts
// one.
func stopResident(b *testing.B, bin string, env []string, runDir string) {
	b.Helper()
	pid := residentPID(b, runDir)
	stop := exec.Command(bin, "resident", "stop")
	stop.Env = env
	stop.Run()
	if err := waitfor.Exit(pid, 30*time.Second); err != nil {
		b.Fatalf("the resident breaker did not stop: %v", err)
	}
}

// timeCommand runs path with args in dir, as timeProcess does, for a
// command that prints what it decided: it fails only on an exit other
// than 0.
func timeCommand(b *testing.B, dir string, env []string, path string, args ...string) (wall, cpu float64) {
	b.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start).Seconds()
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", path, args, err, out)
	}
	ps := cmd.ProcessState
	return wall, (ps.UserTime() + ps.SystemTime()).Seconds()
}
