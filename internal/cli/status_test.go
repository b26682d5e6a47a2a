package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
)

// serverScopes writes n agent breakers (as `serve` makes them) and one
// session breaker into project's state directory.
func serverScopes(t testing.TB, project string, n int) {
	t.Helper()
	st, err := filestore.Open(testStateDir(project), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	touch := func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		out := make([][]lb.JournalEntry, len(states))
		for i, s := range states {
			s.Iterations++
			out[i] = []lb.JournalEntry{{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck, Time: time.Now()}}}
		}
		return out, nil
	}
	const batch = 500
	for from := 0; from < n; from += batch {
		var scopes []string
		for i := from; i < min(from+batch, n); i++ {
			scopes = append(scopes, fmt.Sprintf("agent:worker-%05d", i))
		}
		if err := st.Update(context.Background(), scopes, touch); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Update(context.Background(), []string{"session:claude"}, touch); err != nil {
		t.Fatal(err)
	}
}

func runStatusIn(t testing.TB, project string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: project, Environ: []string{"HOME=" + project, "XDG_STATE_HOME=" + stateHome(project)}}
	if err := Run(context.Background(), []string{"status", "-C", project}, env); err != nil {
		t.Fatalf("status: %v\n%s", err, errb.String())
	}
	return out.String()
}

// With thousands of breakers made by a server, status summarises them by
// kind instead of printing every one on one line.
func TestStatusSummarisesManyBreakers(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "loopbreaker.yaml"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serverScopes(t, project, 1500)
	out := runStatusIn(t, project)
	at := strings.Index(out, "other breakers")
	if at < 0 {
		t.Fatalf("status does not mention the other breakers:\n%s", out)
	}
	others := out[strings.LastIndex(out[:at], "\n")+1:]
	if len(others) > 600 {
		t.Fatalf("the other breakers take %d bytes, want a summary:\n%.600s", len(others), others)
	}
	for _, want := range []string{"1,501 other breakers", "agent: 1,500", "session:claude (CLOSED)"} {
		if !strings.Contains(others, want) {
			t.Errorf("summary lacks %q:\n%s", want, others)
		}
	}
}

// BenchmarkStatus10kServerScopes: `loopbreaker status` in a project whose
// server made 10,000 agent breakers (docs/benchmarks.md).
func BenchmarkStatus10kServerScopes(b *testing.B) {
	project := b.TempDir()
	if err := os.WriteFile(filepath.Join(project, "loopbreaker.yaml"), []byte("{}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	serverScopes(b, project, 10_000)
	for b.Loop() {
		runStatusIn(b, project)
	}
}
