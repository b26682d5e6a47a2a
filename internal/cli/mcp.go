package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/mcpserver"
)

// runMCP serves the project's breakers over MCP on stdin/stdout until the
// client closes stdin. Its tools only read: resets are for people, not for agents.
// The project is opened again for every call, so the server sees the
// configuration and the states as they are now.
func runMCP(ctx context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("mcp", env)
	o.registerProject(fs, env)
	o.registerSession(fs, env)
	if err := parse(fs, args); err != nil {
		return err
	}
	// Fail at start, with the reason on stderr, rather than at the first call.
	w, err := o.openRead(env)
	if err != nil {
		return err
	}
	w.Close()

	srv, err := mcpserver.New(mcpserver.Options{
		Version: buildVersion(),
		Open: func(context.Context) (*mcpserver.Project, func(), error) {
			w, err := o.openRead(env)
			if err != nil {
				return nil, nil, err
			}
			p := &mcpserver.Project{Config: w.Config, Store: w.Store, Now: env.Now, Session: w.Name}
			return p, func() { w.Close() }, nil
		},
		Report: func(ctx context.Context, session string) (string, error) {
			return mcpReport(ctx, env, o, session)
		},
	})
	if err != nil {
		return err
	}
	err = srv.Run(ctx, mcpserver.NewStreamTransport(env.Stdin, env.Stdout))
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil // the client closed stdin: a normal end
	case ctx.Err() != nil:
		return nil // interrupted (SIGINT/SIGTERM): nothing to save, a read-only server
	}
	return err
}

// mcpReport renders the diagnostic report of a session ("" for the
// server's own) as Markdown, as `loopbreaker report` prints it.
func mcpReport(ctx context.Context, env *Env, o common, session string) (string, error) {
	if strings.ContainsAny(session, "\x00\r\n") {
		return "", fmt.Errorf("session %q: want a session name on one line, e.g. default; list_breakers shows the session:NAME scopes", session)
	}
	if session != "" {
		if err := lb.ValidScope(SessionScope(session)); err != nil {
			return "", fmt.Errorf("session: %v; list_breakers shows the session:NAME scopes", err)
		}
	}
	if session != "" {
		o.session = session
	}
	w, err := o.openRead(env)
	if err != nil {
		return "", err
	}
	defer w.Close()
	r, err := w.report(ctx, "")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := r.Markdown(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}
