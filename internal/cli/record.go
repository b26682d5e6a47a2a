package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/supervisor"
	"github.com/loopbreaker/loopbreaker/transcript"
	"github.com/loopbreaker/loopbreaker/worktree"
)

// maxErrorFileBytes bounds how much of an --error-file is read: enough for
// any real error, safe against a multi-gigabyte log.
const maxErrorFileBytes = 4 << 20

type recordOptions struct {
	common
	phase             string
	slice             string
	summary           string
	filesChanged      optInt
	testsPassing      optInt
	testsFailing      optInt
	exitCode          optInt
	outputBytes       optInt
	permissionDenials int
	complete          bool
	errors            multiFlag
	errorFiles        multiFlag
	outputFile        string
	metrics           multiFlag
	tests             testList
}

// optInt is an integer flag that remembers whether it was given.
type optInt struct {
	set bool
	v   int64
}

func (o *optInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

func (o *optInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer, got %q", s)
	}
	o.v, o.set = v, true
	return nil
}

func (o *optInt) intp() *int {
	if !o.set {
		return nil
	}
	v := int(o.v)
	return &v
}

// testList builds per-test outcomes from ordered flags:
// --test NAME --failed [--infra] [--message M] --test NAME2 --passed ...
type testList struct {
	tests []lb.TestResult
	// decided records whether each test got --passed or --failed.
	decided []bool
}

func (l *testList) last(flagName string) (*lb.TestResult, error) {
	if len(l.tests) == 0 {
		return nil, fmt.Errorf("%s must follow --test NAME", flagName)
	}
	return &l.tests[len(l.tests)-1], nil
}

func (l *testList) register(fs interface {
	Func(name, usage string, fn func(string) error)
	BoolFunc(name, usage string, fn func(string) error)
}) {
	fs.Func("test", "a test `name` whose outcome follows (--failed or --passed; repeatable)", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("--test needs a test name")
		}
		l.tests = append(l.tests, lb.TestResult{Name: v})
		l.decided = append(l.decided, false)
		return nil
	})
	fs.BoolFunc("failed", "the preceding --test failed (counts as an attempt)", func(string) error {
		t, err := l.last("--failed")
		if err == nil {
			t.Passed = false
			l.decided[len(l.decided)-1] = true
		}
		return err
	})
	fs.BoolFunc("passed", "the preceding --test passed", func(string) error {
		t, err := l.last("--passed")
		if err == nil {
			t.Passed = true
			l.decided[len(l.decided)-1] = true
		}
		return err
	})
	fs.BoolFunc("infra", "the preceding --test failed for an infrastructure reason (did not build, command not found): not an attempt", func(string) error {
		t, err := l.last("--infra")
		if err == nil {
			t.Infra = true
		}
		return err
	})
	fs.Func("message", "failure `text` of the preceding --test", func(v string) error {
		t, err := l.last("--message")
		if err == nil {
			t.Message = errsig.Truncate(v, 4096)
		}
		return err
	})
}

// runRecord records one iteration and decides: exit 0 when the loop may go
// on, 2 when the breaker is OPEN, 1 on a usage or I/O error.
func runRecord(ctx context.Context, env *Env, args []string) error {
	var o recordOptions
	fs := newFlagSet("record", env)
	o.register(fs, env, true)
	fs.StringVar(&o.phase, "phase", "", "TDD `phase` of the iteration: RED, GREEN, REFACTOR or DOCUMENT (selects thresholds)")
	fs.StringVar(&o.slice, "slice", "", "`slice` (unit of work) the tests belong to")
	fs.StringVar(&o.summary, "summary", "", "what the iteration tried, in a few words (for the report)")
	fs.Var(&o.filesChanged, "files-changed", "`N` files changed since the previous iteration (default: computed with git when inside a repository)")
	fs.Var(&o.testsPassing, "tests-passing", "`N` tests passing")
	fs.Var(&o.testsFailing, "tests-failing", "`N` tests failing")
	fs.Var(&o.errors, "error", "an error `text` the iteration produced (repeatable)")
	fs.Var(&o.errorFiles, "error-file", "the iteration's stderr `file` (repeatable; - for stdin): its error lines are the error, as run reads them")
	fs.StringVar(&o.outputFile, "output-file", "", "the iteration's output `file`: its error lines are the error (as run reads them), its size feeds output-decline detection, the model usage it reports (claude -p --output-format json, codex exec --json, gemini -p --output-format json) the budgets")
	fs.Var(&o.outputBytes, "output-bytes", "the iteration's output size in `bytes`")
	fs.Var(&o.exitCode, "exit-code", "the agent's or phase's exit `code` (non-zero: the phase failed)")
	fs.IntVar(&o.permissionDenials, "permission-denials", 0, "`N` permission denials in the iteration")
	fs.BoolVar(&o.complete, "complete", false, "the agent signalled completion (counts as progress)")
	fs.Var(&o.metrics, "metric", "a phase metric `name=value` (e.g. tests_generated=4; repeatable)")
	o.tests.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	it, err := o.iteration(env)
	if err != nil {
		return err
	}
	// git reads the working tree while the store opens.
	var measuring *worktree.Pending
	if !o.filesChanged.set {
		if project, err := projectDir(env, o.project); err == nil {
			mctx, cancel := context.WithCancel(ctx)
			defer cancel()
			measuring = worktree.Start(mctx, project)
		}
	}
	w, err := o.open(env)
	if err != nil {
		return err
	}
	defer w.Close()
	if measuring != nil {
		if err := w.measureFiles(ctx, measuring, o.session, it, o.inputFiles()...); err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: files changed not measured (%v); pass --files-changed N\n", err)
		}
	}
	res, err := w.Apply(ctx, lb.Event{Kind: lb.EventIteration, Iteration: it})
	if err != nil {
		return err
	}
	progress := res.Decision.Progress
	return w.finish(o.json, res.States, res.Decision, &progress)
}

// iteration turns the flags into an Iteration, reading the files named.
func (o *recordOptions) iteration(env *Env) (*lb.Iteration, error) {
	phase := lb.Phase(strings.ToUpper(o.phase))
	switch phase {
	case lb.PhaseNone, lb.PhaseRed, lb.PhaseGreen, lb.PhaseRefactor, lb.PhaseDocument:
	default:
		return nil, usagef("--phase %q: want RED, GREEN, REFACTOR or DOCUMENT", o.phase)
	}
	for i, d := range o.tests.decided {
		if !d {
			return nil, usagef("--test %q: say --failed or --passed after it", o.tests.tests[i].Name)
		}
	}
	for _, v := range []struct {
		name string
		o    optInt
	}{{"--files-changed", o.filesChanged}, {"--tests-passing", o.testsPassing}, {"--tests-failing", o.testsFailing}, {"--output-bytes", o.outputBytes}} {
		if v.o.set && v.o.v < 0 {
			return nil, usagef("%s must not be negative", v.name)
		}
	}
	if o.permissionDenials < 0 {
		return nil, usagef("--permission-denials must not be negative")
	}
	if o.exitCode.set && o.exitCode.v < 0 {
		return nil, usagef("--exit-code %d: an exit code is 0 or more (a shell's $? is 0 to 255): pass the agent's $?", o.exitCode.v)
	}
	if o.outputFile != "" && o.outputBytes.set {
		return nil, usagef("give --output-file or --output-bytes, not both")
	}
	it := &lb.Iteration{
		Phase: phase, Slice: o.slice, Summary: o.summary,
		FilesChanged: o.filesChanged.intp(), TestsPassing: o.testsPassing.intp(),
		TestsFailing: o.testsFailing.intp(), ExitCode: o.exitCode.intp(),
		PermissionDenials: o.permissionDenials, Complete: o.complete, Tests: o.tests.tests,
	}
	if o.outputBytes.set {
		it.OutputBytes = &o.outputBytes.v
	}
	if o.outputFile != "" {
		fi, err := os.Stat(abs(env, o.outputFile))
		if err != nil {
			return nil, fmt.Errorf("--output-file: %w", err)
		}
		if fi.IsDir() {
			return nil, usagef("--output-file %s is a directory: give the file the iteration's output was written to", o.outputFile)
		}
		n := fi.Size()
		it.OutputBytes = &n
		u, err := transcript.UsageOfFile(abs(env, o.outputFile))
		if err != nil {
			return nil, fmt.Errorf("--output-file: %w", err)
		}
		it.Usage = u
	}
	for _, text := range o.errors {
		it.Errors = append(it.Errors, errorText(text))
	}
	// The outputs are read for errors as `run` reads its command's.
	var stdout, stderr strings.Builder
	if o.outputFile != "" {
		text, err := readBounded(env, o.outputFile)
		if err != nil {
			return nil, fmt.Errorf("--output-file: %w", err)
		}
		stdout.WriteString(text)
	}
	for _, name := range o.errorFiles {
		text, err := readBounded(env, name)
		if err != nil {
			return nil, fmt.Errorf("--error-file: %w", err)
		}
		stderr.WriteString(text)
	}
	if text := supervisor.OutputError([]byte(stdout.String()), []byte(stderr.String()), it.ExitCode); text != "" {
		it.Errors = append(it.Errors, errorText(text))
	}
	for _, kv := range o.metrics {
		k, v, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil {
			return nil, usagef("--metric %q: want name=number, e.g. --metric tests_generated=4", kv)
		}
		if it.Metrics == nil {
			it.Metrics = map[string]float64{}
		}
		it.Metrics[k] = f
	}
	return it, nil
}

// errorText keeps the raw text (bounded) and the signature of the whole.
func errorText(text string) lb.ErrorText {
	return lb.ErrorText{Raw: errsig.Truncate(text, 8<<10), Signature: errsig.Signature(text)}
}

func abs(env *Env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// readBounded reads a file (or stdin for "-") up to maxErrorFileBytes,
// keeping its head and tail when it is larger.
func readBounded(env *Env, name string) (string, error) {
	var r io.Reader = env.Stdin
	if name != "-" {
		f, err := os.Open(abs(env, name))
		if err != nil {
			return "", err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", err
		}
		if fi.Size() > maxErrorFileBytes {
			head := make([]byte, maxErrorFileBytes/2)
			if _, err := io.ReadFull(f, head); err != nil {
				return "", err
			}
			tail := make([]byte, maxErrorFileBytes/2)
			if _, err := f.ReadAt(tail, fi.Size()-int64(len(tail))); err != nil && err != io.EOF {
				return "", err
			}
			return string(head) + "\n…\n" + string(tail), nil
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxErrorFileBytes))
	return string(b), err
}

// inputFiles are the files record reads: a loop writes them into the work
// tree (my-agent > out.txt 2> err.txt), so they are not the agent's work.
func (o *recordOptions) inputFiles() []string {
	var files []string
	if o.outputFile != "" {
		files = append(files, o.outputFile)
	}
	for _, f := range o.errorFiles {
		if f != "-" {
			files = append(files, f)
		}
	}
	return files
}

// measureFiles fills FilesChanged from git (worktree.Since): the working
// tree compared with the state kept at the previous record of this session
// (or at `check --start`), not with HEAD; the first record of a session
// without either compares with HEAD. A commit or another move of HEAD is
// change too (HeadMoved). loopbreaker's own files are left out, and so are
// the inputs record reads.
func (w *workspace) measureFiles(ctx context.Context, m *worktree.Pending, session string, it *lb.Iteration, inputs ...string) error {
	var also []string
	for _, f := range inputs {
		also = append(also, abs(w.env, f))
	}
	ch, err := m.Since(ctx, w.StateDir, session, also...)
	if err != nil {
		return err
	}
	n := len(ch.Files)
	it.FilesChanged, it.Files, it.HeadMoved, it.RefsMoved = &n, ch.Files, ch.HeadMoved, ch.RefsMoved
	return nil
}

// saveBaseline takes the working tree as it is at the start of a loop as
// the session's previous state, so that the loop's first record counts
// only what changed since (not edits made by hand between two loops).
// Outside a git repository there is nothing to take.
func (w *workspace) saveBaseline(ctx context.Context, session string) error {
	_, err := worktree.Since(ctx, w.Project, w.StateDir, session)
	if err != nil && !errors.Is(err, gitrepo.ErrNotRepo) {
		return err
	}
	return nil
}
