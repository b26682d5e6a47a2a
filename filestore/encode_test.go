package filestore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// The store writes state files and txn.json by hand from entries it
// encoded once; the bytes must be what json.Marshal of their layout gives,
// so that older and newer readers agree.
func TestHandEncodingMatchesLayout(t *testing.T) {
	st := lb.NewBreakerState("agent:<a&b>")
	st.Seq, st.Iterations = 3, 3
	entries := []lb.JournalEntry{
		{Seq: 2, Time: t0, Scope: st.Scope, Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: "a \"quoted\" <line>\n"}}},
		{Seq: 3, Time: t0, Scope: st.Scope, Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration}},
	}
	for _, pending := range [][]lb.JournalEntry{nil, entries[1:], entries} {
		got, err := encodeState(st, pending)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(stateFile{Version: stateFormat, State: st, Pending: pending})
		if string(got) != string(want)+"\n" {
			t.Fatalf("state file with %d pending:\n got %s\nwant %s", len(pending), got, want)
		}
		if _, problem := parseState(st.Scope, got); problem != "" {
			t.Fatalf("own state file: %s", problem)
		}
	}

	var commits []commit
	var txn txnFile
	txn.Version = stateFormat
	for _, scope := range []string{"a", "b\"c"} {
		s := *st
		s.Scope = scope
		es := slices.Clone(entries)
		for i := range es {
			es[i].Scope = scope
		}
		lines, _ := encodeEntries(scope, es)
		data, _ := encodeStateLines(&s, lines, 0)
		commits = append(commits, commit{files: scopeFiles{scope: scope}, state: &s, lines: lines, data: data})
		txn.States = append(txn.States, txnState{Scope: scope, File: stateFile{Version: stateFormat, State: &s, Pending: es}})
	}
	got, err := encodeTxn(commits)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(txn)
	if string(got) != string(want)+"\n" {
		t.Fatalf("txn.json:\n got %s\nwant %s", got, want)
	}
}

// Pending entries are appended to the journal as they are stored; one
// spread over several lines (a state file edited by hand) still becomes
// one journal line.
func TestRepairAppendsMultiLinePendingAsOneLine(t *testing.T) {
	const scope = "s"
	s := openStore(t, Options{})
	storetest.MustUpdate(t, s, iterate(1), scope)
	storetest.MustUpdate(t, s, iterate(1), scope)
	f := mustFiles(t, s, scope)
	var sf stateFile
	if err := json.Unmarshal(readFile(t, f.state), &sf); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(sf, "", "  ")
	writeFile(t, f.state, pretty)
	journal := readFile(t, f.journal)
	cut := bytes.LastIndexByte(journal[:len(journal)-1], '\n') + 1
	if err := os.WriteFile(f.journal, journal[:cut], 0o644); err != nil { // lose seq 2
		t.Fatal(err)
	}
	storetest.MustUpdate(t, s, iterate(1), scope)
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, f.journal)), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("journal has %d lines, want 3:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	js, err := s.JournalStats(context.Background(), scope)
	if err != nil || js.Entries != 3 || js.Skipped != 0 || js.LastSeq != 3 {
		t.Fatalf("JournalStats = %+v, %v", js, err)
	}
}
