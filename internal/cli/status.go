package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/redisstore"
	"github.com/loopbreaker/loopbreaker/session"
)

// runStatus prints state, reason, every counter against its threshold,
// the time until the cooldown ends and the last transitions. It changes
// nothing.
func runStatus(ctx context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("status", env)
	o.register(fs, env, true)
	w, err := o.parseOpenRead(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	if named(fs, "session", "scope") {
		if err := w.knownScope(ctx); err != nil {
			return err
		}
	}
	st, err := w.Store.Load(ctx, w.Scope)
	if err != nil {
		return err
	}
	out := statusOutput{output: w.output(st, nil), StateDir: w.StateDir}
	if rs, ok := w.Store.(*redisstore.Store); ok {
		out.Store = rs.String()
	}
	if w.keyed && !dirExists(w.StateDir) {
		out.StaleStates = session.StaleStates(w.StateDir, w.Project)
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return shownBy(env.Stdout, func(b io.Writer) error {
		printStatus(b, out.output, env.Now())
		w.printOthers(ctx, b)
		printWhere(b, out)
		return nil
	})
}

// statusOutput is `status --json`: the breaker's status and where the
// project's state lives.
type statusOutput struct {
	output
	// StateDir is the project's state directory (outside the project
	// unless LOOPBREAKER_DIR or state_dir put it inside).
	StateDir string `json:"state_dir"`
	// Store is the Redis store when the breakers live there.
	Store string `json:"store,omitempty"`
	// StaleStates are the state directories of projects of this name
	// that no longer exist, when this project has none yet: where its
	// state is if it was moved.
	StaleStates []session.StaleState `json:"stale_states,omitempty"`
}

// printWhere says where the state lives and, for a project with none yet,
// where the state of a project it may have been moved from is.
func printWhere(w io.Writer, o statusOutput) {
	if o.Store != "" {
		fmt.Fprintf(w, "\nbreakers in %s; other state in %s\n", o.Store, o.StateDir)
	} else {
		fmt.Fprintf(w, "\nstate in %s\n", o.StateDir)
	}
	for _, s := range o.StaleStates {
		fmt.Fprintf(w, "note: %s holds the state of %s, which no longer exists; if this project was moved from there:\n"+
			"  `loopbreaker migrate --from %s` copies its breakers here, or `mv %s %s` takes all of it (before this project writes state)\n",
			s.StateDir, s.Project, shell.Quote(s.Project), shell.Quote(s.StateDir), shell.Quote(o.StateDir))
	}
}

// printOthers lists the project's other breakers, so that someone who
// looks at the default session learns that the hooks keep theirs under
// the tool's name (session:claude) or that `serve` has agent breakers. A
// server may have made thousands: up to maxOthersShown are shown with
// their state (sessions first), the rest are counted by kind, so that the
// command reads only a few state files whatever their number.
func (w *workspace) printOthers(ctx context.Context, out io.Writer) {
	scopes, err := w.Store.Scopes(ctx)
	if err != nil {
		return
	}
	scopes = slices.DeleteFunc(scopes, func(sc string) bool { return sc == w.Scope })
	if len(scopes) == 0 {
		return
	}
	// Sessions (the loop commands' and the hooks') before the rest.
	slices.SortStableFunc(scopes, func(a, b string) int {
		return cmpBool(!strings.HasPrefix(a, "session:"), !strings.HasPrefix(b, "session:"))
	})
	var shown []string
	for _, sc := range scopes[:min(len(scopes), maxOthersShown)] {
		state := "unreadable"
		if st, err := w.Store.Load(ctx, sc); err == nil {
			state = string(st.State)
		}
		shown = append(shown, fmt.Sprintf("%s (%s)", sc, state))
	}
	if len(scopes) <= maxOthersShown {
		fmt.Fprintf(out, "\nother breakers: %s\n  see one with --session NAME (session:NAME) or --scope SCOPE\n", strings.Join(shown, ", "))
		return
	}
	kinds := map[string]int{}
	for _, sc := range scopes {
		kind, _, _ := strings.Cut(sc, ":")
		kinds[kind]++
	}
	var byKind []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		byKind = append(byKind, fmt.Sprintf("%s: %s", k, thousands(kinds[k])))
	}
	fmt.Fprintf(out, "\n%s other breakers (%s); among them: %s, ...\n  see one with --scope SCOPE; a server lists them all with their states (GET /v1/breakers, its dashboard)\n",
		thousands(len(scopes)), strings.Join(byKind, ", "), strings.Join(shown, ", "))
}

// named reports whether one of the flags was given on the command line.
func named(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || slices.Contains(names, f.Name) })
	return found
}

// knownScope refuses a breaker the project does not have while it has
// others: a mistyped --session would otherwise show a fresh CLOSED
// breaker, as if all were well. The known ones are listed (up to
// maxKnownListed). A project with no breaker yet shows the fresh one
// asked for (where its state will be, with nothing recorded): there is no
// other name it could have meant.
func (w *workspace) knownScope(ctx context.Context) error {
	scopes, err := w.Store.Scopes(ctx)
	if err != nil || len(scopes) == 0 || slices.Contains(scopes, w.Scope) {
		return err
	}
	slices.SortStableFunc(scopes, func(a, b string) int {
		return cmpBool(!strings.HasPrefix(a, "session:"), !strings.HasPrefix(b, "session:"))
	})
	more := ""
	if len(scopes) > maxKnownListed {
		more = fmt.Sprintf(", and %d more", len(scopes)-maxKnownListed)
		scopes = scopes[:maxKnownListed]
	}
	return fmt.Errorf("no breaker %s in this project: the known ones are %s%s; check the name (--session NAME is session:NAME, --scope SCOPE names any)", w.Scope, strings.Join(scopes, ", "), more)
}

// maxKnownListed is how many breakers an unknown one's error lists.
const maxKnownListed = 20

// maxOthersShown is how many other breakers status names with their state.
const maxOthersShown = 5

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// thousands writes n with comma separators (10,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func printStatus(w io.Writer, o output, now time.Time) {
	state := string(o.State)
	if o.Mode != "" {
		state += " (" + string(o.Mode) + ")"
	}
	fmt.Fprintf(w, "scope:       %s\nstate:       %s\n", o.Scope, state)
	if !o.Enabled {
		fmt.Fprintln(w, "enabled:     false (nothing is checked or recorded)")
	}
	if len(o.ConfigPending) > 0 {
		reset := "--scope " + shell.Quote(o.Scope)
		if name, ok := strings.CutPrefix(o.Scope, "session:"); ok {
			reset = "--session " + shell.Quote(name)
		}
		fmt.Fprintf(w, "config:      the session runs with the configuration it started with; the files now say otherwise: %s.\n             A person applies them with `loopbreaker reset %s`\n", strings.Join(o.ConfigPending, "; "), reset)
	}
	if o.Reason != "" {
		fmt.Fprintf(w, "reason:      %s\n", o.Reason)
	}
	fmt.Fprintf(w, "may go on:   %v\n", o.Allowed)
	fmt.Fprintf(w, "iterations:  %d (opened %d times)\n", o.Iterations, o.TotalOpens)
	if !o.LastProgressAt.IsZero() {
		fmt.Fprintf(w, "progress:    last at %s (%s ago)\n", o.LastProgressAt.UTC().Format(time.RFC3339), humanDuration(now.Sub(o.LastProgressAt)))
		if o.LastProgressReason != "" {
			fmt.Fprintf(w, "             %s\n", oneLine(o.LastProgressReason))
		}
	}
	if o.State == lb.Open && o.RetryAt != nil {
		if o.CooldownRemaining > 0 {
			fmt.Fprintf(w, "cooldown:    %s left (until %s)\n", humanDuration(time.Duration(o.CooldownRemaining*float64(time.Second))), o.RetryAt.UTC().Format(time.RFC3339))
		} else {
			fmt.Fprintln(w, "cooldown:    over; the next check takes the probe")
		}
	}
	if o.Probe != nil {
		fmt.Fprintf(w, "probe:       held by %s until %s\n", o.Probe.Caller, o.Probe.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if o.Spend != nil {
		fmt.Fprintf(w, "spend:       %s\n", o.Spend.Summary())
	}
	fmt.Fprintln(w, "\ncounters:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  detector\tcount\twarn at\topens at\tabout")
	tripped := o.Status.Tripped()
	for i, c := range o.Counters {
		warn := "-"
		if c.WarnAt > 0 && c.Threshold > 0 {
			warn = c.Figure(c.WarnAt)
		}
		mark := ""
		switch {
		case i == tripped:
			mark = "  << tripped"
		case c.Threshold > 0 && c.Value >= c.Threshold:
			mark = "  < at its threshold (did not trip)"
		case c.WarnAt > 0 && c.Value >= c.WarnAt && c.Threshold > 0:
			mark = "  < warning"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s%s\n", c.Name, c.Figure(c.Value), warn, c.Limit(), c.Detail, mark)
	}
	tw.Flush()
	if len(o.Transitions) > 0 {
		fmt.Fprintln(w, "\nlast transitions:")
		ts := o.Transitions
		if len(ts) > 5 {
			ts = ts[len(ts)-5:]
		}
		for _, t := range ts {
			fmt.Fprintf(w, "  %s  %s -> %s  %s\n", t.Time.UTC().Format(time.RFC3339), t.From, t.To, oneLine(t.Reason))
		}
	}
	if n := len(o.Guidance); n > 0 {
		fmt.Fprintf(w, "\nlast guidance: %q\n", o.Guidance[n-1].Text)
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
