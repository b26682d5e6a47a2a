package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// session drives the real engine with a fake clock: states in these tests
// are only ever produced by events.
type session struct {
	t    *testing.T
	now  time.Time
	e    *breaker.Engine
	s    *lb.BreakerState
	last lb.Decision
}

func newSession(t *testing.T) *session {
	t.Helper()
	ss := &session{t: t, now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), s: lb.NewBreakerState("session:s1")}
	ss.e = &breaker.Engine{Config: lb.Defaults(), Now: func() time.Time { return ss.now }}
	return ss
}

func (ss *session) apply(ev lb.Event) lb.Decision {
	ss.t.Helper()
	ss.now = ss.now.Add(time.Minute)
	a, err := ss.e.Apply(ss.s, &ev)
	if err != nil {
		ss.t.Fatalf("apply %s: %v", ev.Kind, err)
	}
	ss.last = a.Decision
	return a.Decision
}

func (ss *session) iterate(it lb.Iteration) lb.Decision {
	ss.t.Helper()
	return ss.apply(lb.Event{Kind: lb.EventIteration, Caller: "loop", Iteration: &it})
}

func (ss *session) violate(v lb.ScopeViolation) lb.Decision {
	ss.t.Helper()
	return ss.apply(lb.Event{Kind: lb.EventScopeViolation, Caller: "loop", Violation: &v})
}

func (ss *session) reset(r lb.Reset) lb.Decision {
	ss.t.Helper()
	return ss.apply(lb.Event{Kind: lb.EventReset, Caller: "alice", Reset: &r})
}

func (ss *session) toolCall(tc lb.ToolCall) lb.Decision {
	ss.t.Helper()
	return ss.apply(lb.Event{Kind: lb.EventToolCall, Caller: "loop", ToolCall: &tc})
}

// report builds the report of the session as it is now.
func (ss *session) report(opts Options) Report {
	ss.t.Helper()
	if opts.Now.IsZero() {
		opts.Now = ss.now
	}
	return Build(ss.s, ss.e.Status(ss.s, ss.now), opts)
}

func intp(v int) *int     { return &v }
func i64p(v int64) *int64 { return &v }

// failing is an iteration of slice s1 that edited files and failed test
// with msg (reported both as the test's message and as the error).
func failing(test, msg string, files ...string) lb.Iteration {
	return lb.Iteration{
		Slice: "s1", Files: files, FilesChanged: intp(len(files)),
		Tests:  []lb.TestResult{{Name: test, Message: msg}},
		Errors: []lb.ErrorText{{Raw: msg}},
	}
}

func markdown(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Markdown(&b); err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run `go test ./report -run %s -update` to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("Markdown differs from %s (rerun with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// shape is what a Markdown document looks like structurally.
type shape struct {
	headings []string
	// fences holds the content of each fenced code block.
	fences []string
	// badRows are table rows whose cell count differs from their header's.
	badRows []string
	// strayFences are lines outside code blocks that start with a fence.
	strayFences []string
}

var fenceRE = regexp.MustCompile("^(`{3,})([^`]*)$")

// parseShape reads md as CommonMark/GFM would for the constructs the
// report uses: fenced blocks (closed only by a fence at least as long),
// ATX headings and pipe tables.
func parseShape(md string) shape {
	var sh shape
	lines := strings.Split(md, "\n")
	tableCols := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			n := len(m[1])
			var body []string
			closed := false
			for i++; i < len(lines); i++ {
				if c := fenceRE.FindStringSubmatch(lines[i]); c != nil && len(c[1]) >= n && strings.TrimSpace(c[2]) == "" {
					closed = true
					break
				}
				body = append(body, lines[i])
			}
			if !closed {
				sh.strayFences = append(sh.strayFences, "unclosed fence: "+clip(l, 40))
			}
			sh.fences = append(sh.fences, strings.Join(body, "\n")+"\n")
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") || strings.HasPrefix(strings.TrimLeft(l, " "), "~~~") {
			sh.strayFences = append(sh.strayFences, l)
		}
		if strings.HasPrefix(l, "#") {
			sh.headings = append(sh.headings, l)
		}
		if strings.HasPrefix(l, "|") {
			cols := cells(l)
			if tableCols == 0 {
				tableCols = cols
			} else if cols != tableCols {
				sh.badRows = append(sh.badRows, l)
			}
		} else {
			tableCols = 0
		}
	}
	return sh
}

// cells counts a table row's cells: unescaped pipes minus one.
func cells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' {
			i++
			continue
		}
		if row[i] == '|' {
			n++
		}
	}
	return n - 1
}
