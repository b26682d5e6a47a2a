package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/termsafe"
)

// watchOptions are the flags of `loopbreaker watch`.
type watchOptions struct {
	common
	interval time.Duration
	plain    bool
}

// runWatch shows every breaker of the project, live: its state, the
// counters that moved against their thresholds, the last tool calls, the
// spend and the time to the cooldown's end. On a terminal it redraws in
// place until q; otherwise (or with --plain) it prints one snapshot, or
// one every --interval until interrupted.
func runWatch(ctx context.Context, env *Env, args []string) error {
	var o watchOptions
	fs := newFlagSet("watch", env)
	o.registerProject(fs, env)
	o.registerSession(fs, env)
	fs.DurationVar(&o.interval, "interval", 0, "redraw every `duration` (default on a terminal: 1s; elsewhere: print one snapshot, or one per interval)")
	fs.BoolVar(&o.plain, "plain", false, "print plain text even on a terminal")
	w, err := o.parseOpenRead(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	if o.interval < 0 {
		return usagef("--interval must be positive, got %s", o.interval)
	}
	snapshot := func() []watchView { return w.watchViews(ctx) }
	if !o.plain && isTerminal(env.Stdout) && isTerminal(env.Stdin) {
		interval := o.interval
		if interval == 0 {
			interval = time.Second
		}
		m := watchModel{snapshot: snapshot, now: env.Now, interval: interval, width: 80}
		m.views = snapshot()
		_, err := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(env.Stdin), tea.WithOutput(env.Stdout), tea.WithAltScreen()).Run()
		if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "context canceled") {
			return err
		}
		return nil
	}
	print := func() error {
		_, err := io.WriteString(env.Stdout, renderWatch(snapshot(), env.Now(), 80, plainStyle))
		return err
	}
	if err := print(); err != nil || o.interval == 0 {
		return err
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if _, err := io.WriteString(env.Stdout, "\n"); err != nil {
				return err
			}
			if err := print(); err != nil {
				return err
			}
		}
	}
}

// watchView is one breaker as watch shows it.
type watchView struct {
	status lb.Status
	// tools are the names of the last tool calls, oldest first.
	tools []string
	// hourCalls counts the model calls of the last hour; hourCallsAtLeast:
	// the state keeps no more of them (there may have been more).
	hourCalls        int
	hourCallsAtLeast bool
	err              error
}

// maxWatchReason is how much of a reason watch shows, over a few lines.
const maxWatchReason = 400

// maxWatchTools is how many of the last tool calls a breaker shows.
const maxWatchTools = 6

// watchViews reads every breaker of the project, sessions first.
func (w *workspace) watchViews(ctx context.Context) []watchView {
	scopes, err := w.Store.Scopes(ctx)
	if err != nil {
		return []watchView{{status: lb.Status{Scope: "(the store)"}, err: err}}
	}
	slices.SortStableFunc(scopes, func(a, b string) int {
		if c := cmpBool(!strings.HasPrefix(a, "session:"), !strings.HasPrefix(b, "session:")); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	now := w.env.Now()
	views := make([]watchView, 0, len(scopes))
	for _, sc := range scopes {
		st, err := w.Store.Load(ctx, sc)
		if err != nil {
			views = append(views, watchView{status: lb.Status{Scope: sc}, err: err})
			continue
		}
		eng := w.Session.Engine(sc)
		v := watchView{status: eng.Status(st, now), hourCalls: st.Spend.CallsInHour(now)}
		v.hourCallsAtLeast = v.hourCalls >= breaker.HourCallsKept(eng.Config.Budget.CallsPerHour)
		for _, t := range st.Tools[max(0, len(st.Tools)-maxWatchTools):] {
			name, _, _ := strings.Cut(t.Key, "\x00")
			if t.ErrorSig != "" {
				name += "!"
			}
			v.tools = append(v.tools, name)
		}
		views = append(views, v)
	}
	return views
}

// watchStyle colours a state word (plain text leaves it as it is).
type watchStyle func(state lb.State, text string) string

func plainStyle(_ lb.State, text string) string { return text }

// renderWatch writes the views in lines of at most width columns.
func renderWatch(views []watchView, now time.Time, width int, style watchStyle) string {
	var b strings.Builder
	line := func(indent, text string) {
		b.WriteString(clipLine(indent+termsafe.String(text), width))
		b.WriteByte('\n')
	}
	line("", fmt.Sprintf("loopbreaker watch: %s at %s", plural(len(views), "breaker"), now.UTC().Format("2006-01-02 15:04:05 UTC")))
	if len(views) == 0 {
		line("", "no breaker yet: it appears with the first check, record or hook call")
	}
	for _, v := range views {
		b.WriteByte('\n')
		st := v.status
		if v.err != nil {
			line("", st.Scope+"  unreadable: "+v.err.Error())
			continue
		}
		state := string(st.State)
		if st.Mode != "" {
			state += " (" + string(st.Mode) + ")"
		}
		head := st.Scope + "  " + state
		switch {
		case st.State == lb.Open && st.CooldownRemaining > 0:
			head += "  cooldown ends in " + humanDuration(time.Duration(st.CooldownRemaining*float64(time.Second)))
		case st.State == lb.Open:
			head += "  cooldown over: the next check takes the probe"
		}
		if !st.Enabled {
			head += "  (disabled)"
		}
		// The state word is coloured after clipping, so escapes never
		// count against the width.
		clipped := clipLine(termsafe.String(head), width)
		b.WriteString(strings.Replace(clipped, state, style(st.State, state), 1))
		b.WriteByte('\n')
		if st.Reason != "" {
			wrapItems(&b, "  why: ", strings.Fields(termsafe.String(clipLine(st.Reason, maxWatchReason))), "", width)
		}
		line("  ", fmt.Sprintf("iterations %d, opened %s", st.Iterations, plural(st.TotalOpens, "time")))
		var moved []string
		tripped := st.Tripped()
		for i, c := range st.Counters {
			if c.Value > 0 && c.Threshold > 0 {
				item := fmt.Sprintf("%s %s/%s", c.Label(), c.Figure(c.Value), c.Figure(c.Threshold))
				if i == tripped {
					item += " TRIPPED"
				}
				moved = append(moved, item)
			}
		}
		if len(moved) == 0 {
			moved = []string{"all at 0"}
		}
		wrapItems(&b, "  counters: ", moved, ",", width)
		if st.State == lb.Open {
			wrapItems(&b, "  next: ", strings.Fields(nextSteps(st.Scope)), "", width)
		}
		if len(v.tools) > 0 {
			line("  ", "last calls: "+strings.Join(v.tools, ", ")+" (! failed)")
		}
		if st.Spend != nil {
			wrapItems(&b, "  spend: ", strings.Fields(st.Spend.Summary()), "", width)
			calls := fmt.Sprintf("calls in the last hour: %d", v.hourCalls)
			if v.hourCallsAtLeast {
				calls += " or more"
			}
			line("  ", calls)
		}
	}
	return b.String()
}

// nextSteps is what to do about an OPEN breaker of scope, as commands.
func nextSteps(scope string) string {
	which := "--scope " + scope
	if name, ok := strings.CutPrefix(scope, "session:"); ok {
		which = "--session " + shell.Quote(name)
	}
	return fmt.Sprintf("loopbreaker report %s says why; loopbreaker reset %s --guidance \"what to do differently\" lets the agent go on", which, which)
}

// wrapItems writes items after lead, each but the last followed by sep,
// in lines of at most width columns, continuing under the first item.
func wrapItems(b *strings.Builder, lead string, items []string, itemSep string, width int) {
	pad := strings.Repeat(" ", len(lead))
	cur := lead
	for i, it := range items {
		sep := ""
		if i < len(items)-1 {
			sep = itemSep
		}
		if cur != lead && cur != pad && len(cur)+1+len(it)+len(sep) > width {
			b.WriteString(strings.TrimRight(cur, " ") + "\n")
			cur = pad
		}
		if cur != lead && cur != pad {
			cur += " "
		}
		cur += it + sep
	}
	b.WriteString(clipLine(cur, width) + "\n")
}

// clipLine cuts a line to width runes, marking the cut.
func clipLine(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

// watchModel is the live view (Bubble Tea): it reloads the views every
// interval and redraws them at the terminal's width.
type watchModel struct {
	snapshot func() []watchView
	now      func() time.Time
	interval time.Duration
	views    []watchView
	width    int
}

type watchTick struct{}

func (m watchModel) Init() tea.Cmd {
	return tea.Tick(m.interval, func(time.Time) tea.Msg { return watchTick{} })
}

func (m watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width = max(40, msg.Width)
	case watchTick:
		m.views = m.snapshot()
		return m, m.Init()
	}
	return m, nil
}

func (m watchModel) View() string {
	return renderWatch(m.views, m.now(), m.width, colourStyle) + "\n" + clipLine("q quits; the view refreshes every "+m.interval.String(), m.width)
}

// colourStyle colours a state word: red OPEN, yellow HALF_OPEN, green
// CLOSED.
func colourStyle(state lb.State, text string) string {
	colour := map[lb.State]string{lb.Open: "1", lb.HalfOpen: "3", lb.Closed: "2"}[state]
	if colour == "" {
		return text
	}
	return lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color(colour)).Render(text)
}
