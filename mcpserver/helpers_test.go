package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/testclock"
	"github.com/loopbreaker/loopbreaker/scoped"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// fixture is a real file store in a temporary directory, written through
// the real breaker service and scoped manager, read by the real server
// through the SDK's client over in-memory transports.
type fixture struct {
	t     *testing.T
	dir   string
	clock *testclock.Clock
	cfg   lb.Config
	store *filestore.Store
	cs    *mcp.ClientSession
	// reports records the sessions get_report was asked for.
	reports []string
}

// testConfig: a stakes:high breaker that trips at 3 failures in 24h and
// cools down for an hour (the scoped default), a template of 5 per hour.
func testConfig() lb.Config {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "stakes:high", FailureThreshold: 3, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true},
	}
	return cfg
}

func newFixture(t *testing.T, cfg lb.Config) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), ".loopbreaker"), clock: testclock.New(t0), cfg: cfg}
	st, err := filestore.Open(f.dir, filestore.Options{Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.store = st
	t.Cleanup(func() { st.Close() })

	srv, err := New(Options{
		Version: "test",
		Open: func(context.Context) (*Project, func(), error) {
			return &Project{Config: f.cfg, Store: f.store, Now: f.clock.Now, Session: "default"}, nil, nil
		},
		Report: func(_ context.Context, session string) (string, error) {
			f.reports = append(f.reports, session)
			return "# report of " + session, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st1, st2 := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.cs = cs
	return f
}

func ptr[T any](v T) *T { return &v }

// stall records n iterations without progress in a session's breaker, the
// way `loopbreaker record` does.
func (f *fixture) stall(session string, n int) lb.Decision {
	f.t.Helper()
	svc := &breaker.Service{Store: f.store, Engine: &breaker.Engine{Config: f.cfg, Now: f.clock.Now}}
	var d lb.Decision
	for range n {
		res, err := svc.Apply(context.Background(), []string{"session:" + session}, lb.Event{
			Kind: lb.EventIteration, Caller: session,
			Iteration: &lb.Iteration{FilesChanged: ptr(0), Summary: "tried again"},
		})
		if err != nil {
			f.t.Fatal(err)
		}
		d = res.Decision
	}
	return d
}

// fail checks c and reviews the decision as failed, n times, the way
// `loopbreaker serve` does; it returns the decision ids.
func (f *fixture) fail(c scoped.Context, n int) []string {
	f.t.Helper()
	ctx := context.Background()
	m, err := breakerserver.Open(ctx, f.store, f.cfg, breakerserver.Options{Now: f.clock.Now, Shared: true})
	if err != nil {
		f.t.Fatal(err)
	}
	defer m.Close()
	var ids []string
	for range n {
		d, err := m.Check(ctx, c)
		if err != nil {
			f.t.Fatal(err)
		}
		if _, err := m.Outcome(ctx, c, lb.Outcome{DecisionID: d.DecisionID, Result: lb.OutcomeFailure}); err != nil {
			f.t.Fatal(err)
		}
		ids = append(ids, d.DecisionID)
	}
	return ids
}

// call calls a tool and fails the test on a protocol error.
func (f *fixture) call(name string, args any) *mcp.CallToolResult {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

// state calls get_circuit_state and decodes its structured output.
func (f *fixture) state(args any) (StateOutput, string) {
	f.t.Helper()
	var out StateOutput
	return out, f.decode(f.call(ToolCircuitState, args), &out)
}

// list calls list_breakers and decodes its structured output.
func (f *fixture) list(args any) (ListOutput, string) {
	f.t.Helper()
	var out ListOutput
	return out, f.decode(f.call(ToolListBreakers, args), &out)
}

// decode requires a successful result and returns its text content.
func (f *fixture) decode(res *mcp.CallToolResult, out any) string {
	f.t.Helper()
	txt := textOf(res)
	if res.IsError {
		f.t.Fatalf("tool error: %s", txt)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		f.t.Fatalf("structured content %s: %v", raw, err)
	}
	return txt
}

func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%T", res.Content[0])
}

// snapshot fingerprints every file under dir (content and modification
// time), to prove that reading changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%x %d", sha256.Sum256(b), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
