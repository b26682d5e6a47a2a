package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

type replayOptions struct {
	project string
	sets    multiFlag
	sweeps  multiFlag
	labels  string
	json    bool
	paths   []string
}

// replayOutput is the --json answer.
type replayOutput struct {
	Settings []replaySetting `json:"settings"`
	Errors   []replayError   `json:"errors"`
	// Skipped counts files met in directories that are no session.
	Skipped int `json:"skipped"`
}

type replaySetting struct {
	Setting string          `json:"setting"`
	Results []replay.Result `json:"results"`
	Figures *replay.Figures `json:"figures,omitempty"`
	figs    replay.Figures  // always computed, for the text table
}

type replayError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// runReplay replays recorded agent sessions through the breaker in memory.
func runReplay(_ context.Context, env *Env, args []string) error {
	var o replayOptions
	fs := newFlagSet("replay", env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory whose configuration applies (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	fs.Var(&o.sets, "set", "override a configuration `key=value` (repeatable)")
	fs.Var(&o.sweeps, "sweep", "replay under each value of a key: `key=v1,v2,...` (repeatable: every combination)")
	fs.StringVar(&o.labels, "labels", "", "`file` of outcomes, one \"SESSION succeeded|failed|exhausted [LAST_EDIT_STEP]\" a line: report halts of successful sessions before their last edit and the share of failed sessions' steps cut")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of text")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("replay: name at least one session file or directory, e.g. `loopbreaker replay ~/.claude/projects`")
	}
	o.paths = paths
	return o.run(env)
}

func (o *replayOptions) run(env *Env) error {
	project := resolveProject(env, o.project)
	base := map[string]string{}
	for _, kv := range o.sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--set %q: want key=value, e.g. --set tool_calls.repeat=4", kv)
		}
		base[k] = v
	}
	combos, err := replay.Sweep(o.sweeps)
	if err != nil {
		return usagef("%v", err)
	}
	var labels replay.Labels
	if o.labels != "" {
		f, err := os.Open(abs(env, o.labels))
		if err != nil {
			return fmt.Errorf("--labels: %w", err)
		}
		labels, err = replay.ParseLabels(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("--labels %s: %w", o.labels, err)
		}
	}
	// Every setting's configuration is loaded (and checked) before any
	// session is read.
	settings := make([]replay.Setting, 0, len(combos))
	for _, combo := range combos {
		flags := map[string]string{}
		for k, v := range base {
			flags[k] = v
		}
		for _, kv := range combo {
			k, v, _ := strings.Cut(kv, "=")
			flags[k] = v
		}
		loaded, err := config.Load(config.Options{ProjectDir: project, Env: env.Environ, Flags: flags})
		if err != nil {
			if len(combo) > 0 {
				return fmt.Errorf("setting %s: %w", strings.Join(combo, " "), err)
			}
			return err
		}
		settings = append(settings, replay.Setting{Name: strings.Join(combo, " "), Config: loaded.Config})
	}

	out := replayOutput{Errors: []replayError{}}
	files, skipped, errs := collectSessionFiles(env, o.paths)
	out.Errors = append(out.Errors, errs...)
	bar := newProgress(env.Stderr, len(files)*(1+len(settings)))
	var prepared []*replay.Prepared
	for _, f := range files {
		s, err := transcript.Read(f.path, all.Transcripts())
		bar.step()
		if err != nil {
			if f.walked && errors.Is(err, transcript.ErrUnknownFormat) {
				skipped++
				continue
			}
			out.Errors = append(out.Errors, replayError{Path: f.path, Error: err.Error()})
			continue
		}
		s.Path = f.shown
		prepared = append(prepared, replay.Prepare(s))
	}
	out.Skipped = skipped
	for _, st := range settings {
		rs := replaySetting{Setting: st.Name, Results: make([]replay.Result, 0, len(prepared))}
		for _, p := range prepared {
			rs.Results = append(rs.Results, p.Run(st.Config))
			bar.step()
		}
		rs.figs = replay.Tally(st.Name, rs.Results, labels)
		if labels != nil || len(settings) > 1 {
			f := rs.figs
			rs.Figures = &f
		}
		out.Settings = append(out.Settings, rs)
	}
	bar.done()

	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if len(prepared) > 0 || len(out.Errors) == 0 {
		// With no session read and errors, the errors below say it all.
		printReplay(env.Stdout, out, len(prepared), labels != nil)
	}
	for _, e := range out.Errors {
		fmt.Fprintf(env.Stderr, "loopbreaker: replay: %s\n", e.Error)
	}
	if len(out.Errors) > 0 {
		if len(prepared) == 0 {
			return &exitError{code: ExitError, err: fmt.Errorf("replay: no file could be replayed (see above)")}
		}
		others := fmt.Sprintf("the other %d were", len(prepared))
		if len(prepared) == 1 {
			others = "the other was"
		}
		return &exitError{code: ExitError, err: fmt.Errorf("replay: %d of %d files could not be replayed (see above); %s replayed", len(out.Errors), len(files)+len(errs), others)}
	}
	return nil
}

type sessionFile struct {
	path, shown string
	walked      bool // found in a directory, not named
}

// collectSessionFiles expands directories into the files in them that may
// hold a session.
func collectSessionFiles(env *Env, args []string) ([]sessionFile, int, []replayError) {
	var files []sessionFile
	var errs []replayError
	skipped := 0
	for _, a := range args {
		p := abs(env, a)
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, replayError{Path: a, Error: err.Error()})
			continue
		}
		if !fi.IsDir() {
			files = append(files, sessionFile{path: p, shown: a})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, replayError{Path: path, Error: err.Error()})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !maybeSession(path) {
				if !d.IsDir() {
					skipped++
				}
				return nil
			}
			shown := path
			if rel, err := filepath.Rel(p, path); err == nil {
				shown = filepath.Join(a, rel)
			}
			files = append(files, sessionFile{path: path, shown: shown, walked: true})
			return nil
		})
		if err != nil {
			errs = append(errs, replayError{Path: a, Error: err.Error()})
		}
	}
	return files, skipped, errs
}

// maybeSession says whether a file met in a directory may hold a session.
func maybeSession(path string) bool {
	base := filepath.Base(path)
	if base == "state.json" || strings.HasSuffix(base, ".tmp") {
		return false
	}
	for _, ext := range []string{".jsonl", ".json", ".traj"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return filepath.Base(filepath.Dir(path)) == "chats"
}

func printReplay(w io.Writer, out replayOutput, sessions int, labelled bool) {
	if sessions == 0 {
		var read []string
		for _, a := range all.Agents() {
			if r := a.Transcript(); r.Line != nil || r.Document != nil {
				read = append(read, a.Traits().Display)
			}
		}
		fmt.Fprintf(w, "no recorded agent session found: replay reads %s sessions, SWE-agent and mini-swe-agent trajectories, ATIF and loopbreaker journals (see docs/replay.md)\n", strings.Join(read, ", "))
		if out.Skipped > 0 {
			fmt.Fprintf(w, "(%d files were not recorded sessions)\n", out.Skipped)
		}
		return
	}
	if len(out.Settings) == 1 {
		st := out.Settings[0]
		if len(st.Results) == 1 {
			printOneReplay(w, st.Results[0])
		} else {
			printReplayTable(w, st.Results)
		}
		if labelled {
			fmt.Fprintln(w)
			printFigures(w, []replaySetting{st}, true)
		}
	} else {
		fmt.Fprintf(w, "%d sessions under %d settings:\n", sessions, len(out.Settings))
		printFigures(w, out.Settings, labelled)
	}
	if out.Skipped > 0 {
		fmt.Fprintf(w, "(%d files in the directories were not recorded sessions and were skipped)\n", out.Skipped)
	}
}

func printOneReplay(w io.Writer, r replay.Result) {
	fmt.Fprintf(w, "%s (%s, session %s): %s, %s\n", r.Path, r.Format, r.Session, plural(r.Steps, "tool call"), plural(r.Turns, "turn"))
	if r.Warn != nil {
		fmt.Fprintf(w, "  warn  %s  %s: %s\n", markStep(r.Warn), r.Warn.Detector, oneLine(r.Warn.Reason))
	}
	if r.Halt == nil {
		fmt.Fprintln(w, "  no halt: the breaker would have let the whole session run")
		printReplaySpend(w, r, "in all")
		return
	}
	printReplaySpend(w, r, "up to the halt")
	fmt.Fprintf(w, "  HALT  %s  %s: %s\n", markStep(r.Halt), r.Halt.Detector, oneLine(r.Halt.Reason))
	if r.Steps == 0 { // a journal of iterations: count its turns
		after := r.Turns - r.Halt.Turn
		fmt.Fprintf(w, "  %d of %s came after the halt (%.0f %%)\n", after, plural(r.Turns, "turn"), replay.Share(after, r.Turns))
	} else {
		fmt.Fprintf(w, "  %d of %s came after the halt (%.0f %%)\n", r.StepsAfterHalt, plural(r.Steps, "tool call"), replay.Share(r.StepsAfterHalt, r.Steps))
	}
	if r.LastEdit > r.Halt.Step {
		fmt.Fprintf(w, "  the session's last edit was at step %d, after the halt\n", r.LastEdit)
	}
}

// printReplaySpend shows what the session's model calls consumed, when
// it records usage.
func printReplaySpend(w io.Writer, r replay.Result, when string) {
	if r.Spend != nil {
		fmt.Fprintf(w, "  spent %s: %s\n", when, r.Spend.Summary())
	}
}

func markStep(m *replay.Mark) string {
	switch {
	case m.TurnEnd && m.Step == 0:
		return fmt.Sprintf("at the end of turn %d", m.Turn)
	case m.TurnEnd:
		return fmt.Sprintf("at the end of turn %d, after step %d", m.Turn, m.Step)
	}
	return fmt.Sprintf("at step %d (turn %d)", m.Step, m.Turn)
}

// markCell is a mark in the table: its step, or its turn ("turn 3") in a
// session of turns without tool calls (a journal of iterations).
func markCell(m *replay.Mark) string {
	if m.TurnEnd && m.Step == 0 {
		return fmt.Sprintf("turn %d", m.Turn)
	}
	return fmt.Sprint(m.Step)
}

func printReplayTable(w io.Writer, rs []replay.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tFORMAT\tSTEPS\tWARN\tHALT\tDETECTOR\tAFTER HALT")
	halted, after, steps := 0, 0, 0
	for _, r := range rs {
		warn, halt, det, cut := "-", "-", "-", "-"
		if r.Warn != nil {
			warn = markCell(r.Warn)
		}
		if r.Halt != nil {
			halt, det, cut = markCell(r.Halt), r.Halt.Detector, fmt.Sprint(r.StepsAfterHalt)
			halted++
			after += r.StepsAfterHalt
		}
		steps += r.Steps
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Path, r.Format, r.Steps, warn, halt, det, cut)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d sessions halted; %d of %d tool calls came after a halt (%.1f %%)\n",
		halted, len(rs), after, steps, replay.Share(after, steps))
}

func printFigures(w io.Writer, sts []replaySetting, labelled bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if labelled {
		fmt.Fprintln(tw, "SETTING\tHALTED\tSUCCEEDED HALTED BEFORE LAST EDIT\tFAILED STEPS CUT\tEXHAUSTED STEPS CUT\tSTREAKS OF 5 HALTED BY THE 5TH")
	} else {
		fmt.Fprintln(tw, "SETTING\tHALTED\tSTEPS CUT\tSTREAKS OF 5 HALTED BY THE 5TH")
	}
	for _, st := range sts {
		f := st.figs
		name := f.Setting
		if name == "" {
			name = "(effective configuration)"
		}
		streaks := fmt.Sprintf("%d/%d", f.StreaksCaught, f.Streaks)
		if labelled {
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d (%.1f %%)\t%d/%d (%.1f %%)\t%d/%d (%.1f %%)\t%s\n", name, f.Halted, f.Sessions,
				f.SucceededHaltedEarly, f.Succeeded, replay.Share(f.SucceededHaltedEarly, f.Succeeded),
				f.FailedCut, f.FailedSteps, replay.Share(f.FailedCut, f.FailedSteps),
				f.ExhaustedCut, f.ExhaustedSteps, replay.Share(f.ExhaustedCut, f.ExhaustedSteps), streaks)
			continue
		}
		cut, steps := 0, 0
		for _, r := range st.Results {
			steps += r.Steps
			cut += r.StepsAfterHalt
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d (%.1f %%)\t%s\n", name, f.Halted, f.Sessions, cut, steps, replay.Share(cut, steps), streaks)
	}
	tw.Flush()
}

// progress draws a progress bar on a terminal's stderr (nothing
// elsewhere, so logs and pipes stay clean).
type progress struct {
	w         io.Writer
	total, n  int
	on        bool
	lastDrawn int
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, on: total >= 50 && isTerminal(w), lastDrawn: -1}
}

func (p *progress) step() {
	p.n++
	if !p.on {
		return
	}
	pct := 100 * p.n / p.total
	if pct == p.lastDrawn {
		return
	}
	p.lastDrawn = pct
	const width = 30
	fill := width * p.n / p.total
	fmt.Fprintf(p.w, "\rreplay [%s%s] %3d %%", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 50))
	}
}

// plural says "1 turn", "4 turns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
