// Package replay runs recorded agent sessions (package transcript) through
// the breaker's engine in memory, with a given configuration, and says
// where each would have been warned and halted. Nothing is written: the
// breaker state lives for one replay.
//
// Each tool call is turned into the record a live hook makes of it
// (hook.BuildToolCall), each turn end into an iteration with the files
// the turn's edits named, as the Stop hook records one; events of
// loopbreaker's own journal are applied as recorded. Calibrate compares
// the halts of many settings against labelled outcomes.
package replay

import (
	"slices"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/scoped"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// Mark is where a detector spoke: after the Step-th tool call (counted
// from 1; 0 is before any), which detector, and why.
type Mark struct {
	Step    int  `json:"step"`
	TurnEnd bool `json:"turn_end,omitempty"`
	// Turn is the turn (from 1) the mark fell in; a journal of iterations
	// has turns and no tool calls.
	Turn     int    `json:"turn"`
	Detector string `json:"detector"`
	Reason   string `json:"reason"`
}

// Result is the replay of one session.
type Result struct {
	Session    string `json:"session"`
	Path       string `json:"path"`
	Format     string `json:"format"`
	ExitStatus string `json:"exit_status,omitempty"`
	// Steps counts the tool calls, Turns the turn ends.
	Steps int `json:"steps"`
	Turns int `json:"turns"`
	// Warn is the first warning, Halt the first halt (OPEN); nil when
	// none came.
	Warn *Mark `json:"warn,omitempty"`
	Halt *Mark `json:"halt,omitempty"`
	// StepsAfterHalt are the tool calls the halt would have saved.
	StepsAfterHalt int `json:"steps_after_halt"`
	// LastEdit is the step of the session's last edit (0: none).
	LastEdit int `json:"last_edit,omitempty"`
	// Streak5 is the step at which one call was first made for the 5th
	// time in a row with the same result, or one edit for the 5th time in
	// a row (0: never).
	Streak5 int `json:"streak5,omitempty"`
	// Spend is what the session's model calls consumed up to the halt (or
	// the end), when the session records usage.
	Spend *lb.Spend `json:"spend,omitempty"`
}

// Prepared is a session turned into breaker events once, to be replayed
// under many configurations.
type Prepared struct {
	Session  *transcript.Session
	events   []lb.Event
	stepAt   []int // tool calls made up to and including event i
	turnEnd  []bool
	turnAt   []int // the turn (from 1) event i belongs to
	steps    int
	turns    int
	lastEdit int
	streak5  int
}

// epoch is the clock of replays: events are one second apart, so that
// nothing time-driven (cooldowns, windows) depends on when the session
// was recorded or replayed.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Prepare turns s into events.
func Prepare(s *transcript.Session) *Prepared {
	p := &Prepared{Session: s}
	var turnFiles []string
	turnEdits := 0
	var last lb.ToolCall
	run := 0
	// carried is the usage of a turn recorded as no iteration, spent
	// with the next event.
	var carried *lb.Usage
	withCarried := func(u *lb.Usage) *lb.Usage {
		if carried == nil {
			return u
		}
		c := *carried // a copy: the session's steps stay as read
		carried = nil
		if u != nil {
			c.Add(*u)
		}
		return &c
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		switch {
		case st.Event != nil:
			ev := *st.Event
			if ev.Kind == lb.EventToolCall {
				p.steps++
				if ev.ToolCall != nil && ev.ToolCall.Edit {
					p.lastEdit = p.steps
				}
			}
			if ev.Kind == lb.EventIteration {
				p.turns++
			}
			p.add(ev, ev.Kind == lb.EventIteration)
		case st.Call != nil:
			tc := hook.BuildToolCall(st.Call, "", "")
			tc.Usage = withCarried(st.Usage)
			if st.Edit && tc.Error == nil {
				tc.Edit = true
			}
			p.steps++
			if tc.Edit {
				p.lastEdit = p.steps
				turnEdits++
				for _, f := range tc.Files {
					if !slices.Contains(turnFiles, f) {
						turnFiles = append(turnFiles, f)
					}
				}
			}
			if p.steps > 1 && sameCall(&tc, &last) {
				run++
			} else {
				run = 1
			}
			if run == 5 && p.streak5 == 0 {
				p.streak5 = p.steps
			}
			last = tc
			p.add(lb.Event{Kind: lb.EventToolCall, ToolCall: &tc}, false)
		case st.TurnEnd:
			p.turns++
			if st.Notification && turnEdits == 0 {
				// A turn that answered a background task's
				// notification and changed nothing: the live hook
				// records no iteration for it.
				if st.Usage != nil {
					carried = withCarried(st.Usage)
				}
				continue
			}
			files := turnFiles
			if turnEdits > 0 && len(files) == 0 {
				// Edits by shell commands name no file: one changed.
				files = []string{"(edited by a command)"}
			}
			n := len(files)
			p.add(lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{
				Summary: summary(st.Message), FilesChanged: &n, Files: files, Usage: withCarried(st.Usage),
			}}, true)
			turnFiles, turnEdits = nil, 0
		}
	}
	return p
}

func (p *Prepared) add(ev lb.Event, turnEnd bool) {
	p.events = append(p.events, ev)
	p.stepAt = append(p.stepAt, p.steps)
	p.turnEnd = append(p.turnEnd, turnEnd)
	turn := p.turns + 1 // a tool call falls in the turn under way
	if turnEnd {
		turn = p.turns // p.turns already counts the turn that just ended
	}
	p.turnAt = append(p.turnAt, turn)
}

// Steps counts the tool calls of the session.
func (p *Prepared) Steps() int { return p.steps }

// sameCall reports whether tc repeats last: the same call with the same
// result, or the same edit made again, whatever the file now holds (as
// the tool_repeat detector counts them).
func sameCall(tc, last *lb.ToolCall) bool {
	if tc.Tool != last.Tool || tc.ArgsHash != last.ArgsHash || errSig(*tc) != errSig(*last) {
		return false
	}
	return tc.ResultHash == last.ResultHash || tc.Edit && last.Edit
}

func errSig(tc lb.ToolCall) string {
	if tc.Error == nil {
		return ""
	}
	return tc.Error.Signature
}

func summary(msg string) string {
	if len(msg) > 200 {
		cut := 200
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		return msg[:cut] + "…"
	}
	return msg
}

// Run replays the session under cfg, as the session's breaker of a hook
// would see it, and stops at the first halt.
func (p *Prepared) Run(cfg lb.Config) Result {
	s := p.Session
	r := Result{Session: s.ID, Path: s.Path, Format: string(s.Format), ExitStatus: s.ExitStatus,
		Steps: p.steps, Turns: p.turns, LastEdit: p.lastEdit, Streak5: p.streak5}
	if !cfg.Enabled {
		return r
	}
	if s.Format != transcript.FormatLoopbreaker {
		// Replayed events are a second apart, not at their real pace: a
		// rate per hour means nothing on that clock.
		cfg.Budget.CallsPerHour = 0
	}
	scope := scoped.SessionScope(s.ID)
	var now time.Time
	eng := Engine(cfg, s.ID, func() time.Time { return now })
	st := lb.NewBreakerState(scope)
	for i := range p.events {
		ev := p.events[i] // a copy: the prepared events serve every run
		if s.Format != transcript.FormatLoopbreaker || ev.Time.IsZero() {
			ev.Time = epoch.Add(time.Duration(i) * time.Second)
		}
		now = ev.Time
		ev.Caller = "replay"
		a, err := eng.Apply(st, &ev)
		if err != nil {
			// A broken invariant halts a live breaker too (fails closed).
			r.Halt = &Mark{Step: p.stepAt[i], TurnEnd: p.turnEnd[i], Turn: p.turnAt[i], Detector: "error", Reason: err.Error()}
			break
		}
		d := a.Decision
		if d.Warning && r.Warn == nil {
			r.Warn = &Mark{Step: p.stepAt[i], TurnEnd: p.turnEnd[i], Turn: p.turnAt[i], Detector: d.Detector, Reason: d.Reason}
		}
		if !d.Allowed && d.State == lb.Open {
			r.Halt = &Mark{Step: p.stepAt[i], TurnEnd: p.turnEnd[i], Turn: p.turnAt[i], Detector: d.Detector, Reason: d.Reason}
			break
		}
	}
	if r.Halt != nil {
		r.StepsAfterHalt = p.steps - r.Halt.Step
	}
	if st.Spend != nil {
		sp := *st.Spend
		sp.HourCalls = nil
		r.Spend = &sp
	}
	return r
}

// Engine is the engine a replay of session runs under cfg: the one of the
// session's breaker, with the settings a hook of that session uses (see
// scoped.Resolve).
func Engine(cfg lb.Config, session string, now func() time.Time) *breaker.Engine {
	return scoped.EngineFor(cfg, scoped.SessionScope(session), now)
}

// Run replays one session under cfg.
func Run(s *transcript.Session, cfg lb.Config) Result { return Prepare(s).Run(cfg) }
