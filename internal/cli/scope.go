package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scopelock"
)

// scopeUsage lists the scope subcommands.
const scopeUsage = `loopbreaker scope: the slice's scope lock (scope section of loopbreaker.yaml)

Usage: loopbreaker scope <subcommand> [flags]

Subcommands:
  check FILE...                              each file's verdict; exit 2 when one is denied
                                             or needs a justification not yet recorded
  justify FILE --test T --reason "sentence"  record a one-sentence justification tied to the
                                             failing test T; the hook then lets FILE through
  violation FILE [--test T]                  record an unjustified out-of-scope edit (loops
                                             without hooks): it counts as a failed attempt of T
  list                                       the configuration and the recorded justifications
                                             and violations

Run ` + "`loopbreaker scope <subcommand> --help`" + ` for its flags.

Example:
  loopbreaker scope check internal/auth/token.go`

// runScope dispatches the scope subcommands.
func runScope(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, scopeUsage)
		return &exitError{code: ExitError}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(env.Stdout, scopeUsage)
		return nil
	}
	switch args[0] {
	case "check":
		return runScopeCheck(ctx, env, args[1:])
	case "justify":
		return runScopeRecord(ctx, env, args[1:], scopelock.RecordJustified)
	case "violation":
		return runScopeRecord(ctx, env, args[1:], scopelock.RecordViolation)
	case "list":
		return runScopeList(ctx, env, args[1:])
	}
	return usagef("scope: unknown subcommand %q: want check, justify, violation or list", args[0])
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (`scope justify FILE --test T`), and returns the
// positional ones. "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// scopeSession is an opened workspace with its scope lock and the
// session's breaker state.
type scopeSession struct {
	*workspace
	lock  *scopelock.Lock
	state *lb.BreakerState
}

func openScope(ctx context.Context, env *Env, c *common) (*scopeSession, error) {
	w, err := c.open(env)
	if err != nil {
		return nil, err
	}
	lock, err := scopelock.Load(w.Project, w.Config.Scope)
	if err != nil {
		w.Close()
		return nil, err
	}
	st, err := w.Store.Load(ctx, w.Scope)
	if err != nil {
		w.Close()
		return nil, err
	}
	return &scopeSession{workspace: w, lock: lock, state: st}, nil
}

// fileVerdict is one file's answer in `scope check`.
type fileVerdict struct {
	// Arg is the file as given on the command line.
	Arg string `json:"arg"`
	scopelock.Match
	Justified     bool               `json:"justified"`
	Justification *lb.ScopeViolation `json:"justification,omitempty"`
	OK            bool               `json:"ok"`
}

type scopeCheckOutput struct {
	Configured bool          `json:"configured"`
	Enabled    bool          `json:"enabled"`
	Slice      string        `json:"slice"`
	OK         bool          `json:"ok"`
	Files      []fileVerdict `json:"files"`
}

type scopeCheckOptions struct {
	common
	slice string
}

// runScopeCheck prints each file's verdict: exit 0 when every file is
// allowed or justified, 2 when one is denied or lacks its justification.
func runScopeCheck(ctx context.Context, env *Env, args []string) error {
	var o scopeCheckOptions
	fs := newFlagSet("scope check", env)
	o.register(fs, env, true)
	fs.StringVar(&o.slice, "slice", "", "`slice` whose justifications count (default: the breaker's current slice)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("scope check: name the files to check, e.g. `loopbreaker scope check src/cart.ts`")
	}
	s, err := openScope(ctx, env, &o.common)
	if err != nil {
		return err
	}
	defer s.Close()
	out := scopeCheckOutput{
		Configured: s.lock.Configured(), Enabled: s.Config.Enabled,
		Slice: scopelock.EffectiveSlice(s.state, o.slice), OK: true,
	}
	for _, f := range files {
		v := fileVerdict{Arg: f, Match: s.lock.Explain(abs(env, f))}
		switch v.Verdict {
		case scopelock.None, scopelock.Allow:
			v.OK = true
		case scopelock.Justify:
			v.Justification = scopelock.Justification(s.state, o.slice, v.File)
			v.Justified = v.Justification != nil
			v.OK = v.Justified
		}
		if !v.OK && s.Config.Enabled {
			out.OK = false
		}
		out.Files = append(out.Files, v)
	}
	if o.json {
		if err := encodeIndented(env.Stdout, out); err != nil {
			return err
		}
	} else {
		printScopeCheck(env, out)
	}
	if !out.OK {
		return halt()
	}
	return nil
}

func printScopeCheck(env *Env, out scopeCheckOutput) {
	if !out.Configured {
		fmt.Fprintln(env.Stdout, "loopbreaker: no scope configured (scope section of loopbreaker.yaml): every file is allowed")
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	var missing, denied []fileVerdict
	for _, v := range out.Files {
		name := v.File
		if name == "" {
			name = v.Arg
		}
		switch {
		case v.Justified:
			fmt.Fprintf(tw, "justified\t%s\tfor %s: %q\n", name, dashIfEmpty(v.Justification.Test), v.Justification.Justification)
		case v.Verdict == scopelock.Justify:
			fmt.Fprintf(tw, "justify\t%s\tneeds a justification (%s)\n", name, v.Rule)
			missing = append(missing, v)
		case v.Verdict == scopelock.Deny:
			fmt.Fprintf(tw, "deny\t%s\t%s\n", name, v.Rule)
			denied = append(denied, v)
		case v.Verdict == scopelock.Allow:
			fmt.Fprintf(tw, "allow\t%s\t%s\n", name, v.Rule)
		default:
			fmt.Fprintf(tw, "none\t%s\t%s\n", name, v.Rule)
		}
	}
	tw.Flush()
	if !out.Enabled {
		fmt.Fprintln(env.Stderr, "loopbreaker: disabled (enabled: false): verdicts are shown but nothing is enforced")
		return
	}
	if len(denied) > 0 {
		fmt.Fprintf(env.Stderr, "loopbreaker: %d file(s) denied by the scope lock: do not edit them for slice %s; if one really belongs to the slice, a person changes scope in loopbreaker.yaml\n", len(denied), out.Slice)
	}
	if len(missing) > 0 {
		fmt.Fprintf(env.Stderr, "loopbreaker: %d file(s) out of scope for slice %s: edit one only if you can say in one sentence why it makes the current failing test pass:\n", len(missing), out.Slice)
		for _, v := range missing {
			fmt.Fprintf(env.Stderr, "  loopbreaker scope justify %s --test TEST --reason \"one sentence tied to TEST\"\n", quoteArg(v.File))
		}
	}
}

type scopeRecordOptions struct {
	common
	slice  string
	test   string
	reason string
}

// scopeRecordOutput is the JSON of `scope justify` and `scope violation`.
type scopeRecordOutput struct {
	Recorded  bool               `json:"recorded"`
	Note      string             `json:"note,omitempty"`
	Violation *lb.ScopeViolation `json:"violation,omitempty"`
	Verdict   scopelock.Match    `json:"scope"`
	Breaker   *output            `json:"breaker,omitempty"`
}

// maxJustification bounds a justification: one sentence, not an essay.
const maxJustification = 300

// runScopeRecord records a justification (verdict "justified") or an
// unjustified out-of-scope edit (verdict "violation") in the session's
// breaker.
func runScopeRecord(ctx context.Context, env *Env, args []string, verdict string) error {
	name := "scope justify"
	if verdict == scopelock.RecordViolation {
		name = "scope violation"
	}
	var o scopeRecordOptions
	fs := newFlagSet(name, env)
	o.register(fs, env, true)
	fs.StringVar(&o.slice, "slice", "", "`slice` the edit belongs to (default: the breaker's current slice)")
	if verdict == scopelock.RecordJustified {
		fs.StringVar(&o.test, "test", "", "the failing `test` the edit makes pass (required)")
		fs.StringVar(&o.reason, "reason", "", "one `sentence` (at most 300 characters) saying why editing FILE makes the test pass (required)")
	} else {
		fs.StringVar(&o.test, "test", "", "the `test` being worked on: the violation counts as a failed attempt of it (without --test it counts toward the slice ceiling)")
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("%s: name exactly one file (got %d), e.g. `loopbreaker %s src/shared/money.ts --test TestTotal ...`", name, len(files), name)
	}
	o.test = strings.TrimSpace(o.test)
	o.reason = strings.TrimSpace(o.reason)
	if verdict == scopelock.RecordJustified {
		if err := checkJustification(o.test, o.reason); err != nil {
			return err
		}
	}
	s, err := openScope(ctx, env, &o.common)
	if err != nil {
		return err
	}
	defer s.Close()
	file := files[0]
	m := s.lock.Explain(abs(env, file))
	rel := m.File
	if rel == "" {
		rel = file
	}
	out := scopeRecordOutput{Verdict: m}
	refuse := func(code int, format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if o.json {
			out.Note = msg
			if err := encodeIndented(env.Stdout, out); err != nil {
				return err
			}
		}
		if code == ExitOK {
			if !o.json {
				fmt.Fprintln(env.Stdout, "loopbreaker: "+msg)
			}
			return nil
		}
		return &exitError{code: code, err: fmt.Errorf("%s", msg)}
	}
	slice := scopelock.EffectiveSlice(s.state, o.slice)
	if verdict == scopelock.RecordJustified {
		switch m.Verdict {
		case scopelock.None:
			return refuse(ExitOK, "no scope configured (scope section of loopbreaker.yaml): %s needs no justification; nothing recorded", rel)
		case scopelock.Allow:
			return refuse(ExitOK, "%s is in scope (%s): it needs no justification; nothing recorded", rel, m.Rule)
		case scopelock.Deny:
			if strings.HasPrefix(m.Rule, "scope.deny") {
				return refuse(ExitOpen, "%s: denied by scope.deny (%s); change loopbreaker.yaml if this file really belongs to the slice; nothing recorded", rel, m.Rule)
			}
			return refuse(ExitOpen, "%s: denied by the scope lock (%s): no justification makes it editable; nothing recorded", rel, m.Rule)
		}
		for _, t := range s.state.Tests {
			if t.Name == o.test && t.Passed {
				fmt.Fprintf(env.Stderr, "loopbreaker: note: test %s passed at its last run; a justification should be tied to a test that fails now\n", o.test)
			}
		}
	} else {
		switch {
		case m.Verdict == scopelock.Allow:
			return refuse(ExitError, "%s is in scope (%s): editing it is no violation; nothing recorded", rel, m.Rule)
		case m.Verdict == scopelock.Justify && scopelock.Justified(s.state, o.slice, rel):
			return refuse(ExitError, "%s has a justification for slice %s: editing it is no violation; nothing recorded", rel, slice)
		}
	}
	if !s.Config.Enabled {
		return refuse(ExitOK, "disabled (enabled: false): nothing recorded")
	}
	v := &lb.ScopeViolation{File: rel, Test: o.test, Slice: o.slice, Justification: o.reason, Verdict: verdict}
	res, err := s.Apply(ctx, lb.Event{Kind: lb.EventScopeViolation, Violation: v})
	if err != nil {
		return err
	}
	if len(res.States) > 0 && len(res.States[0].Violations) > 0 {
		// The engine fills the slice in; show what it recorded.
		last := res.States[0].Violations[len(res.States[0].Violations)-1]
		v = &last
	}
	out.Recorded, out.Violation = true, v
	var st *lb.BreakerState
	if len(res.States) > 0 {
		st = res.States[0]
	}
	b := s.output(st, &res.Decision)
	out.Breaker = &b
	if o.json {
		if err := encodeIndented(env.Stdout, out); err != nil {
			return err
		}
	} else {
		if verdict == scopelock.RecordJustified {
			fmt.Fprintf(env.Stdout, "loopbreaker: justified %s for test %s in slice %s: %q\n  the hook now lets edits of %s through for this slice\n", v.File, v.Test, v.Slice, v.Justification, v.File)
		} else {
			counts := "the slice ceiling of " + v.Slice
			if v.Test != "" {
				counts = "test " + v.Test
			}
			fmt.Fprintf(env.Stdout, "loopbreaker: scope violation recorded: %s (slice %s), counted as a failed attempt of %s\n", v.File, v.Slice, counts)
		}
		msg := describe(b, env.Now())
		if b.Allowed && !b.Warning {
			fmt.Fprintln(env.Stdout, msg)
		} else {
			fmt.Fprintln(env.Stderr, msg)
		}
	}
	if !b.Allowed {
		return halt()
	}
	return nil
}

// checkJustification enforces the seed's rule: one sentence tied to the
// current failing test.
func checkJustification(test, reason string) error {
	if test == "" {
		return usagef("scope justify: --test is required: name the failing test the edit makes pass")
	}
	if reason == "" {
		return usagef("scope justify: --reason is required: one sentence saying why editing this file makes %s pass", test)
	}
	if strings.ContainsAny(reason, "\n\r") {
		return usagef("scope justify: --reason must be one sentence on one line")
	}
	if n := len([]rune(reason)); n > maxJustification {
		return usagef("scope justify: --reason has %d characters; say it in one sentence of at most %d: if you cannot explain in one sentence why this file makes %s pass, do not touch it", n, maxJustification, test)
	}
	return nil
}

// scopeListOutput is the JSON of `scope list`.
type scopeListOutput struct {
	Configured   bool                `json:"configured"`
	Allow        []string            `json:"allow"`
	Justify      []string            `json:"justify"`
	Deny         []string            `json:"deny"`
	FilesInScope *filesInScopeOutput `json:"files_in_scope,omitempty"`
	Slice        string              `json:"slice"`
	Records      []lb.ScopeViolation `json:"records"`
}

type filesInScopeOutput struct {
	File  string   `json:"file"`
	Files []string `json:"files"`
}

// runScopeList shows the scope configuration and what was recorded.
func runScopeList(ctx context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("scope list", env)
	o.register(fs, env, true)
	if err := parse(fs, args); err != nil {
		return err
	}
	s, err := openScope(ctx, env, &o)
	if err != nil {
		return err
	}
	defer s.Close()
	cfg := s.lock.Config()
	out := scopeListOutput{
		Configured: s.lock.Configured(), Allow: nonNilList(cfg.Allow), Justify: nonNilList(cfg.Justify),
		Deny: nonNilList(cfg.Deny), Slice: scopelock.EffectiveSlice(s.state, ""),
		Records: s.state.Violations,
	}
	if out.Records == nil {
		out.Records = []lb.ScopeViolation{}
	}
	if cfg.FilesInScope != "" {
		out.FilesInScope = &filesInScopeOutput{File: cfg.FilesInScope, Files: nonNilList(s.lock.FilesInScope())}
	}
	if o.json {
		return encodeIndented(env.Stdout, out)
	}
	printScopeList(env.Stdout, out, s.Scope)
	return nil
}

func printScopeList(w io.Writer, out scopeListOutput, scope string) {
	if !out.Configured {
		fmt.Fprintln(w, "scope lock: off (no scope section in loopbreaker.yaml): every file is allowed")
	} else {
		fmt.Fprintln(w, "scope lock: on; first match wins: loopbreaker's own files and scope.deny: denied > scope.allow and files_in_scope: allowed > scope.justify: justification needed > any other file: justification needed")
		fmt.Fprintf(w, "  deny:     %s\n", joinOrNone(out.Deny))
		fmt.Fprintf(w, "  allow:    %s\n", joinOrNone(out.Allow))
		fmt.Fprintf(w, "  justify:  %s\n", joinOrNone(out.Justify))
		if out.FilesInScope != nil {
			fmt.Fprintf(w, "  files_in_scope (%s, %d): %s\n", out.FilesInScope.File, len(out.FilesInScope.Files), joinOrNone(out.FilesInScope.Files))
		}
		protected := "loopbreaker.yaml, loopbreaker.yml, .loopbreaker/**"
		if out.FilesInScope != nil {
			protected += ", " + out.FilesInScope.File
		}
		fmt.Fprintf(w, "  always denied: %s\n", protected)
	}
	fmt.Fprintf(w, "current slice: %s\n", out.Slice)
	if len(out.Records) == 0 {
		fmt.Fprintf(w, "no justification or violation recorded in %s\n", scope)
		return
	}
	fmt.Fprintf(w, "recorded in %s (oldest first):\n", scope)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range out.Records {
		fmt.Fprintf(tw, "  %s\t%s\tslice %s\ttest %s", v.Verdict, v.File, v.Slice, dashIfEmpty(v.Test))
		if v.Justification != "" {
			fmt.Fprintf(tw, "\t%q", v.Justification)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func encodeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func nonNilList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func joinOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// shellArg quotes s for a POSIX shell when it needs quoting.
func quoteArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
