package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/redisstore"
)

type checkOptions struct {
	common
	start bool
}

// runCheck answers whether the loop may go on: exit 0 to proceed (CLOSED,
// or HALF_OPEN with the warning on stderr), 2 when OPEN, 1 on error.
func runCheck(ctx context.Context, env *Env, args []string) error {
	var o checkOptions
	fs := newFlagSet("check", env)
	o.register(fs, env, true)
	fs.BoolVar(&o.start, "start", false, "this check starts a loop: with auto_reset an OPEN breaker is reset first (Ralph's CB_AUTO_RESET)")
	w, err := o.parseOpenRead(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, onRedis := w.Store.(*redisstore.Store); !onRedis && w.Config.Enabled {
		if err := stateDirUsable(w.StateDir); err != nil {
			return err
		}
	}
	if o.start {
		if err := w.checkNotRunning(); err != nil {
			return err
		}
	}
	if o.start && w.Config.AutoReset && w.Config.Enabled {
		if err := w.writable(); err != nil {
			return err
		}
		st, err := w.Store.Load(ctx, w.Scope)
		if err != nil {
			return err
		}
		if st.State == lb.Open {
			if _, err := w.Apply(ctx, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{By: "auto_reset", Reason: "loop start with auto_reset: true"}}); err != nil {
				return err
			}
			fmt.Fprintln(env.Stderr, "loopbreaker: auto_reset: the OPEN breaker was reset at loop start")
		}
	}
	if o.start && w.Config.Enabled {
		if err := w.saveBaseline(ctx, o.session); err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: no snapshot of the working tree at loop start (%v); the first record compares with HEAD\n", err)
		}
	}
	// A check that changes nothing writes nothing: no state directory
	// appears where a check runs, and a read-only one is fine.
	res, err := w.ApplyReadFirst(ctx, lb.Event{Kind: lb.EventCheck})
	if err != nil {
		return err
	}
	return w.finish(o.json, res.States, res.Decision, nil)
}

// finish prints a decision (text or JSON) and turns it into the exit code.
func (w *workspace) finish(asJSON bool, states []*lb.BreakerState, d lb.Decision, progress *bool) error {
	var st *lb.BreakerState
	if len(states) > 0 {
		st = states[0]
	}
	out := w.output(st, &d)
	out.Progress = progress
	if progress != nil {
		out.ProgressReason = d.ProgressReason.String()
	}
	if asJSON {
		enc := json.NewEncoder(w.env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		msg := describe(out, w.env.Now()) + "\n"
		if out.Allowed && !out.Warning {
			shown(w.env.Stdout, msg)
		} else {
			shown(w.env.Stderr, msg)
		}
	}
	if !out.Allowed {
		return halt()
	}
	return nil
}

// parse parses flags (see parseFlags). No positional arguments are
// accepted.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &usageError{cmd: commandName(fs), msg: fmt.Sprintf("unexpected argument %q (flags go before arguments)", fs.Arg(0))}
	}
	return nil
}
