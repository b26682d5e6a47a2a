package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// iterate runs iteration n: the command with this iteration's prompt and
// environment, its output streamed to the terminal and to the run
// directory, then the measurements. ctx carries interrupts; work is for
// the git calls that must not be cut short.
func (l *loop) iterate(ctx, work context.Context, n int, st *lb.BreakerState, fb feedback) (*lb.Iteration, ran, error) {
	text, has, err := l.prompt(fb, n)
	if err != nil {
		return nil, ran{}, err
	}
	promptFile := filepath.Join(l.runDir, "prompt.md")
	if has {
		if err := l.writeRunFile("prompt.md", []byte(text)); err != nil {
			return nil, ran{}, fmt.Errorf("write the prompt file: %w", err)
		}
	}
	argv, stdin := l.commandLine(text, has, promptFile)
	argv, pinned := l.sessionArgs(argv)

	outFile, err := l.createRunFile(outputName(n, "out"))
	if err != nil {
		return nil, ran{}, fmt.Errorf("keep the iteration's output: %w: check that %s is writable", err, l.runDir)
	}
	defer outFile.Close()
	errFile, err := l.createRunFile(outputName(n, "err"))
	if err != nil {
		return nil, ran{}, fmt.Errorf("keep the iteration's output: %w: check that %s is writable", err, l.runDir)
	}
	defer errFile.Close()
	echoes := echoLines(fb.warning, fb.guidanceMarkdown())
	out := newCapture(teeWriter{outFile, l.con.stream(l.cfg.Stdout)}, l.cfg.CompletePattern, echoes)
	errs := newCapture(teeWriter{errFile, l.con.stream(l.cfg.Stderr)}, l.cfg.CompletePattern, echoes)

	if !l.cfg.Live {
		l.con.line("loopbreaker: iteration %d: %s", n, strings.Join(quoteArgs(argv), " "))
	}
	r, err := l.runCommand(ctx, argv, l.environ(n, fb), stdin, out, errs)
	l.con.endStream()
	if err != nil || r.interrupted != nil {
		return nil, r, err
	}
	if f, ok := l.refused(out, errs, r); ok {
		// The working tree is left for the next iteration to measure:
		// what the agent did before the refusal is still its work.
		r.cannotRun = &f
		return nil, r, nil
	}
	l.keepSession(pinned, out, errs, r)
	change, err := l.changedFiles(work)
	if err != nil {
		return nil, r, err
	}
	it := l.measure(out, errs, r, change, l.tree != nil)
	it.Usage = l.usage(n)
	return it, r, nil
}

// teeWriter writes to a file and the terminal; a terminal that went away
// must not stop the output from being kept.
type teeWriter struct {
	file *os.File
	term interface{ Write([]byte) (int, error) }
}

func (t teeWriter) Write(p []byte) (int, error) {
	_, _ = t.term.Write(p)
	return t.file.Write(p)
}

// outputName names an iteration's file in the run directory.
func outputName(n int, ext string) string { return strconv.Itoa(n) + "." + ext }

// createRunFile creates (or empties) a file in the run directory.
func (l *loop) createRunFile(name string) (*os.File, error) {
	return l.runD.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

// writeRunFile writes a whole file in the run directory.
func (l *loop) writeRunFile(name string, data []byte) error {
	f, err := l.createRunFile(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// record is what <n>.json holds: the iteration as recorded, with the
// decision it got.
type record struct {
	Iteration int           `json:"iteration"`
	Started   time.Time     `json:"started"`
	Duration  float64       `json:"duration_seconds"`
	TimedOut  bool          `json:"timed_out,omitempty"`
	Recorded  *lb.Iteration `json:"recorded"`
	Decision  lb.Decision   `json:"decision"`
}

// saveRecord keeps the iteration's record next to its output, renames the
// output when the breaker numbered the iteration differently (another
// process recorded in between), and prunes old outputs.
func (l *loop) saveRecord(number, planned int, it *lb.Iteration, r ran, d lb.Decision) {
	if number != planned {
		for _, ext := range []string{"out", "err"} {
			_ = l.runD.Rename(outputName(planned, ext), outputName(number, ext))
		}
	}
	b, err := json.MarshalIndent(record{
		Iteration: number, Started: r.started.UTC(), Duration: r.duration.Seconds(),
		TimedOut: r.timedOut, Recorded: it, Decision: d,
	}, "", "  ")
	if err == nil {
		err = l.writeRunFile(outputName(number, "json"), append(b, '\n'))
	}
	if err != nil {
		l.con.line("loopbreaker: cannot keep the record of iteration %d: %v", number, err)
	}
	l.prune()
}

// prune keeps the outputs of the newest KeepOutputs iterations.
func (l *loop) prune() {
	entries, err := l.runD.ReadDir()
	if err != nil {
		return
	}
	byNumber := map[int][]string{}
	for _, e := range entries {
		num, ext, ok := strings.Cut(e.Name(), ".")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || (ext != "out" && ext != "err" && ext != "json" && ext != "refused.out" && ext != "refused.err") {
			continue
		}
		byNumber[n] = append(byNumber[n], e.Name())
	}
	numbers := make([]int, 0, len(byNumber))
	for n := range byNumber {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	for len(numbers) > l.cfg.KeepOutputs {
		for _, name := range byNumber[numbers[0]] {
			_ = l.runD.Remove(name)
		}
		numbers = numbers[1:]
	}
}

// quoteArgs quotes arguments for showing the command line; long ones (a
// prompt) are cut.
func quoteArgs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if len(a) > 60 {
			a = a[:57] + "..."
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(strings.ReplaceAll(a, "'", `'\''`), "\n", `\n`) + "'"
		}
		out[i] = a
	}
	return out
}
