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

// BenchmarkProcessHookPostToolUse is the cost Claude Code pays per tool
// call: one `loopbreaker hook claude` process answering a PostToolUse,
// start-up included, with a session journal of 10,000 tool calls. The
// median is reported as ms-median (README "Speed" and docs/server.md
// "Start-up time" record the figures; the binary is built as buildBinary
// says).
// The floor sub-benchmark runs `loopbreaker version` the same way: what
// starting the binary costs before the hook does anything.
//
//	go test -run='^$' -bench=ProcessHook -benchtime=300x ./cmd/loopbreaker/
func BenchmarkProcessHookPostToolUse(b *testing.B) {
	bin := buildBinary(b)
	b.Run("floor=version", func(b *testing.B) {
		dir := b.TempDir()
		var times []time.Duration
		for b.Loop() {
			cmd := exec.Command(bin, "version")
			cmd.Dir = dir
			cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("version: %v\n%s", err, out)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
	})
	fixture, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", "claude", "PostToolUse-bash-gotest-pass.json"))
	if err != nil {
		b.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(fixture, &payload); err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	b.Run(journalName(n), func(b *testing.B) {
		dir := seedHookProject(b, n)
		var times []time.Duration
		i := 0
		b.ResetTimer()
		for b.Loop() {
			// A different command and result each time: a loop of
			// identical (or near-identical) calls would warn or open the
			// breaker and measure that path instead.
			i++
			payload["tool_input"] = map[string]any{"command": fmt.Sprintf("go test ./internal/pkg%d/...", i), "description": "Run the tests"}
			payload["tool_response"] = map[string]any{"stdout": fmt.Sprintf("ok  \texample.com/calc/internal/pkg%d\t0.0%ds\n", i, i%10), "stderr": "", "interrupted": false, "isImage": false}
			in, _ := json.Marshal(payload)
			cmd := exec.Command(bin, "hook", "claude")
			cmd.Dir = dir
			cmd.Env = benchEnv(dir)
			cmd.Stdin = bytes.NewReader(in)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			out, err := cmd.Output()
			times = append(times, time.Since(start))
			if err != nil || len(out) != 0 || stderr.Len() != 0 {
				b.Fatalf("hook claude: %v\nstdout: %s\nstderr: %s", err, out, stderr.Bytes())
			}
		}
		b.StopTimer()
		slices.Sort(times)
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
	})
}

// seedHookProject makes a project whose claude session journal holds n
// tool calls, all different, written through the real service and store.
func seedHookProject(b *testing.B, n int) string {
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
