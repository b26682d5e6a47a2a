package cli

import (
	"context"
	"strings"

	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/report"
)

type reportOptions struct {
	common
	expects string
}

// runReport prints the diagnostic report (the "debug now" pull
// cord) at any moment, in Markdown or, with --json, as the same data.
// It changes nothing.
func runReport(ctx context.Context, env *Env, args []string) error {
	var o reportOptions
	fs := newFlagSet("report", env)
	o.register(fs, env, true)
	fs.StringVar(&o.expects, "expects", "", "what the failing test expects, when you know it (shown as such)")
	w, err := o.parseOpenRead(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := w.report(ctx, o.expects)
	if err != nil {
		return err
	}
	if o.json {
		return r.JSON(env.Stdout)
	}
	return shownBy(env.Stdout, r.Markdown)
}

// report builds the diagnostic report of the session's breaker.
func (w *workspace) report(ctx context.Context, expects string) (report.Report, error) {
	st, err := w.Store.Load(ctx, w.Scope)
	if err != nil {
		return report.Report{}, err
	}
	// The report's commands take the session's name, not its scope; the
	// default session needs no --session at all.
	session := strings.TrimPrefix(w.Scope, "session:")
	if session == "default" {
		session = ""
	}
	opts := report.Options{
		Now: w.env.Now(), Session: session, Program: "loopbreaker", Expectation: expects,
	}
	if st.Slice != "" {
		if repo, err := gitrepo.Open(ctx, w.Project); err == nil {
			if cps, err := repo.Checkpoints(ctx); err == nil {
				for _, cp := range cps {
					if cp.Slice == st.Slice {
						opts.CheckpointTag = cp.Tag
					}
				}
			}
		}
	}
	return report.Build(st, w.Service.Engine.Status(st, w.env.Now()), opts), nil
}
