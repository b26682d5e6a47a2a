package breakerserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// crash abandons the manager as a killed process would: no final
// checkpoint, the log left as it is. (Its idle goroutines are left
// behind; with hour-long checkpoints they never write again.)
func (e *env) crash() {
	e.m = nil
	e.store = nil
}

// reopen starts a new manager (and store) on the same directory.
func (e *env) reopen() {
	e.t.Helper()
	e.open()
}

func (e *env) storedFailures(scope string) []lb.Failure {
	e.t.Helper()
	st, err := e.store.Load(context.Background(), scope)
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Failures
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	names, err := walSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A crash before any checkpoint: the acknowledged changes are only in the
// log, and the next start puts them in the store.
func TestWALRecoversAfterCrash(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	bob := scoped.Context{AgentID: "bob"}
	e.fail(bob, 3)
	e.fail(scoped.Context{AgentID: "carol"}, 1)
	if n := len(e.storedFailures("agent:bob")); n != 0 {
		t.Fatalf("the store has %d failures before any checkpoint; the test wants them only in the log", n)
	}
	if len(segments(t, e.walDir())) == 0 {
		t.Fatal("no write-ahead log segment")
	}
	e.crash()
	e.reopen()
	if d := e.check(bob); d.Allowed || d.State != lb.Open || d.Scope != "agent:bob" {
		t.Fatalf("after the crash: %+v", d)
	}
	if n := len(e.storedFailures("agent:bob")); n != 3 {
		t.Fatalf("recovery put %d of bob's failures in the store, want 3", n)
	}
	if n := len(e.storedFailures("agent:carol")); n != 1 {
		t.Fatalf("carol: %d failures, want 1", n)
	}
	if n := len(e.storedFailures("global")); n != 4 {
		t.Fatalf("global: %d failures, want 4", n)
	}
	if segs := segments(t, e.walDir()); len(segs) != 0 {
		t.Fatalf("the replayed log is still there: %v", segs)
	}
}

// A crash after a checkpoint but before its log was removed: what the
// store already holds is not applied twice; what came after is.
func TestWALCrashAfterCheckpointAppliesOnce(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	bob := scoped.Context{AgentID: "bob"}
	e.fail(bob, 2)
	saved := map[string][]byte{}
	for _, n := range segments(t, e.walDir()) {
		data, err := os.ReadFile(filepath.Join(e.walDir(), n))
		if err != nil {
			t.Fatal(err)
		}
		saved[n] = data
	}
	e.checkpoint()
	if segs := segments(t, e.walDir()); len(segs) != 0 {
		t.Fatalf("a checkpoint leaves the checkpointed log behind: %v", segs)
	}
	// Put the checkpointed log back, as if the process died right after
	// the checkpoint, then add one more change to it.
	for n, data := range saved {
		if err := os.WriteFile(filepath.Join(e.walDir(), n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.fail(scoped.Context{AgentID: "bob", Stakes: "low"}, 1)
	e.crash()
	e.reopen()
	if n := len(e.storedFailures("agent:bob")); n != 3 {
		t.Fatalf("after recovery bob has %d failures, want 3 (2 checkpointed, 1 replayed)", n)
	}
	if d := e.check(bob); d.Allowed {
		t.Fatalf("3 failures open agent:bob: %+v", d)
	}
}

// A last line cut short by the crash is skipped, the rest replayed.
func TestWALTornLastLine(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	e.fail(scoped.Context{AgentID: "bob"}, 2)
	segs := segments(t, e.walDir())
	f, err := os.OpenFile(filepath.Join(e.walDir(), segs[len(segs)-1]), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"lsn":99,"scope":"agent:bob","seq":1,"entries":[{"ty`)
	f.Close()
	e.crash()
	e.reopen()
	if n := len(e.storedFailures("agent:bob")); n != 2 {
		t.Fatalf("bob has %d failures, want 2", n)
	}
}

// Another process wrote the scope after the crashed server's last change:
// both are kept.
func TestWALCrashWithForeignWrite(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	s1 := scoped.Context{Session: "loop1"}
	e.fail(s1, 1)
	cliFailure(t, e.store, e.m.Policy().Engine("session:loop1"), "session:loop1", "cli-1")
	e.crash()
	e.reopen()
	fs := e.storedFailures("session:loop1")
	if len(fs) != 2 {
		t.Fatalf("session has %d failures, want the server's and the CLI's: %+v", len(fs), fs)
	}
}

// A checkpoint the store refuses: the log keeps the changes, decisions
// stop until a checkpoint succeeds, then everything is in the store.
func TestWALCheckpointFailure(t *testing.T) {
	e := newEnv(t, withWAL, testConfig())
	e.close()
	st, err := filestore.Open(e.dir, filestore.Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	fs := &failingStore{Store: st}
	ctx := context.Background()
	m, err := Open(ctx, fs, e.cfg, e.options(Options{Now: e.clock.Now}))
	if err != nil {
		t.Fatal(err)
	}
	e.m, e.store = m, st
	bob := scoped.Context{AgentID: "bob"}
	e.fail(bob, 1) // durable in the log
	fs.broken.Store(true)
	if err := m.b.(*cache).flush(ctx); err == nil {
		t.Fatal("the checkpoint did not fail")
	}
	if _, err := m.Check(ctx, bob); err == nil {
		t.Fatal("decisions go on while checkpoints fail")
	}
	fs.broken.Store(false)
	e.checkpoint()
	if err := m.Health(); err != nil {
		t.Fatalf("Health after a good checkpoint: %v", err)
	}
	if n := len(e.storedFailures("agent:bob")); n != 1 {
		t.Fatalf("stored %d failures, want 1", n)
	}
}

// A log record is written by hand as encoding/json would write it (the
// next start reads it with encoding/json).
func TestWALRecordMatchesEncodingJSON(t *testing.T) {
	now := t0
	for _, r := range []walRecord{
		{},
		{LSN: 12, Scope: `agent:<bob> "x"`, Seq: 7, Entries: []lb.JournalEntry{
			{Time: now, Scope: "agent:bob", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventOutcome, Time: now, Caller: "d-1", Outcome: &lb.Outcome{DecisionID: "d-1", Result: lb.OutcomeFailure}}},
			{Time: now, Scope: "agent:bob", Type: lb.EntryTransition, Transition: &lb.Transition{Time: now, From: lb.Closed, To: lb.Open, Reason: "r"}},
			{Time: now, Scope: "agent:bob", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventReset, Time: now, Reset: &lb.Reset{By: "alice"}}},
		}},
		{LSN: 1, Scope: "global", Entries: []lb.JournalEntry{}},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendRecord(nil, &r)
		if err != nil || string(got) != string(want) {
			t.Errorf("record %d:\n got %s (%v)\nwant %s", r.LSN, got, err, want)
		}
	}
}
