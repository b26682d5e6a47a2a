package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// BenchmarkProcessHook is the cost Claude Code pays per tool call: one
// `loopbreaker hook claude` process answering its PreToolUse, then one
// answering its PostToolUse, start-up included, in a project made by
// `loopbreaker init` (its commented loopbreaker.yaml) whose session
// journal holds 10,000 tool calls. Each hook process is paired with a run
// of a static hello-world Go program on the same input just before it, so
// that the ratio (x-hello, the median of the pairs' ratios) holds on a
// machine whose speed drifts; pre-ms, post-ms and hello-ms are the medians
// of each. cpu-x-hello is the same ratio of CPU time (user + system), which
// waiting for a core on a loaded machine does not inflate. docs/benchmarks.md records the figures; the binary is built as
// buildBinary says. The floor sub-benchmark runs `loopbreaker version`:
// what starting the binary costs before the hook does anything.
//
//	go test -run='^$' -bench=ProcessHook -benchtime=150x ./cmd/loopbreaker/
//
// LOOPBREAKER_BENCH_YARDSTICK=/path/to/a/program runs that program too,
// on the same input after each hello-world, and reports its CPU ratio
// (yardstick-cpu-x-hello): docs/benchmarks.md uses it for a program
// that only starts the libraries the binary links.
func BenchmarkProcessHook(b *testing.B) {
	bin := buildBinary(b)
	hello := buildHello(b)
	yardstick := os.Getenv("LOOPBREAKER_BENCH_YARDSTICK")
	pre := readPayload(b, "PreToolUse-bash-gotest.json")
	post := readPayload(b, "PostToolUse-bash-gotest-pass.json")
	b.Run("floor=version", func(b *testing.B) {
		dir := b.TempDir()
		var times []float64
		for b.Loop() {
			cmd := exec.Command(bin, "version")
			cmd.Dir = dir
			cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("version: %v\n%s", err, out)
			}
			times = append(times, time.Since(start).Seconds())
		}
		b.ReportMetric(median(times)*1000, "ms-median")
	})
	const n = 10_000
	b.Run(journalName(n), func(b *testing.B) {
		dir := seedHookProject(b, bin, n)
		env := benchEnv(dir)
		run := func(path string, in []byte, check bool, args ...string) (wall, cpu float64) {
			return timeProcess(b, dir, env, path, in, check, args...)
		}
		var preT, postT, helloT, preX, postX, preC, postC, yardC []float64
		i := 0
		b.ResetTimer()
		for b.Loop() {
			// A different call each time, its PreToolUse then its
			// PostToolUse: a loop of identical (or near-identical) calls
			// would warn or open the breaker and measure that path
			// instead.
			i++
			id := fmt.Sprintf("toolu_bench%06d", i)
			input := map[string]any{"command": fmt.Sprintf("go test ./internal/pkg%d/...", i), "description": "Run the tests"}
			pre["tool_use_id"], pre["tool_input"] = id, input
			post["tool_use_id"], post["tool_input"] = id, input
			post["session_id"] = pre["session_id"] // one agent session, as a real pair
			post["tool_response"] = map[string]any{"stdout": fmt.Sprintf("ok  \texample.com/calc/internal/pkg%d\t0.0%ds\n", i, i%10), "stderr": "", "interrupted": false, "isImage": false}
			for _, p := range []struct {
				payload   map[string]any
				times     *[]float64
				ratios    *[]float64
				cpuRatios *[]float64
			}{{pre, &preT, &preX, &preC}, {post, &postT, &postX, &postC}} {
				in, _ := json.Marshal(p.payload)
				h, hc := run(hello, in, false)
				if yardstick != "" {
					if _, yc := run(yardstick, in, false); hc > 0 {
						yardC = append(yardC, yc/hc)
					}
				}
				t, tc := run(bin, in, true, "hook", "claude")
				helloT = append(helloT, h)
				*p.times = append(*p.times, t)
				*p.ratios = append(*p.ratios, t/h)
				if hc > 0 {
					*p.cpuRatios = append(*p.cpuRatios, tc/hc)
				}
			}
		}
		b.StopTimer()
		b.ReportMetric(median(preT)*1000, "pre-ms")
		b.ReportMetric(median(postT)*1000, "post-ms")
		b.ReportMetric(median(helloT)*1000, "hello-ms")
		b.ReportMetric(median(preX), "pre-x-hello")
		b.ReportMetric(median(postX), "post-x-hello")
		b.ReportMetric(median(preC), "pre-cpu-x-hello")
		b.ReportMetric(median(postC), "post-cpu-x-hello")
		if len(yardC) > 0 {
			b.ReportMetric(median(yardC), "yardstick-cpu-x-hello")
		}
	})
}

// timeProcess runs path with args in dir on stdin in and returns its wall
// time and CPU time (user + system): on a loaded machine the wall time
// includes waiting for a core. With check, any output or failure fails b.
func timeProcess(b testing.TB, dir string, env []string, path string, in []byte, check bool, args ...string) (wall, cpu float64) {
	b.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start).Seconds()
	if check && (err != nil || len(out) != 0 || stderr.Len() != 0) {
		b.Fatalf("%s %v: %v\nstdout: %s\nstderr: %s", path, args, err, out, stderr.Bytes())
	}
	ps := cmd.ProcessState
	return wall, (ps.UserTime() + ps.SystemTime()).Seconds()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func readPayload(b *testing.B, name string) map[string]any {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", "claude", name))
	if err != nil {
		b.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil {
		b.Fatal(err)
	}
	return payload
}

// buildHello builds the yardstick: a hello-world Go program, static like
// the loopbreaker binary, that ignores its arguments and input.
func buildHello(b *testing.B) string {
	b.Helper()
	src := b.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(b.TempDir(), "hello")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build hello: %v\n%s", err, out)
	}
	return bin
}

// seedHookProject makes a project with `loopbreaker init` whose claude
// session journal holds n tool calls, all different, written through the
// real service and store.
func seedHookProject(b *testing.B, bin string, n int) string {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(bin, "init")
	cmd.Dir = dir
	cmd.Env = benchEnv(dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("init: %v\n%s", err, out)
	}
	store, err := filestore.Open(benchStateDir(dir), filestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	// The seeded calls change nothing, and tool_calls.no_effect would open
	// the breaker on the 40th: the benchmark measures a breaker that is
	// CLOSED. benchEnv turns the detector off for the calls measured too.
	cfg := lb.Defaults()
	cfg.ToolCalls.NoEffect = 0
	svc := &breaker.Service{Store: store, Engine: breaker.New(cfg)}
	ctx := context.Background()
	for i := 0; i < n; i++ {
		tc := lb.ToolCall{
			Tool: "Bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"make step%d"}`, i)),
			ArgsHash: fmt.Sprintf("%016x", i), ResultHash: fmt.Sprintf("%016x", i),
		}
		if _, err := svc.Apply(ctx, []string{"session:claude"}, lb.Event{Kind: lb.EventToolCall, Caller: "claude", ToolCall: &tc}); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}
