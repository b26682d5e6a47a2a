package filestore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

func TestOpenCreatesDirectoryKeptOutOfGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	project := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	s, err := Open(filepath.Join(project, ".loopbreaker"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustUpdate(t, s, iterate(10), "session:default")
	if got := git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Fatalf("state shows up in git status:\n%s", got)
	}
	info, err := os.Stat(filepath.Join(project, ".loopbreaker"))
	if err != nil || info.Mode().Perm()&0o700 != 0o700 {
		t.Fatalf("state directory: %v, %v", info, err)
	}

	// A .gitignore someone edited is left alone.
	custom := []byte("*\n!notes.txt\n")
	writeFile(t, filepath.Join(s.Dir(), ".gitignore"), custom)
	if _, err := Open(s.Dir(), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(s.Dir(), ".gitignore")); string(got) != string(custom) {
		t.Fatalf(".gitignore rewritten: %q", got)
	}
}

func TestOpenFailsClearly(t *testing.T) {
	if _, err := Open("", Options{}); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, []byte("x"))
	_, err := Open(filepath.Join(file, ".loopbreaker"), Options{})
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "check") {
		t.Fatalf("Open under a file: %v", err)
	}
}

func TestUpdateLoadRoundTrip(t *testing.T) {
	s := openStore(t, Options{})
	ctx := context.Background()
	const scope = "session:default"

	fresh := storetest.MustLoad(t, s, scope)
	if !reflect.DeepEqual(fresh, lb.NewBreakerState(scope)) {
		t.Fatalf("unseen scope loads as %+v", fresh)
	}
	if scopes, _ := s.Scopes(ctx); len(scopes) != 0 {
		t.Fatalf("Load created a scope: %v", scopes)
	}

	opened := t0.Add(time.Minute)
	passing := 7
	var want lb.BreakerState
	err := s.Update(ctx, []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
		st := states[0]
		st.State, st.OpenedAt, st.Reason, st.Detector = lb.Open, &opened, "same error 5 times", lb.DetectorSameError
		st.Iterations, st.TotalOpens = 12, 1
		st.Counters.SameError = 5
		st.LastTestsPassing = &passing
		st.LastMetrics = map[string]float64{"coverage": 0.5}
		st.Tests = []lb.TestAttempts{{Name: "TestX", Failed: 3, LastError: "boom"}}
		st.UpdatedAt = opened
		tr := lb.Transition{Time: opened, From: lb.Closed, To: lb.Open, Reason: st.Reason, Detector: st.Detector, Iteration: 12}
		st.Transitions = append(st.Transitions, tr)
		return [][]lb.JournalEntry{{
			{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Time: opened, Iteration: &lb.Iteration{Summary: "tried again"}}},
			{Type: lb.EntryTransition, Transition: &tr},
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// What a reload must give back: the state as fn left it, at seq 2.
	want = lb.BreakerState{Scope: scope, State: lb.Open, OpenedAt: &opened, Reason: "same error 5 times", Detector: lb.DetectorSameError,
		Seq: 2, UpdatedAt: opened, Iterations: 12, TotalOpens: 1, Counters: lb.Counters{SameError: 5}, LastTestsPassing: &passing,
		LastMetrics: map[string]float64{"coverage": 0.5}, Tests: []lb.TestAttempts{{Name: "TestX", Failed: 3, LastError: "boom"}},
		Transitions: []lb.Transition{{Time: opened, From: lb.Closed, To: lb.Open, Reason: "same error 5 times", Detector: lb.DetectorSameError, Iteration: 12}}}

	for _, store := range []*Store{s, reopen(t, s, Options{})} {
		got := storetest.MustLoad(t, store, scope)
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("loaded\n%+v\nwant\n%+v", got, &want)
		}
	}
	es := storetest.MustJournal(t, s, scope, 0)
	if len(es) != 2 || es[0].Type != lb.EntryEvent || es[0].Event.Iteration.Summary != "tried again" || es[1].Transition.To != lb.Open {
		t.Fatalf("journal: %+v", es)
	}
	if scopes, _ := s.Scopes(ctx); !slices.Equal(scopes, []string{scope}) {
		t.Fatalf("Scopes = %v", scopes)
	}
}

func TestUpdateWithoutEntriesWritesNothing(t *testing.T) {
	s := openStore(t, Options{})
	const scope = "agent:a/b"
	storetest.MustUpdate(t, s, iterate(10), scope)
	f := mustFiles(t, s, scope)
	type snap struct {
		info os.FileInfo
		data []byte
	}
	take := func() map[string]snap {
		m := map[string]snap{}
		des, err := os.ReadDir(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			p := filepath.Join(f.dir, de.Name())
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			m[de.Name()] = snap{info, readFile(t, p)}
		}
		return m
	}
	before := take()

	for name, entries := range map[string][][]lb.JournalEntry{
		"nil":         nil,
		"empty":       {},
		"empty lists": {nil, {}},
	} {
		called := false
		err := s.Update(context.Background(), []string{scope, "other"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			called = true
			states[0].Iterations = 99 // changed, but no entries: not saved
			states[1].Iterations = 99
			return entries, nil
		})
		if err != nil || !called {
			t.Fatalf("%s: err %v, called %v", name, err, called)
		}
		after := take()
		if len(after) != len(before) {
			t.Fatalf("%s: files %v, before %v", name, after, before)
		}
		for n, b := range before {
			a := after[n]
			if !os.SameFile(a.info, b.info) || a.info.Size() != b.info.Size() || !a.info.ModTime().Equal(b.info.ModTime()) || string(a.data) != string(b.data) {
				t.Fatalf("%s: %s changed", name, n)
			}
		}
		if got := storetest.MustLoad(t, s, scope).Iterations; got != 1 {
			t.Fatalf("%s: iterations %d", name, got)
		}
		if _, err := os.Stat(mustFiles(t, s, "other").dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: a no-entry update created a scope directory: %v", name, err)
		}
	}
}

func TestUpdateSeqContinuity(t *testing.T) {
	clock := stepClock()
	s := openStore(t, Options{Now: clock})
	const scope = "s"
	given := t0.Add(-time.Hour)
	var returned []lb.JournalEntry
	for _, n := range []int{1, 3, 0, 2} {
		err := s.Update(context.Background(), []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[0].Seq = 1000 // the store, not fn, owns Seq
			es := make([]lb.JournalEntry, n)
			for i := range es {
				es[i] = lb.JournalEntry{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck}, Scope: "wrong"}
			}
			if n == 2 {
				es[1].Time = given
			}
			returned = es
			return [][]lb.JournalEntry{es}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if st := storetest.MustLoad(t, s, scope); n > 0 && st.Seq != returned[n-1].Seq {
			t.Fatalf("state seq %d, last entry seq %d", st.Seq, returned[n-1].Seq)
		}
	}
	// fn's slices carry the seqs the store gave.
	if returned[0].Seq != 5 || returned[1].Seq != 6 || returned[0].Scope != scope {
		t.Fatalf("entries returned by fn: %+v", returned)
	}
	es := storetest.MustJournal(t, s, scope, 0)
	if got := seqs(es); !slices.Equal(got, seqRange(1, 6)) {
		t.Fatalf("journal seqs %v", got)
	}
	if storetest.MustLoad(t, s, scope).Seq != 6 {
		t.Fatal("state seq is not 6")
	}
	if !es[5].Time.Equal(given) || !es[4].Time.After(t0) {
		t.Fatalf("entry times: %v %v", es[4].Time, es[5].Time)
	}
}

func TestUpdateRefusesBadInput(t *testing.T) {
	s := openStore(t, Options{})
	ctx := context.Background()
	storetest.MustUpdate(t, s, iterate(1), "a")
	stateBefore := readFile(t, mustFiles(t, s, "a").state)
	boom := errors.New("boom")
	cases := []struct {
		name   string
		scopes []string
		fn     lb.UpdateFunc
		want   string // in the error
		is     error
	}{
		{"no scopes", nil, iterate(1), "without scopes", nil},
		{"empty scope", []string{""}, iterate(1), "empty scope", nil},
		{"duplicate scope", []string{"a", "a"}, iterate(1), "listed twice", nil},
		{"nil fn", []string{"a"}, nil, "without an UpdateFunc", nil},
		{"fn error", []string{"a"}, func([]*lb.BreakerState) ([][]lb.JournalEntry, error) { return nil, boom }, "boom", boom},
		{"too many entry lists", []string{"a"}, func([]*lb.BreakerState) ([][]lb.JournalEntry, error) {
			return [][]lb.JournalEntry{nil, {{Type: lb.EntryEvent}}}, nil
		}, "entries for 2 states", nil},
		{"entry without type", []string{"a"}, func([]*lb.BreakerState) ([][]lb.JournalEntry, error) {
			return [][]lb.JournalEntry{{{}}}, nil
		}, "no type", nil},
		{"replaced state", []string{"a"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[0] = lb.NewBreakerState("b")
			return [][]lb.JournalEntry{{{Type: lb.EntryEvent}}}, nil
		}, "in place", nil},
		{"broken invariant", []string{"a"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[0].State = lb.Open // without OpenedAt
			return [][]lb.JournalEntry{{{Type: lb.EntryEvent}}}, nil
		}, "OPEN without an opened_at", lb.ErrInvariant},
		{"second scope broken", []string{"new", "a"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[1].Counters.NoProgress = -1
			return [][]lb.JournalEntry{{{Type: lb.EntryEvent}}, {{Type: lb.EntryEvent}}}, nil
		}, "negative", lb.ErrInvariant},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Update(ctx, c.scopes, c.fn)
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
			if got := readFile(t, mustFiles(t, s, "a").state); string(got) != string(stateBefore) {
				t.Fatal("state changed")
			}
			if scopes, _ := s.Scopes(ctx); !slices.Equal(scopes, []string{"a"}) {
				t.Fatalf("scopes %v", scopes)
			}
		})
	}
}

func TestUpdateSeveralScopes(t *testing.T) {
	s := openStore(t, Options{})
	scopes := []string{"session:default", "agent:x", "UPPER", "upper"}
	for range 3 {
		storetest.MustUpdate(t, s, iterate(5), scopes...)
	}
	for _, scope := range scopes {
		if st := storetest.MustLoad(t, s, scope); st.Iterations != 3 || st.Seq != 3 {
			t.Fatalf("%s: %+v", scope, st)
		}
		checkContiguous(t, s, scope)
	}
	got, err := s.Scopes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(scopes)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Scopes = %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), txnName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("txn.json left behind: %v", err)
	}
}

// A multi-scope update killed after its commit point (txn.json) and before
// every state.json was renamed is finished by the next writer.
func TestMultiScopeUpdateRollsForward(t *testing.T) {
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), "a", "b")

	// What commit writes first for a second update of both scopes.
	var txn txnFile
	txn.Version = stateFormat
	for _, scope := range []string{"a", "b"} {
		st := storetest.MustLoad(t, s, scope)
		st.Iterations, st.Seq = 2, 2
		e := lb.JournalEntry{Seq: 2, Time: t0, Scope: scope, Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration}}
		txn.States = append(txn.States, txnState{Scope: scope, File: stateFile{Version: stateFormat, State: st, Pending: []lb.JournalEntry{e}}})
	}
	data, _ := json.Marshal(txn)
	writeFile(t, filepath.Join(s.Dir(), txnName), data)
	// ... and "a" got renamed before the crash, "b" did not.
	aData, _ := encodeState(txn.States[0].File.State, txn.States[0].File.Pending)
	writeFile(t, mustFiles(t, s, "a").state, aData)

	if a, b := storetest.MustLoad(t, s, "a").Iterations, storetest.MustLoad(t, s, "b").Iterations; a != 2 || b != 1 {
		t.Fatalf("before roll-forward: a=%d b=%d", a, b)
	}
	storetest.MustUpdate(t, s, iterate(1), "unrelated")
	for _, scope := range []string{"a", "b"} {
		if st := storetest.MustLoad(t, s, scope); st.Iterations != 2 || st.Seq != 2 {
			t.Fatalf("%s after roll-forward: %+v", scope, st)
		}
		if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, []uint64{1, 2}) {
			t.Fatalf("%s journal %v", scope, got)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), txnName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("txn.json not removed")
	}

	// An unreadable txn.json (power cut without Fsync) is moved aside.
	writeFile(t, filepath.Join(s.Dir(), txnName), []byte(`{"version":1,"sta`))
	storetest.MustUpdate(t, s, iterate(1), "a")
	aside, _ := filepath.Glob(filepath.Join(s.Dir(), txnName+".corrupt-*"))
	if len(aside) != 1 || storetest.MustLoad(t, s, "a").Iterations != 3 {
		t.Fatalf("unreadable txn.json: aside %v", aside)
	}
}

func TestRotation(t *testing.T) {
	s := openStore(t, Options{MaxJournalBytes: 2000, KeepJournals: 2})
	const scope = "s"
	for range 60 {
		storetest.MustUpdate(t, s, iterate(100), scope)
	}
	js, err := s.JournalStats(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(js.Rotated) != 2 {
		t.Fatalf("kept %d rotated journals, want 2", len(js.Rotated))
	}
	for _, path := range js.Rotated {
		r := struct{ path string }{path}
		es, _ := readAllJournal(t, r.path)
		if filepath.Base(r.path) != "journal-"+itoa(es[0].Seq)+".jsonl" {
			t.Fatalf("%s starts at seq %d", r.path, es[0].Seq)
		}
		if info, _ := os.Stat(r.path); info.Size() > 2000+300 {
			t.Fatalf("%s is %d bytes", r.path, info.Size())
		}
	}
	cur := storetest.MustJournal(t, s, scope, 0)
	newest, _ := readAllJournal(t, js.Rotated[1])
	snap := cur[0]
	if snap.Type != lb.EntrySnapshot || snap.Seq != newest[len(newest)-1].Seq || snap.Snapshot.Iterations != int(snap.Seq) || snap.Snapshot.Seq != snap.Seq {
		t.Fatalf("current journal starts with %+v; the rotated one ended at %d", snap, newest[len(newest)-1].Seq)
	}
	if storetest.MustLoad(t, s, scope).Iterations != 60 {
		t.Fatal("iterations")
	}
	checkContiguous(t, s, scope)

	t.Run("keep none, never rotate", func(t *testing.T) {
		none := openStore(t, Options{MaxJournalBytes: 500, KeepJournals: -1})
		never := openStore(t, Options{MaxJournalBytes: -1})
		for range 20 {
			storetest.MustUpdate(t, none, iterate(100), scope)
			storetest.MustUpdate(t, never, iterate(100), scope)
		}
		if js, err := none.JournalStats(context.Background(), scope); err != nil || len(js.Rotated) != 0 {
			t.Fatalf("KeepJournals -1 kept %v (%v)", js.Rotated, err)
		}
		if es := storetest.MustJournal(t, none, scope, 0); es[0].Type != lb.EntrySnapshot {
			t.Fatal("no rotation happened")
		}
		if es := storetest.MustJournal(t, never, scope, 0); len(es) != 20 {
			t.Fatalf("MaxJournalBytes -1: %d entries", len(es))
		}
	})
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestCompact(t *testing.T) {
	s := openStore(t, Options{})
	ctx := context.Background()
	const scope = "s"
	if err := s.Compact(ctx, scope); err != nil {
		t.Fatalf("Compact of an unseen scope: %v", err)
	}
	for range 5 {
		storetest.MustUpdate(t, s, iterate(1), scope)
	}
	if err := s.Compact(ctx, scope); err != nil {
		t.Fatal(err)
	}
	f := mustFiles(t, s, scope)
	old, _ := readAllJournal(t, filepath.Join(f.dir, "journal-1.jsonl"))
	if got := seqs(old); !slices.Equal(got, seqRange(1, 5)) {
		t.Fatalf("rotated journal seqs %v", got)
	}
	cur := storetest.MustJournal(t, s, scope, 0)
	if len(cur) != 1 || cur[0].Type != lb.EntrySnapshot || cur[0].Seq != 5 || cur[0].Snapshot.Iterations != 5 {
		t.Fatalf("current journal after Compact: %+v", cur)
	}
	// Nothing new: nothing to rotate.
	if err := s.Compact(ctx, scope); err != nil {
		t.Fatal(err)
	}
	if r := rotatedPaths(t, s, scope); len(r) != 1 {
		t.Fatalf("second Compact rotated again: %v", r)
	}
	storetest.MustUpdate(t, s, iterate(1), scope)
	if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, []uint64{5, 6}) {
		t.Fatalf("journal after Compact + Update: %v", got)
	}
	checkContiguous(t, s, scope)
}

func TestJournalLimit(t *testing.T) {
	s := openStore(t, Options{MaxJournalBytes: -1})
	const scope = "s"
	for range 10 {
		storetest.MustUpdate(t, s, iterate(1), scope)
	}
	f := mustFiles(t, s, scope)
	lines := strings.SplitAfter(string(readFile(t, f.journal)), "\n")
	// A garbage line after seq 4, and a half-written line at the end.
	damaged := strings.Join(lines[:4], "") + "not json\n" + strings.Join(lines[4:], "") + `{"seq":11,"ty`
	writeFile(t, f.journal, []byte(damaged))

	for _, c := range []struct {
		limit int
		want  []uint64
	}{
		{0, seqRange(1, 10)},
		{-1, seqRange(1, 10)},
		{1, []uint64{10}},
		{3, []uint64{8, 9, 10}},
		{7, seqRange(4, 10)},
		{10, seqRange(1, 10)},
		{100, seqRange(1, 10)},
	} {
		if got := seqs(storetest.MustJournal(t, s, scope, c.limit)); !slices.Equal(got, c.want) {
			t.Errorf("Journal(%d) = %v, want %v", c.limit, got, c.want)
		}
	}
	js, err := s.JournalStats(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if js.Entries != 10 || js.Skipped != 1 || !js.TruncatedTail || js.FirstSeq != 1 || js.LastSeq != 10 || js.Path != f.journal {
		t.Fatalf("JournalStats = %+v", js)
	}
	if es := storetest.MustJournal(t, s, "unseen", 5); len(es) != 0 {
		t.Fatalf("journal of an unseen scope: %v", es)
	}

	// Across a rotation only the current journal is read.
	if err := s.Compact(context.Background(), scope); err != nil {
		t.Fatal(err)
	}
	storetest.MustUpdate(t, s, iterate(1), scope)
	storetest.MustUpdate(t, s, iterate(1), scope)
	if got := seqs(storetest.MustJournal(t, s, scope, 10)); !slices.Equal(got, []uint64{10, 11, 12}) {
		t.Fatalf("Journal(10) after rotation = %v", got)
	}
	if got := seqs(storetest.MustJournal(t, s, scope, 2)); !slices.Equal(got, []uint64{11, 12}) {
		t.Fatalf("Journal(2) after rotation = %v", got)
	}
	js, _ = s.JournalStats(context.Background(), scope)
	if len(js.Rotated) != 1 || js.Entries != 3 || js.Skipped != 0 || js.TruncatedTail {
		t.Fatalf("JournalStats after rotation = %+v", js)
	}
}

func TestCorruptState(t *testing.T) {
	const scope = "session:default"
	valid := func(mut func(*stateFile)) []byte {
		st := lb.NewBreakerState(scope)
		st.Seq, st.Iterations = 2, 2
		sf := stateFile{Version: stateFormat, State: st}
		mut(&sf)
		data, _ := json.Marshal(sf)
		return data
	}
	cases := []struct {
		name    string
		content []byte // nil: delete state.json
		problem string
	}{
		{"empty", []byte{}, "is empty (0 bytes)"},
		{"blank", []byte("\n \n"), "only blanks"},
		{"truncated", valid(func(*stateFile) {})[:40], "is truncated"},
		{"garbage", []byte("this is not json"), "is not a state file"},
		{"wrong json type", []byte(`[1,2,3]`), "is not a state file"},
		{"unknown state", valid(func(sf *stateFile) { sf.State.State = "BROKEN" }), `unknown state "BROKEN"`},
		{"broken invariant", valid(func(sf *stateFile) { sf.State.State = lb.Open }), "OPEN without an opened_at"},
		{"no state", []byte(`{"version":1}`), `no "state"`},
		{"future version", valid(func(sf *stateFile) { sf.Version = 9 }), "format version 9"},
		{"other scope", valid(func(sf *stateFile) { sf.State.Scope = "agent:x" }), `scope "agent:x"`},
		{"bad pending", valid(func(sf *stateFile) {
			sf.Pending = []lb.JournalEntry{{Seq: 7, Scope: scope, Type: lb.EntryEvent}}
		}), "pending"},
		{"deleted", nil, "is missing although the scope has a journal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openStore(t, Options{})
			ctx := context.Background()
			storetest.MustUpdate(t, s, iterate(1), scope)
			storetest.MustUpdate(t, s, iterate(1), scope)
			f := mustFiles(t, s, scope)
			if c.content == nil {
				if err := os.Remove(f.state); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, f.state, c.content)
			}
			journalBefore := readFile(t, f.journal)

			_, err := s.Load(ctx, scope)
			checkCorrupt(t, err, f, c.problem, 2)
			called := false
			uerr := s.Update(ctx, []string{scope}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
				called = true
				return iterate(1)(states)
			})
			checkCorrupt(t, uerr, f, c.problem, 2)
			if called {
				t.Fatal("Update called fn on a corrupt state")
			}
			if uerr.Error() != err.Error() {
				t.Fatalf("Update and Load disagree:\n%v\n%v", uerr, err)
			}
			if err := s.Compact(ctx, scope); !errors.Is(err, lb.ErrCorruptState) {
				t.Fatalf("Compact: %v", err)
			}
			if c.content != nil && string(readFile(t, f.state)) != string(c.content) {
				t.Fatal("state file changed")
			}
			if string(readFile(t, f.journal)) != string(journalBefore) {
				t.Fatal("journal changed")
			}

			// Replace keeps the corrupt file and writes the new state.
			if err := s.Replace(ctx, scope, lb.NewBreakerState(scope)); err != nil {
				t.Fatal(err)
			}
			aside, _ := filepath.Glob(f.state + ".corrupt-*")
			if c.content == nil {
				if len(aside) != 0 {
					t.Fatalf("nothing to keep, yet %v", aside)
				}
			} else if len(aside) != 1 || string(readFile(t, aside[0])) != string(c.content) {
				t.Fatalf("corrupt file kept as %v", aside)
			}
			st := storetest.MustLoad(t, s, scope)
			if st.Seq != 3 || st.Iterations != 0 || st.State != lb.Closed {
				t.Fatalf("state after Replace: %+v", st)
			}
			es := storetest.MustJournal(t, s, scope, 0)
			last := es[len(es)-1]
			if last.Type != lb.EntrySnapshot || last.Seq != 3 || last.Snapshot.Seq != 3 {
				t.Fatalf("journal after Replace ends with %+v", last)
			}
			storetest.MustUpdate(t, s, iterate(1), scope)
			if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, seqRange(1, 4)) {
				t.Fatalf("journal seqs %v", got)
			}
		})
	}

	t.Run("no journal", func(t *testing.T) {
		s := openStore(t, Options{})
		f := mustFiles(t, s, scope)
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, f.state, []byte("{"))
		_, err := s.Load(context.Background(), scope)
		checkCorrupt(t, err, f, "is truncated", 0)
	})
}

func checkCorrupt(t *testing.T, err error, f scopeFiles, problem string, entries int) {
	t.Helper()
	var ce *CorruptStateError
	if !errors.Is(err, lb.ErrCorruptState) || !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a CorruptStateError", err)
	}
	if ce.JournalEntries != entries || ce.Path != f.state || ce.Journal != f.journal {
		t.Fatalf("CorruptStateError %+v", ce)
	}
	msg := err.Error()
	want := []string{f.state, problem, "loopbreaker recover --discard", "start over from CLOSED"}
	if entries > 0 {
		want = append(want, "run `loopbreaker recover` to rebuild it from the journal "+f.journal+" (2 entries)")
	} else {
		want = append(want, "has no entries")
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("error %q does not say %q", msg, w)
		}
	}
}

func TestStateOlderThanJournal(t *testing.T) {
	s := openStore(t, Options{})
	const scope = "s"
	storetest.MustUpdate(t, s, iterate(1), scope)
	f := mustFiles(t, s, scope)
	old := readFile(t, f.state)
	storetest.MustUpdate(t, s, iterate(1), scope)
	writeFile(t, f.state, old) // e.g. restored from a backup

	err := s.Update(context.Background(), []string{scope}, iterate(1))
	if !errors.Is(err, lb.ErrCorruptState) || !strings.Contains(err.Error(), "already reaches seq 2") {
		t.Fatalf("Update on a state older than its journal: %v", err)
	}
	if err := s.Replace(context.Background(), scope, storetest.MustLoad(t, s, scope)); err != nil {
		t.Fatal(err)
	}
	storetest.MustUpdate(t, s, iterate(1), scope)
	if got := seqs(storetest.MustJournal(t, s, scope, 0)); !slices.Equal(got, seqRange(1, 4)) {
		t.Fatalf("journal seqs %v", got)
	}
}

func TestReplace(t *testing.T) {
	s := openStore(t, Options{})
	ctx := context.Background()
	const scope = "s"
	for range 3 {
		storetest.MustUpdate(t, s, iterate(1), scope)
	}
	repl := lb.NewBreakerState("")
	repl.Iterations = 42
	repl.Seq = 999
	if err := s.Replace(ctx, scope, repl); err != nil {
		t.Fatal(err)
	}
	if repl.Seq != 999 || repl.Scope != "" {
		t.Fatal("Replace modified its argument")
	}
	st := storetest.MustLoad(t, s, scope)
	if st.Iterations != 42 || st.Seq != 4 || st.Scope != scope {
		t.Fatalf("after Replace: %+v", st)
	}
	if err := s.Replace(ctx, scope, nil); err == nil {
		t.Fatal("Replace(nil) succeeded")
	}
	if err := s.Replace(ctx, scope, lb.NewBreakerState("other")); err == nil || !strings.Contains(err.Error(), "other") {
		t.Fatalf("Replace with another scope's state: %v", err)
	}
	bad := lb.NewBreakerState(scope)
	bad.State = lb.Open
	if err := s.Replace(ctx, scope, bad); !errors.Is(err, lb.ErrInvariant) {
		t.Fatalf("Replace with a broken state: %v", err)
	}
	if err := s.Replace(ctx, "fresh", lb.NewBreakerState("fresh")); err != nil {
		t.Fatal(err)
	}
	if st := storetest.MustLoad(t, s, "fresh"); st.Seq != 1 {
		t.Fatalf("Replace of an unseen scope: %+v", st)
	}
	checkContiguous(t, s, scope)
	checkContiguous(t, s, "fresh")
}

func TestClose(t *testing.T) {
	s := openStore(t, Options{})
	ctx := context.Background()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	errs := []error{
		s.Update(ctx, []string{"s"}, iterate(1)),
		s.Replace(ctx, "s", lb.NewBreakerState("s")),
		s.Compact(ctx, "s"),
	}
	_, err := s.Load(ctx, "s")
	errs = append(errs, err)
	_, err = s.Scopes(ctx)
	errs = append(errs, err)
	_, err = s.Journal(ctx, "s", 1)
	errs = append(errs, err)
	_, err = s.JournalStats(ctx, "s")
	errs = append(errs, err)
	for i, err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call %d after Close: %v", i, err)
		}
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	s := openStore(t, Options{MaxJournalBytes: 4000, KeepJournals: 1000})
	const workers, each = 8, 50
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var err error
			for range each {
				if err = s.Update(context.Background(), []string{"shared", "other"}, iterate(20)); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, scope := range []string{"shared", "other"} {
		if st := storetest.MustLoad(t, s, scope); st.Iterations != workers*each {
			t.Fatalf("%s: iterations %d", scope, st.Iterations)
		}
		if n := checkContiguous(t, s, scope); n != workers*each {
			t.Fatalf("%s: %d events", scope, n)
		}
	}
}
