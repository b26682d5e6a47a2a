// Package mcpserver serves loopbreaker's breakers to agents over the Model
// Context Protocol (the official Go SDK). Its tools only read: agents
// may see the circuit state, resets are left to people, so
// there is no reset tool, and no tool takes a probe or records anything.
//
// Tools:
//   - get_circuit_state: may this scope, or this context, go on now; every
//     matching breaker with its state, counts and cooldown.
//   - list_breakers: every breaker with its state and a one-line summary.
//   - get_report: a session's diagnostic report in Markdown (when the
//     caller provides reports).
package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names.
const (
	ToolCircuitState = "get_circuit_state"
	ToolListBreakers = "list_breakers"
	ToolReport       = "get_report"
)

// Options configure a server.
type Options struct {
	// Version is the server's version, shown to clients.
	Version string
	// Open opens the project's breakers for one tool call; close, when not
	// nil, releases them after the call. Opening per call lets a
	// long-running server see the configuration as it is now.
	Open func(ctx context.Context) (p *Project, close func(), err error)
	// Report renders the diagnostic report of a session ("" for the
	// server's own) as Markdown. Nil leaves get_report out.
	Report func(ctx context.Context, session string) (string, error)
}

// ReportInput is the input of get_report.
type ReportInput struct {
	Session string `json:"session,omitempty" jsonschema:"the session whose report to show (default: the server's session, set by loopbreaker mcp --session)"`
}

// readOnly marks a tool that changes nothing and may be called again and
// again with the same effect: none.
func readOnly(title string) *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// New returns the MCP server with loopbreaker's read-only tools.
func New(opts Options) (*mcp.Server, error) {
	if opts.Open == nil {
		return nil, errors.New("mcpserver: Options.Open is required")
	}
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "loopbreaker", Title: "loopbreaker circuit breakers", Version: version},
		&mcp.ServerOptions{
			Instructions: "loopbreaker halts agents that are stuck. Call get_circuit_state before risky or repeated work: " +
				"when allowed is false, stop and tell the user why (the summary says it). These tools only read; " +
				"resets are for people.",
			// No logging capability: nothing is logged to clients.
			Capabilities: &mcp.ServerCapabilities{},
		})

	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolCircuitState,
		Annotations: readOnly("Circuit breaker state"),
		Description: "May this work go on now? Give a scope (e.g. session:default, agent:planner, stakes:high, global), " +
			"or a context {category, stakes, agent_id, tags, session, slice} to see every breaker that matches it " +
			"(the most restrictive decides), or nothing for this server's session. Returns allowed, and for each " +
			"breaker its state, reason, failures against the threshold, detector counters, recent failed decision ids " +
			"and retry_at (when the cooldown ends). A scope nothing has used reads CLOSED with known=false. Read-only: " +
			"it never takes the half-open probe and cannot reset.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in StateInput) (*mcp.CallToolResult, StateOutput, error) {
		var out StateOutput
		err := withProject(ctx, opts, func(p *Project) (err error) {
			out, err = p.CircuitState(ctx, in)
			return err
		})
		if err != nil {
			return nil, StateOutput{}, err
		}
		return text(stateText(out)), out, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolListBreakers,
		Annotations: readOnly("List circuit breakers"),
		Description: "Every breaker (configured ones and every one in use), sorted by scope, with its state, " +
			"failures against the threshold, retry_at and a one-line summary; skip_closed leaves CLOSED ones out. Read-only.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
		var out ListOutput
		err := withProject(ctx, opts, func(p *Project) (err error) {
			out, err = p.List(ctx, in)
			return err
		})
		if err != nil {
			return nil, ListOutput{}, err
		}
		return text(listText(out, in.SkipClosed)), out, nil
	})

	if opts.Report != nil {
		mcp.AddTool(s, &mcp.Tool{
			Name:        ToolReport,
			Annotations: readOnly("Diagnostic report"),
			Description: "The diagnostic report of a session's breaker in Markdown: why it halted, what was tried, " +
				"the likely cause and how to recover. Read-only.",
		}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReportInput) (*mcp.CallToolResult, any, error) {
			md, err := opts.Report(ctx, in.Session)
			if err != nil {
				return nil, nil, err
			}
			return text(md), nil, nil
		})
	}
	return s, nil
}

// withProject opens the project for one call and releases it after.
func withProject(ctx context.Context, opts Options, fn func(*Project) error) error {
	p, closeFn, err := opts.Open(ctx)
	if err != nil {
		return fmt.Errorf("cannot open the project's breakers: %w", err)
	}
	if closeFn != nil {
		defer closeFn()
	}
	return fn(p)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
