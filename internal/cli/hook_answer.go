package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/report"
	"github.com/loopbreaker/loopbreaker/scopelock"
)

// hookDirName is the directory, inside the state directory, of the small
// files hooks keep besides the breaker state: which warning episode was
// already delivered, and the most recently failing test.
const hookDirName = "hooks"

type hookAnswerOptions struct {
	project string
	session string
	caller  string
	sets    multiFlag
}

// hookCall is one hook invocation being answered.
type hookCall struct {
	env     *Env
	tool    hook.Tool
	p       *hook.Payload
	opts    hookAnswerOptions
	w       *workspace
	onError string
}

// runHookAnswer answers one hook call. It always exits 0 with at most one
// JSON object on stdout: the verdict is in the JSON. Trouble of
// loopbreaker's own (an unreadable payload, a corrupt state) is written to
// stderr and, as the tool allows, shown to the person; on_error: stop
// also refuses tool calls and prompts until it is fixed, but nothing ever
// blocks a turn end.
func runHookAnswer(ctx context.Context, env *Env, tool hook.Tool, args []string) (err error) {
	var o hookAnswerOptions
	fs := newFlagSet("hook "+string(tool), env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent of the working directory with loopbreaker.yaml or .loopbreaker/)")
	def := env.Getenv("LOOPBREAKER_SESSION")
	if def == "" {
		def = string(tool)
	}
	fs.StringVar(&o.session, "session", def, "session `name` whose breaker the hook feeds (env LOOPBREAKER_SESSION; default: the tool's name)")
	fs.StringVar(&o.caller, "caller", env.Getenv("LOOPBREAKER_CALLER"), "who is asking; the half-open probe is tied to it (env LOOPBREAKER_CALLER; default: the session)")
	fs.Var(&o.sets, "set", "override a configuration `key=value` (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if f, ok := env.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return usagef("hook %s: stdin is a terminal: the agent CLI runs this command with its JSON payload on stdin (try `loopbreaker hook %s < payload.json`); to install the hooks run `loopbreaker hook install %s`", tool, tool, tool)
		}
	}
	p, perr := hook.Read(tool, env.Stdin)
	if perr != nil {
		msg := fmt.Sprintf("loopbreaker hook %s: %v. This call was not checked; the agent goes on. Check that the hook runs `loopbreaker hook %s` with the payload on stdin.", tool, perr, tool)
		fmt.Fprintln(env.Stderr, msg)
		_, err := env.Stdout.Write(hook.Render(tool, "", hook.Notice, msg).Stdout)
		return err
	}
	h := &hookCall{env: env, tool: tool, p: p, opts: o, onError: lb.OnErrorStop}
	defer func() {
		// A bug of loopbreaker's must not turn into an exit code the agent
		// reads as a verdict.
		if r := recover(); r != nil {
			ans := h.failure(fmt.Errorf("internal error: %v", r))
			_, err = env.Stdout.Write(ans.Stdout)
		}
		if h.w != nil {
			h.w.close()
		}
	}()
	ans := h.answer(ctx)
	_, err = env.Stdout.Write(ans.Stdout)
	return err
}

// answer decides and renders.
func (h *hookCall) answer(ctx context.Context) hook.Answer {
	project, active := h.project()
	if !active {
		fmt.Fprintf(h.env.Stderr, "loopbreaker hook %s: no %s or %s/ in %s or above: the hook is inactive here (run `loopbreaker init` to activate it)\n",
			h.tool, config.ProjectFile, StateDirName, project)
		return h.render(hook.Allow, "")
	}
	c := common{project: project, session: h.opts.session, caller: h.opts.caller, sets: h.opts.sets}
	w, err := c.open(h.env)
	if err != nil {
		return h.failure(err)
	}
	h.w, h.onError = w, w.cfg.OnError
	switch h.p.Kind {
	case hook.KindPreTool:
		return h.preTool(ctx)
	case hook.KindPostTool:
		return h.postTool(ctx)
	case hook.KindStop:
		return h.stop(ctx)
	case hook.KindPrompt, hook.KindSessionStart:
		res, err := h.apply(ctx, lb.Event{Kind: lb.EventCheck})
		if err != nil {
			return h.failure(err)
		}
		return h.decide(ctx, res)
	}
	return h.render(hook.Allow, "")
}

func (h *hookCall) render(o hook.Outcome, reason string) hook.Answer {
	return hook.Render(h.tool, h.p.Event, o, reason)
}

// project finds the project directory and whether loopbreaker is active
// there: a loopbreaker.yaml or state directory in it, or LOOPBREAKER_DIR.
func (h *hookCall) project() (string, bool) {
	start := h.opts.project
	if start == "" {
		switch h.tool {
		case hook.Claude:
			start = h.env.Getenv("CLAUDE_PROJECT_DIR")
		case hook.Gemini:
			start = h.env.Getenv("GEMINI_PROJECT_DIR")
		}
	}
	if start == "" {
		start = h.env.Dir
	}
	start = abs(h.env, start)
	dir := findProject(start)
	return dir, h.env.Getenv("LOOPBREAKER_DIR") != "" || hasProjectMarker(dir)
}

// apply applies ev to the session's breaker. A committed update whose
// follow-up failed still decides (the store finishes it next time).
func (h *hookCall) apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	ev.Caller = h.w.caller
	res, err := h.w.svc.Apply(ctx, []string{h.w.scope}, ev)
	if err != nil && errors.Is(err, lb.ErrCommitted) && len(res.States) > 0 {
		fmt.Fprintf(h.env.Stderr, "loopbreaker: warning: %v\n", err)
		err = nil
	}
	if err == nil && len(res.States) == 0 {
		err = errors.New("the breaker returned no state")
	}
	return res, err
}

// failure answers when loopbreaker itself failed. on_error "continue"
// tells the person and lets the agent go on; "stop" (the default, also
// when the configuration could not be read) refuses tool calls and
// prompts with the error, and says it loudly elsewhere. A turn end is
// never blocked.
func (h *hookCall) failure(err error) hook.Answer {
	msg := fmt.Sprintf("loopbreaker: the breaker itself failed: %v", err)
	fmt.Fprintln(h.env.Stderr, msg)
	if h.onError == lb.OnErrorContinue {
		return h.render(hook.Notice, msg+" (on_error: continue, so the agent goes on UNGUARDED)")
	}
	msg += fmt.Sprintf(". Tool calls are refused until this is fixed (on_error: stop): see `loopbreaker status --session %s`, `loopbreaker recover`, or set on_error: continue to go on unguarded.", h.opts.session)
	switch h.p.Kind {
	case hook.KindPreTool, hook.KindPrompt:
		return h.render(hook.Deny, msg)
	}
	return h.render(hook.Notice, msg)
}

// decide turns a decision into an outcome: OPEN stops the agent, a busy
// probe denies, a warning nudges the model once per episode.
func (h *hookCall) decide(ctx context.Context, res breaker.Result) hook.Answer {
	d, st := res.Decision, res.States[0]
	switch {
	case !d.Allowed && d.State == lb.Open:
		return h.render(hook.Stop, h.haltMessage(ctx, d, st))
	case !d.Allowed:
		if h.p.Kind == hook.KindStop {
			return h.render(hook.Allow, "")
		}
		return h.render(hook.Deny, fmt.Sprintf("loopbreaker: %s (session %s). Wait, or end your turn.", d.Reason, h.opts.session))
	case d.Warning && h.p.Kind != hook.KindStop && hook.NudgeReachesModel(h.tool, h.p.Event) && h.firstNudge(st):
		return h.render(hook.Nudge, fmt.Sprintf("loopbreaker: the circuit breaker is HALF_OPEN (warning) for session %s: %s", h.opts.session, d.Reason))
	}
	return h.render(hook.Allow, "")
}

// haltMessage says why the breaker is OPEN, what the report makes of it,
// and how a person resets it.
func (h *hookCall) haltMessage(ctx context.Context, d lb.Decision, st *lb.BreakerState) string {
	now := h.env.Now()
	opts := report.Options{Now: now, Session: h.opts.session, Program: "loopbreaker"}
	if st.Slice != "" {
		// Only when halting: the report recommends a rollback when a
		// checkpoint exists.
		if repo, err := gitrepo.Open(h.w.project); err == nil {
			if cps, err := repo.Checkpoints(ctx); err == nil {
				for _, cp := range cps {
					if cp.Slice == st.Slice {
						opts.CheckpointTag = cp.Tag
					}
				}
			}
		}
	}
	r := report.Build(st, h.w.svc.Engine.Status(st, now), opts)
	var b strings.Builder
	b.WriteString(report.Summary(r))
	fmt.Fprintf(&b, "\nStop here and end your turn: tool calls of session %s are refused until a person resets the breaker", h.opts.session)
	if d.RetryAt != nil {
		fmt.Fprintf(&b, " or the cooldown ends (%s)", d.RetryAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, ".\nReport: loopbreaker report --session %s", shellWord(h.opts.session))
	if !strings.Contains(b.String(), "loopbreaker reset ") {
		fmt.Fprintf(&b, "\nReset: loopbreaker reset --session %s --guidance \"what to do differently\"", shellWord(h.opts.session))
	}
	return b.String()
}

// firstNudge reports whether this warning episode (one stay in HALF_OPEN,
// named by the time of the transition into it) has not been delivered to
// the model yet, and marks it delivered. The mark is a file created with
// O_EXCL, so that two hooks running in parallel deliver it once.
func (h *hookCall) firstNudge(st *lb.BreakerState) bool {
	// The transition time names the episode; the reset and open counts
	// tell episodes apart under a frozen clock (LOOPBREAKER_NOW).
	episode := fmt.Sprintf("%d-%d", st.Resets, st.TotalOpens)
	for i := len(st.Transitions) - 1; i >= 0; i-- {
		if t := st.Transitions[i]; t.To == lb.HalfOpen {
			episode = fmt.Sprintf("%d-%s", t.Time.UnixNano(), episode)
			break
		}
	}
	dir := filepath.Join(h.w.stateDir, hookDirName)
	prefix := escapeFileName(h.opts.session) + ".nudged-"
	name := filepath.Join(dir, prefix+episode)
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err != nil {
		// Better a second nudge than none.
		fmt.Fprintf(h.env.Stderr, "loopbreaker: cannot remember that the warning was delivered: %v\n", err)
		return true
	}
	f.Close()
	// Forget older episodes.
	if old, err := filepath.Glob(filepath.Join(dir, globEscape(prefix)+"*")); err == nil {
		for _, o := range old {
			if o != name {
				os.Remove(o)
			}
		}
	}
	return true
}

// globEscape escapes the glob metacharacters of a literal file name part.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// baseDir is the directory relative paths in a payload are relative to:
// the agent's cwd when it exists here, else the working directory.
func (h *hookCall) baseDir() string {
	if c := h.p.Cwd; c != "" && filepath.IsAbs(c) {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c
		}
	}
	return h.env.Dir
}

// preTool checks before a tool runs: OPEN denies and stops the agent;
// an edit goes through the scope lock.
func (h *hookCall) preTool(ctx context.Context) hook.Answer {
	res, err := h.apply(ctx, lb.Event{Kind: lb.EventCheck})
	if err != nil {
		return h.failure(err)
	}
	d := res.Decision
	if d.Allowed && h.w.cfg.Enabled && hook.Classify(h.tool, h.p.ToolName) == hook.ClassEdit {
		if ans, done := h.scopeLock(ctx, res.States[0]); done {
			return ans
		}
	}
	return h.decide(ctx, res)
}

// scopeLock applies the slice's scope lock to the files an edit names. An
// out-of-scope edit without a recorded justification, or an edit of a
// denied file, is recorded as a scope violation and refused.
func (h *hookCall) scopeLock(ctx context.Context, st *lb.BreakerState) (hook.Answer, bool) {
	lock, err := scopelock.Load(h.w.project, h.w.cfg.Scope)
	if err != nil {
		return h.failure(err), true
	}
	if !lock.Configured() {
		return hook.Answer{}, false
	}
	for _, file := range h.p.Files(h.w.project, h.baseDir()) {
		m := lock.Explain(file)
		if m.Verdict == scopelock.Allow || m.Verdict == scopelock.None {
			continue
		}
		if m.Verdict == scopelock.Justify && lock.Justified(st, "", file) {
			continue
		}
		shown := m.File
		if shown == "" {
			shown = file
		}
		test := h.lastFailingTest(st)
		res, err := h.apply(ctx, lb.Event{Kind: lb.EventScopeViolation, Violation: &lb.ScopeViolation{
			File: shown, Test: test, Verdict: scopelock.RecordViolation,
		}})
		if err != nil {
			return h.failure(err), true
		}
		if d := res.Decision; !d.Allowed && d.State == lb.Open {
			return h.render(hook.Stop, h.haltMessage(ctx, d, res.States[0])), true
		}
		return h.render(hook.Deny, h.scopeMessage(m, shown, test, res.States[0])), true
	}
	return hook.Answer{}, false
}

func (h *hookCall) scopeMessage(m scopelock.Match, file, test string, st *lb.BreakerState) string {
	slice := scopelock.EffectiveSlice(st, "")
	if m.Verdict == scopelock.Deny {
		return fmt.Sprintf("loopbreaker: scope lock: editing %s is refused (%s). The edit was not made and counts as an attempt. Leave this file alone and work within the files of slice %s.",
			file, m.Rule, slice)
	}
	testArg := shellWord(test)
	forTest := "the failing test"
	if test == "" {
		testArg = "TEST"
	} else {
		forTest = test
	}
	return fmt.Sprintf("loopbreaker: scope lock: %s is outside the scope of slice %s (%s). The edit was not made and counts as an attempt. "+
		"If this file must change to make %s pass, record a one-sentence justification tied to that test, then retry the edit:\n"+
		"  loopbreaker scope justify --session %s %s --test %s --reason \"<one sentence: why %s must change for the test>\"\n"+
		"Otherwise, stay within the slice's files.",
		file, slice, m.Rule, forTest, shellWord(h.opts.session), shellWord(file), testArg, file)
}

// postTool records the tool call that ran.
func (h *hookCall) postTool(ctx context.Context) hook.Answer {
	tc := hook.BuildToolCall(h.p, h.w.project, h.baseDir())
	res, err := h.apply(ctx, lb.Event{Kind: lb.EventToolCall, ToolCall: &tc})
	if err != nil {
		return h.failure(err)
	}
	if h.w.cfg.Enabled {
		h.noteFailingTest(tc.Tests)
	}
	return h.decide(ctx, res)
}

// stop handles a turn end. A main-agent turn end records an iteration
// when git can say which files changed since the previous turn end (that
// is what no-progress detection across turns and agent restarts needs);
// otherwise, and for a subagent, it only checks. It never blocks: OPEN
// answers with the protocol's stop (continue: false), which also
// overrides other Stop hooks that would keep the agent looping.
func (h *hookCall) stop(ctx context.Context) hook.Answer {
	ev := lb.Event{Kind: lb.EventCheck}
	if h.p.Event != "SubagentStop" && h.w.cfg.Enabled {
		it := &lb.Iteration{Summary: summaryLine(h.p.LastMessage)}
		if err := h.w.measureFiles(ctx, h.opts.session, it); err != nil {
			fmt.Fprintf(h.env.Stderr, "loopbreaker: turn end not recorded as an iteration: files changed not measured (%v)\n", err)
		} else {
			ev = lb.Event{Kind: lb.EventIteration, Iteration: it}
		}
	}
	res, err := h.apply(ctx, ev)
	if err != nil {
		return h.failure(err)
	}
	return h.decide(ctx, res)
}

// summaryLine keeps the first line of the agent's last message, short.
func summaryLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// noteFailingTest remembers the most recently failing test, for scope
// violations (which count against it); a test that passes again is
// forgotten.
func (h *hookCall) noteFailingTest(tests []lb.TestResult) {
	path := filepath.Join(h.w.stateDir, hookDirName, escapeFileName(h.opts.session)+".failing")
	for _, t := range tests {
		if !t.Passed && !t.Infra && t.Name != "" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				tmp := path + ".tmp"
				if os.WriteFile(tmp, []byte(t.Name+"\n"), 0o644) == nil {
					os.Rename(tmp, path)
				}
			}
			return
		}
	}
	if len(tests) == 0 {
		return
	}
	if b, err := os.ReadFile(path); err == nil {
		last := strings.TrimSpace(string(b))
		for _, t := range tests {
			if t.Name == last && t.Passed {
				os.Remove(path)
			}
		}
	}
}

// lastFailingTest is the most recently failing test: the one noted by the
// last tool call that saw a failure, else the current slice's test with
// the most failed attempts.
func (h *hookCall) lastFailingTest(st *lb.BreakerState) string {
	path := filepath.Join(h.w.stateDir, hookDirName, escapeFileName(h.opts.session)+".failing")
	if b, err := os.ReadFile(path); err == nil {
		if name := strings.TrimSpace(string(b)); name != "" {
			return name
		}
	}
	best := -1
	for i, t := range st.Tests {
		if t.Slice == st.Slice && !t.Passed && t.Failed > 0 && (best < 0 || t.Failed >= st.Tests[best].Failed) {
			best = i
		}
	}
	if best >= 0 {
		return st.Tests[best].Name
	}
	return ""
}
