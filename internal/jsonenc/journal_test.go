package jsonenc

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

var texts = []string{"agent:bob", `quote " back \ slash`, "<tag> & amp", "tab\tnew\nline\x01", "日本語 \u2028 sep \u2029", "bad \xff utf8", ""}

func entries() map[string]lb.JournalEntry {
	t0 := time.Date(2026, 11, 21, 9, 0, 7, 123456789, time.UTC)
	zoned := time.Date(2026, 11, 21, 9, 0, 7, 0, time.FixedZone("x", -(5*3600+30*60)))
	out := map[string]lb.JournalEntry{
		"zero":              {},
		"check":             {Seq: 7, Time: t0, Scope: "agent:bob", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck, Time: t0, Caller: "d-abc"}},
		"outcome in a zone": {Seq: 1, Time: zoned, Scope: "global", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventOutcome, Time: zoned, Outcome: &lb.Outcome{DecisionID: "d-1", Result: lb.OutcomeFailure}}},
		"transition":        {Seq: 9, Time: t0, Scope: "global", Type: lb.EntryTransition, Transition: &lb.Transition{Time: t0, From: lb.Closed, To: lb.Open, Reason: "5 failed outcomes", Detector: "failure_window", Iteration: 3}},
		"transition mode":   {Seq: 10, Time: t0, Scope: "global", Type: lb.EntryTransition, Transition: &lb.Transition{Time: t0, From: lb.Open, To: lb.HalfOpen, Mode: lb.ModeProbe}},
		"reset":             {Seq: 2, Time: t0, Scope: "global", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventReset, Time: t0, Caller: "alice", Reset: &lb.Reset{Guidance: "<try> & again"}}},
		"iteration":         {Seq: 3, Time: t0, Scope: "session:s", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Time: t0, Iteration: &lb.Iteration{Summary: "x"}}},
		"fingerprint":       {Seq: 4, Time: t0, Scope: "session:s", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck, Time: t0, Fingerprint: "f"}},
		"snapshot":          {Seq: 5, Time: t0, Scope: "global", Type: "snapshot", Snapshot: lb.NewBreakerState("global")},
		"year 10000":        {Seq: 6, Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Scope: "global", Type: lb.EntryEvent},
		"event year -1":     {Seq: 6, Time: t0, Scope: "global", Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventCheck, Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for i, s := range texts {
		out["outcome text "+s] = lb.JournalEntry{Seq: uint64(i), Time: t0, Scope: s, Type: lb.EntryEvent, Event: &lb.Event{
			Kind: lb.EventOutcome, Time: t0.Add(time.Duration(i)), Caller: s, Outcome: &lb.Outcome{DecisionID: s, Result: lb.OutcomeResult(s), Reason: s}}}
		out["transition text "+s] = lb.JournalEntry{Time: t0, Scope: "global", Type: lb.EntryTransition, Transition: &lb.Transition{Time: t0, From: lb.State(s), To: lb.State(s), Mode: lb.HalfOpenMode(s), Reason: s, Detector: s}}
	}
	return out
}

func TestJournalEntryMatchesEncodingJSON(t *testing.T) {
	for name, e := range entries() {
		want, wantErr := json.Marshal(&e)
		got, err := JournalEntry([]byte("prefix,"), &e)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, encoding/json's %v", name, err, wantErr)
		}
		if err == nil && string(got) != "prefix,"+string(want) {
			t.Errorf("%s:\n got %s\nwant prefix,%s", name, got, want)
		}
	}
}

// A field added to an entry, its event, its outcome or its transition is
// either written by hand or sends the entry to encoding/json: each field
// set alone, in an entry with an outcome or a transition, gives
// encoding/json's bytes.
func TestJournalEntryCoversEveryField(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	typical := func() (lb.JournalEntry, lb.JournalEntry) {
		return lb.JournalEntry{Seq: 1, Time: t0, Scope: "global", Type: lb.EntryEvent,
				Event: &lb.Event{Kind: lb.EventOutcome, Time: t0, Outcome: &lb.Outcome{DecisionID: "d-1", Result: lb.OutcomeSuccess}}},
			lb.JournalEntry{Seq: 2, Time: t0, Scope: "global", Type: lb.EntryTransition,
				Transition: &lb.Transition{Time: t0, From: lb.Closed, To: lb.Open, Reason: "r"}}
	}
	// Each struct of an entry, found in the typical entries.
	structs := []func(o, tr *lb.JournalEntry) reflect.Value{
		func(o, _ *lb.JournalEntry) reflect.Value { return reflect.ValueOf(o).Elem() },
		func(o, _ *lb.JournalEntry) reflect.Value { return reflect.ValueOf(o.Event).Elem() },
		func(o, _ *lb.JournalEntry) reflect.Value { return reflect.ValueOf(o.Event.Outcome).Elem() },
		func(_, tr *lb.JournalEntry) reflect.Value { return reflect.ValueOf(tr.Transition).Elem() },
	}
	for _, find := range structs {
		o, tr := typical()
		typ := find(&o, &tr).Type()
		for i := range typ.NumField() {
			o, tr := typical()
			f := find(&o, &tr).Field(i)
			switch f.Kind() {
			case reflect.String:
				f.SetString(f.String() + "<set>")
			case reflect.Int, reflect.Int64:
				f.SetInt(f.Int() + 41)
			case reflect.Uint64:
				f.SetUint(f.Uint() + 41)
			case reflect.Bool:
				f.SetBool(!f.Bool())
			case reflect.Pointer:
				if f.IsNil() {
					f.Set(reflect.New(f.Type().Elem()))
				}
			case reflect.Struct: // a time
				f.Set(reflect.ValueOf(t0.Add(time.Second)))
			default:
				t.Fatalf("%s.%s is a %s: teach this test (and JournalEntry) about it", typ.Name(), typ.Field(i).Name, f.Kind())
			}
			for _, e := range []*lb.JournalEntry{&o, &tr} {
				want, _ := json.Marshal(e)
				got, err := JournalEntry(nil, e)
				if err != nil || string(got) != string(want) {
					t.Errorf("%s.%s set: got %s (%v)\nwant %s", typ.Name(), typ.Field(i).Name, got, err, want)
				}
			}
		}
	}
}

// String writes every byte, alone and amid text, as encoding/json does.
func TestStringMatchesEncodingJSONOnEveryByte(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "b\u2028"} {
			want, _ := json.Marshal(s)
			if got := String(nil, s); string(got) != string(want) {
				t.Errorf("byte %#x in %q: got %s, want %s", c, s, got, want)
			}
		}
	}
}

func FuzzStringMatchesEncodingJSON(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	})
}

// BenchmarkString is the escaping of a journal entry's usual strings.
//
//	go test ./internal/jsonenc -run '^$' -bench String
func BenchmarkString(b *testing.B) {
	strs := []string{"agent:agent-17", "category:tooling", "d-6f1c2a9e4b7d3c5a8e2f0b1d", "success", "the failure window holds 5 failed outcomes in 10m0s"}
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = String(buf, s)
		}
	}
}
