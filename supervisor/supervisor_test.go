package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/internal/waitfor"
)

// The example agents are run for real, in real git repositories, against
// the real engine and file store; each must end the way its story says.
func TestExampleAgents(t *testing.T) {
	for _, tc := range []struct {
		agent      string
		files      map[string]string
		outcome    Outcome
		iterations int
		detector   string
		reason     string
	}{
		{"stuck-agent.sh", map[string]string{"src/calc.go": calcSource}, Halted, 3,
			lb.DetectorNoProgress, "no progress in 3 consecutive iterations"},
		{"same-error-agent.sh", nil, Halted, 5,
			lb.DetectorSameError, `the same error \(signature [0-9a-f]{16}\) repeated in 5 consecutive iterations \(5/5\): panic: assignment to entry in nil map`},
		{"per-test-agent.sh", map[string]string{"src/calc.go": calcSource}, Halted, 4,
			lb.DetectorTestAttempts, `test example.com/calc.TestSub failed 3 times`},
		{"progressing-agent.sh", nil, Completed, 4, "", ""},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			p := newProject(t, true, tc.files)
			res := p.run(t, p.config("bash", example(t, tc.agent)))
			if res.Outcome != tc.outcome || res.Iterations != tc.iterations {
				t.Fatalf("outcome %s after %d iterations, want %s after %d\nstderr:\n%s", res.Outcome, res.Iterations, tc.outcome, tc.iterations, p.err.String())
			}
			st := p.b.state(t)
			if tc.outcome == Halted {
				if st.State != lb.Open || res.Decision.Allowed || res.Decision.Detector != tc.detector {
					t.Fatalf("state %s, decision %+v; want OPEN by %s", st.State, res.Decision, tc.detector)
				}
				if !regexp.MustCompile(tc.reason).MatchString(res.Decision.Reason) {
					t.Errorf("reason %q does not match %q", res.Decision.Reason, tc.reason)
				}
				if res.ExitCode() != 2 {
					t.Errorf("exit code %d, want 2", res.ExitCode())
				}
				return
			}
			if st.State != lb.Closed || len(st.Transitions) != 0 || res.ExitCode() != 0 {
				t.Fatalf("a progressing agent was warned or stopped: state %s, transitions %+v", st.State, st.Transitions)
			}
			if got := p.read(t, "src/steps.txt"); strings.Count(got, "\n") != 4 {
				t.Errorf("src/steps.txt = %q, want four steps", got)
			}
		})
	}
}

// Each iteration's output is kept by the breaker's iteration number, with
// a record of what was measured and decided; the first iteration of the
// stuck agent, which changes nothing, measures zero files.
func TestOutputsAndRecords(t *testing.T) {
	p := newProject(t, true, map[string]string{"src/calc.go": calcSource})
	cfg := p.config("bash", example(t, "stuck-agent.sh"))
	cfg.KeepOutputs = 2
	res := p.run(t, cfg)
	runDir := filepath.Join(p.stateDir, "runs", "default")
	if res.RunDir != runDir {
		t.Fatalf("RunDir %q, want %q", res.RunDir, runDir)
	}
	for _, name := range []string{"1.out", "1.err", "1.json"} {
		if _, err := os.Stat(filepath.Join(runDir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was not pruned (keep 2): %v", name, err)
		}
	}
	errText, err := os.ReadFile(filepath.Join(runDir, "3.err"))
	if err != nil || !strings.Contains(string(errText), "--- FAIL: TestAdd") {
		t.Fatalf("3.err = %q, %v", errText, err)
	}
	var rec record
	b, err := os.ReadFile(filepath.Join(runDir, "3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	it := rec.Recorded
	if rec.Iteration != 3 || it.FilesChanged == nil || *it.FilesChanged != 0 || *it.ExitCode != 1 ||
		len(it.Errors) != 1 || !strings.Contains(it.Errors[0].Raw, "Add(2, 3) = -1, want 5") {
		t.Fatalf("record of iteration 3: %s", b)
	}
	if *it.OutputBytes != int64(len(errText))+fileSize(t, filepath.Join(runDir, "3.out")) {
		t.Errorf("output bytes %d do not add up to the kept output", *it.OutputBytes)
	}
	if rec.Decision.State != lb.Open {
		t.Errorf("decision %+v, want OPEN", rec.Decision)
	}
	// The same error, modulo noise, has the same signature every time.
	st := p.b.state(t)
	if n := len(st.Attempts); n != 3 || st.Attempts[1].Signature != st.Attempts[2].Signature || st.Attempts[2].Signature == "" {
		t.Errorf("attempts %+v: want three with the same signature", st.Attempts)
	}
}

func fileSize(t *testing.T, p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// The warning of a HALF_OPEN breaker reaches the agent's next iteration:
// in LOOPBREAKER_WARNING, in the warning file and, with AppendWarning, at
// the end of the prompt; the prompt reaches the agent in place of
// {prompt} or on stdin.
func TestWarningReachesNextIteration(t *testing.T) {
	log := t.TempDir()
	agent := script(t, `
n=$LOOPBREAKER_ITERATION
{
  echo "env=${LOOPBREAKER_WARNING:-}"
  echo "file=$(cat "$LOOPBREAKER_WARNING_FILE")"
  echo "arg=$1"
  echo "stdin=$(cat)"
} >"`+log+`/$n.txt"
echo "agent: nothing to do"
`)
	for _, tc := range []struct {
		name    string
		command []string
		arg     bool
	}{
		{"placeholder", []string{"bash", agent, "--prompt={prompt}"}, true},
		{"stdin", []string{"bash", agent, "no-prompt-argument"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t, true, nil)
			prompt := filepath.Join(p.dir, "PROMPT.md")
			if err := os.WriteFile(prompt, []byte("Fix the tests.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := p.config(tc.command...)
			cfg.PromptFile, cfg.AppendWarning = prompt, true
			res := p.run(t, cfg)
			if res.Outcome != Halted || res.Iterations != 3 {
				t.Fatalf("outcome %s after %d, want halted after 3 (no progress)", res.Outcome, res.Iterations)
			}
			read := func(n string) string {
				b, err := os.ReadFile(filepath.Join(log, n+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			// Iteration 2 ran CLOSED: nothing to say.
			if got := read("2"); !strings.Contains(got, "env=\nfile=\n") {
				t.Errorf("iteration 2 got a warning:\n%s", got)
			}
			got := read("3")
			for _, want := range []string{
				"env=warning: no progress in 2 consecutive iterations (2/3)",
				"file=# loopbreaker: warning for iteration 3\n\nwarning: no progress in 2 consecutive iterations",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("iteration 3 lacks %q:\n%s", want, got)
				}
			}
			promptLine := "arg=--prompt=Fix the tests."
			if !tc.arg {
				promptLine = "stdin=Fix the tests."
			}
			if !strings.Contains(got, promptLine+"\n\n---\n\n# loopbreaker: warning for iteration 3") {
				t.Errorf("iteration 3's prompt lacks the appended warning (%q):\n%s", promptLine, got)
			}
			if tc.arg && !strings.Contains(got, "stdin=\n") {
				t.Errorf("the prompt went to an argument and to stdin:\n%s", got)
			}
			if !tc.arg && !strings.Contains(got, "arg=no-prompt-argument\n") {
				t.Errorf("an argument without a placeholder was changed:\n%s", got)
			}
		})
	}
}

// Guidance given with a reset reaches every iteration of the next run,
// with the attempts made before it; the counters start again from zero.
func TestGuidanceAfterReset(t *testing.T) {
	p := newProject(t, true, map[string]string{"src/calc.go": calcSource})
	agent := example(t, "stuck-agent.sh")
	if res := p.run(t, p.config("bash", agent)); res.Outcome != Halted {
		t.Fatalf("first run: %s, want halted", res.Outcome)
	}
	guidance := "The test expects Add to add: replace a - b with a + b."
	if _, err := p.b.Apply(context.Background(), lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{Guidance: guidance, By: "tester"}}); err != nil {
		t.Fatal(err)
	}
	cfg := p.config("bash", agent)
	cfg.MaxIterations = 2
	res := p.run(t, cfg)
	if res.Outcome != MaxIterations || res.Iterations != 2 {
		t.Fatalf("second run: %s after %d, want the iteration limit after 2\n%s", res.Outcome, res.Iterations, p.err.String())
	}
	// Both iterations of the run get the guidance: each is a fresh agent.
	for _, n := range []string{"4", "5"} {
		b, err := os.ReadFile(filepath.Join(p.stateDir, "runs", "default", n+".out"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"agent: guidance | - " + guidance + " (by tester, 2026-11-21T09:30:00Z)",
			"agent: guidance | ## Already tried before this guidance",
			"agent: guidance | 3. iteration 3: no file changes -> failed: TestAdd -> error: calc_test.go:9: ",
		} {
			if !strings.Contains(string(b), want) {
				t.Errorf("iteration %s lacks %q:\n%s", n, want, b)
			}
		}
	}
	guidanceFile, err := os.ReadFile(filepath.Join(p.stateDir, "guidance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guidanceFile), guidance) || !strings.Contains(string(guidanceFile), "1. iteration 1:") {
		t.Errorf("guidance file:\n%s", guidanceFile)
	}
	st := p.b.state(t)
	if len(st.Guidance) != 1 || !st.Guidance[0].Delivered || st.Counters.NoProgress != 2 {
		t.Errorf("guidance %+v, no-progress %d: want delivered, counting from zero again", st.Guidance, st.Counters.NoProgress)
	}
}

// A run that starts while the breaker is OPEN stops at once, running
// nothing; with auto_reset it resets first and runs.
func TestOpenAtStart(t *testing.T) {
	p := newProject(t, true, map[string]string{"src/calc.go": calcSource})
	agent := example(t, "stuck-agent.sh")
	p.run(t, p.config("bash", agent))
	res := p.run(t, p.config("bash", agent))
	if res.Outcome != Halted || res.Iterations != 0 || p.b.state(t).Iterations != 3 {
		t.Fatalf("run on an OPEN breaker: %s after %d iterations", res.Outcome, res.Iterations)
	}
	cfg := p.config("bash", agent)
	cfg.AutoReset, cfg.MaxIterations = true, 1
	res = p.run(t, cfg)
	if res.Outcome != MaxIterations || res.Iterations != 1 || !strings.Contains(p.err.String(), "auto_reset: the OPEN breaker was reset") {
		t.Fatalf("auto_reset run: %s after %d\n%s", res.Outcome, res.Iterations, p.err.String())
	}
}

// An iteration that runs too long is stopped with its whole process group
// and counts as a failed iteration.
func TestIterationTimeout(t *testing.T) {
	p := newProject(t, true, nil)
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	agent := script(t, `
sleep 600 &
echo $! >`+pidFile+`
echo "agent: thinking very hard"
wait
`)
	cfg := p.config("bash", agent)
	cfg.IterationTimeout, cfg.MaxIterations = 300*time.Millisecond, 1
	start := time.Now()
	res := p.run(t, cfg)
	// Far below the agent's 600 s, however loaded the machine: an
	// iteration that was not stopped would have waited for its sleep.
	if took := time.Since(start); took > 2*time.Minute {
		t.Fatalf("the timed-out iteration took %s", took)
	}
	if res.Outcome != MaxIterations || res.Iterations != 1 {
		t.Fatalf("outcome %s after %d", res.Outcome, res.Iterations)
	}
	st := p.b.state(t)
	a := st.Attempts[0]
	if a.Error != "iteration timed out after 300ms" {
		t.Errorf("attempt error %q", a.Error)
	}
	var rec record
	b, _ := os.ReadFile(filepath.Join(res.RunDir, "1.json"))
	if err := json.Unmarshal(b, &rec); err != nil || !rec.TimedOut || *rec.Recorded.ExitCode != timeoutExitCode {
		t.Errorf("record: %s (%v)", b, err)
	}
	pid, _ := os.ReadFile(pidFile)
	if !gone(strings.TrimSpace(string(pid))) {
		t.Errorf("the agent's background process %s survived the timeout", pid)
	}
}

// gone reports whether process pid has died. SIGKILL is delivered
// asynchronously and an orphan is reaped by init, so this waits until the
// process has ended, with a bound that only ends a hang.
func gone(pid string) bool {
	n, err := strconv.Atoi(pid)
	return err == nil && waitfor.Exit(n, 30*time.Second) == nil
}

// An interrupt is forwarded to the agent, the loop waits for it, records
// nothing of the interrupted iteration and reports 128+SIGINT.
func TestInterrupt(t *testing.T) {
	p := newProject(t, true, nil)
	marker := filepath.Join(t.TempDir(), "got-int")
	agent := script(t, `
trap 'echo interrupted >`+marker+`; exit 130' INT
echo "agent: started $LOOPBREAKER_ITERATION"
while :; do sleep 0.05; done
`)
	sigs := make(chan os.Signal, 2)
	cfg := p.config("bash", agent)
	cfg.Signals = sigs
	// The loop runs iteration 1 to its end? No: the agent never ends, so
	// the interrupt arrives while iteration 1 runs, once it has started.
	started := make(chan struct{})
	cfg.Stdout = startWatcher{w: &p.out, marker: "agent: started 1", ch: started}
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), cfg, p.b)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	sigs <- os.Interrupt
	res := <-done
	if res.Outcome != Interrupted || res.ExitCode() != 130 || res.Iterations != 0 {
		t.Fatalf("outcome %s, exit %d, iterations %d", res.Outcome, res.ExitCode(), res.Iterations)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "interrupted\n" {
		t.Errorf("the agent did not get the interrupt: %q %v", b, err)
	}
	if st := p.b.state(t); st.Iterations != 0 || len(st.Attempts) != 0 {
		t.Errorf("the interrupted iteration was recorded: %+v", st.Attempts)
	}
}

// startWatcher closes ch when marker appears in the output.
type startWatcher struct {
	w      *syncBuffer
	marker string
	ch     chan struct{}
}

func (s startWatcher) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if s.ch != nil && strings.Contains(s.w.String(), s.marker) {
		select {
		case <-s.ch:
		default:
			close(s.ch)
		}
	}
	return n, err
}

// Before the slice's first attempt a checkpoint tag is made; after a trip,
// rollback restores it and the rescued work can be brought back with the
// command it prints.
func TestCheckpointAndRollback(t *testing.T) {
	p := newProject(t, true, map[string]string{"src/calc.go": calcSource})
	agent := script(t, `
n=$LOOPBREAKER_ITERATION
echo "attempt $n" >>src/calc.go
echo "new file $n" >"src/extra_$n.go"
echo "agent: tried again"
echo "Error: cannot find the fixture testdata/in.txt" >&2
`)
	cfg := p.config("bash", agent)
	cfg.Slice = "s1"
	res := p.run(t, cfg)
	if res.Outcome != Halted || res.Decision.Detector != lb.DetectorSameError {
		t.Fatalf("outcome %s by %q, want halted by same_error", res.Outcome, res.Decision.Detector)
	}
	repo, err := gitrepo.Open(context.Background(), p.dir)
	if err != nil {
		t.Fatal(err)
	}
	cps, err := repo.Checkpoints(context.Background())
	if err != nil || len(cps) != 1 || cps[0].Tag != "loopbreaker/checkpoint/s1" {
		t.Fatalf("checkpoints %+v, %v", cps, err)
	}
	if head := strings.TrimSpace(runGit(t, p.dir, "rev-parse", "HEAD")); cps[0].Commit != head {
		t.Errorf("checkpoint at %s, want HEAD %s", cps[0].Commit, head)
	}
	if !strings.Contains(p.err.String(), "checkpoint loopbreaker/checkpoint/s1 created") {
		t.Errorf("no checkpoint message:\n%s", p.err.String())
	}
	worked := p.read(t, "src/calc.go")

	rb, err := repo.Rollback(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.read(t, "src/calc.go"); got != calcSource {
		t.Errorf("after rollback src/calc.go = %q", got)
	}
	if p.read(t, "src/extra_1.go") != "" {
		t.Error("a file created after the checkpoint survived the rollback")
	}
	if rb.Rescue == nil {
		t.Fatal("no rescue ref for the discarded work")
	}
	restore := exec.Command("sh", "-c", rb.Rescue.RestoreCommand().String())
	restore.Dir = p.dir
	restore.Env = append(os.Environ(), gitEnv(p.dir)...)
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", rb.Rescue.RestoreCommand(), err, out)
	}
	if got := p.read(t, "src/calc.go"); got != worked {
		t.Errorf("restored src/calc.go = %q, want the agent's %q", got, worked)
	}

	// A second run of the slice keeps the tag: rollback still returns to
	// where the slice first started.
	p.b.Apply(context.Background(), lb.Event{Kind: lb.EventReset})
	cfg.MaxIterations = 1
	p.run(t, cfg)
	if !strings.Contains(p.err.String(), "checkpoint loopbreaker/checkpoint/s1 kept") {
		t.Errorf("the existing checkpoint was not kept:\n%s", p.err.String())
	}
}

// Outside a git repository the loop runs without a file signal and says
// so once.
func TestNotAGitRepository(t *testing.T) {
	p := newProject(t, false, nil)
	cfg := p.config("bash", example(t, "progressing-agent.sh"))
	res := p.run(t, cfg)
	if res.Outcome != Completed {
		t.Fatalf("outcome %s", res.Outcome)
	}
	if n := strings.Count(p.err.String(), "is not inside a git repository"); n != 1 {
		t.Errorf("said %d times that this is no repository:\n%s", n, p.err.String())
	}
	if st := p.b.state(t); st.Attempts[0].Files != nil {
		t.Errorf("files measured outside git: %+v", st.Attempts[0])
	}
}

// An agent's JSON result (claude -p --output-format json) feeds permission
// denials, errors and completion; its prose is read for signals too.
func TestAgentJSONResult(t *testing.T) {
	p := newProject(t, true, nil)
	agent := script(t, `
echo "$LOOPBREAKER_ITERATION" >>work.txt
if [ "$LOOPBREAKER_ITERATION" -lt 3 ]; then
  printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"Edited work.txt.\nStill blocked.","num_turns":4,"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf build"}}]}'
else
  printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"All done.\n<promise>COMPLETE</promise>","num_turns":2,"permission_denials":[]}'
fi
`)
	p.b.svc.Engine.Config.PermissionDenials.Threshold = 3
	res := p.run(t, p.config("bash", agent))
	if res.Outcome != Completed || res.Iterations != 3 {
		t.Fatalf("outcome %s after %d\n%s", res.Outcome, res.Iterations, p.err.String())
	}
	st := p.b.state(t)
	if st.Attempts[0].Summary != "Edited work.txt." || st.Attempts[0].Error != "" {
		t.Errorf("attempt 1: %+v", st.Attempts[0])
	}
	var rec record
	b, _ := os.ReadFile(filepath.Join(res.RunDir, "2.json"))
	if err := json.Unmarshal(b, &rec); err != nil || rec.Recorded.PermissionDenials != 1 {
		t.Errorf("iteration 2: %s", b)
	}
	if len(st.Transitions) == 0 || st.Transitions[0].Detector != lb.DetectorPermissionDenials {
		t.Errorf("no permission-denial warning: %+v", st.Transitions)
	}
}

// Permission denials in consecutive iterations open the breaker (Ralph's
// threshold 2), and is_error becomes an error of the iteration.
func TestPermissionDenialsTrip(t *testing.T) {
	p := newProject(t, true, nil)
	agent := script(t, `
echo "$RANDOM" >>work.txt
printf '%s\n' '{"type":"result","subtype":"error_during_execution","is_error":true,"result":"I was not allowed to run the tests.","permission_denials":[{"tool_name":"Bash"},{"tool_name":"Bash"}]}'
`)
	res := p.run(t, p.config("bash", agent))
	if res.Outcome != Halted || res.Decision.Detector != lb.DetectorPermissionDenials || res.Iterations != 2 {
		t.Fatalf("outcome %s by %q after %d", res.Outcome, res.Decision.Detector, res.Iterations)
	}
	if e := p.b.state(t).Attempts[1].Error; e != "the agent reported an error (error_during_execution): I was not allowed to run the tests." {
		t.Errorf("error %q", e)
	}
}

// Completion signals: Ralph's EXIT_SIGNAL inside a RALPH_STATUS block, and
// a pattern of the user's; EXIT_SIGNAL outside a block does not count.
func TestCompletionSignals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		output  string
		pattern string
		want    bool
	}{
		{"ralph block", "---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n", "", true},
		{"ralph false", "---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n", "", false},
		{"exit signal outside a block", "EXIT_SIGNAL: true\n", "", false},
		{"promise", "done <promise>COMPLETE</promise>", "", true},
		{"pattern", "STATUS=done\n", `^STATUS=done$`, true},
		{"pattern no match", "STATUS=working\n", `^STATUS=done$`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var re *regexp.Regexp
			if tc.pattern != "" {
				re = regexp.MustCompile(tc.pattern)
			}
			c := newCapture(discard{}, re, nil)
			c.Write([]byte(tc.output))
			c.finish()
			if c.scan.complete != tc.want {
				t.Errorf("complete = %v, want %v", c.scan.complete, tc.want)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Huge, binary output is streamed to its file whole, counted whole, and
// parsed only by its head and tail.
func TestHugeBinaryOutput(t *testing.T) {
	p := newProject(t, true, nil)
	agent := script(t, `
echo "$LOOPBREAKER_ITERATION" >>work.txt
echo "Error: first line of trouble"
head -c 3000000 /dev/urandom
echo
echo "Error: last line of trouble"
`)
	cfg := p.config("bash", agent)
	cfg.MaxIterations = 1
	res := p.run(t, cfg)
	size := fileSize(t, filepath.Join(res.RunDir, "1.out"))
	if size < 3000000 {
		t.Fatalf("kept %d bytes", size)
	}
	var rec record
	b, _ := os.ReadFile(filepath.Join(res.RunDir, "1.json"))
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if *rec.Recorded.OutputBytes != size {
		t.Errorf("output bytes %d, file %d", *rec.Recorded.OutputBytes, size)
	}
	e := rec.Recorded.Errors[0].Raw
	if !strings.HasPrefix(e, "Error: first line of trouble") || !strings.HasSuffix(e, "Error: last line of trouble") || len(e) > maxErrorText {
		t.Errorf("error text (%d bytes) does not hold the first and last error lines", len(e))
	}
}
