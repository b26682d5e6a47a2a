package jsonenc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// Every field of a state, and of every type it reaches, is filled by
// reflection with values of every sort (strings to escape, negative and
// huge numbers, zones, nil and empty lists, nil and set pointers): State
// writes encoding/json's bytes, by hand. A field added to any of these
// types and not written by State makes this test fail; so does a kind of
// field the filler does not know (teach it, and State).
func TestStateMatchesEncodingJSON(t *testing.T) {
	for seed := range uint64(400) {
		f := &filler{t: t, r: rand.New(rand.NewPCG(seed, 7))}
		var st lb.BreakerState
		f.fill(reflect.ValueOf(&st).Elem(), "BreakerState")
		want, err := json.Marshal(&st)
		if err != nil {
			t.Fatalf("seed %d: encoding/json refuses a value the filler made as a usual one: %v", seed, err)
		}
		e := stateEncoder{}
		e.state(&st)
		if e.bad {
			t.Errorf("seed %d: State hands a usual state to encoding/json", seed)
		}
		if string(e.b) != string(want) {
			t.Fatalf("seed %d: State differs from encoding/json (a field it does not write?):\n%s", seed, difference(e.b, want))
		}
		got, err := State([]byte("prefix,"), &st)
		if err != nil || string(got) != "prefix,"+string(want) {
			t.Fatalf("seed %d: State gives %s (%v)", seed, got, err)
		}
	}
}

// Values encoding/json refuses, or that State leaves to it, give
// encoding/json's bytes or its error.
func TestStateFallsBackToEncodingJSON(t *testing.T) {
	for seed := range uint64(400) {
		f := &filler{t: t, r: rand.New(rand.NewPCG(seed, 11)), wild: true}
		var st lb.BreakerState
		f.fill(reflect.ValueOf(&st).Elem(), "BreakerState")
		want, wantErr := json.Marshal(&st)
		got, err := State([]byte("prefix,"), &st)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("seed %d: error %v, encoding/json's %v", seed, err, wantErr)
		}
		if err != nil && string(got) != "prefix," {
			t.Fatalf("seed %d: on error State returns %q, not its input", seed, got)
		}
		if err == nil && string(got) != "prefix,"+string(want) {
			t.Fatalf("seed %d:\n%s", seed, difference(got, append([]byte("prefix,"), want...)))
		}
	}
	if got, err := State(nil, nil); err != nil || string(got) != "null" {
		t.Errorf("nil state: %s (%v)", got, err)
	}
}

// A state as a hook session leaves it: the engine's own record of tool
// calls and iterations, and a session memory.
func TestTypicalStateMatchesEncodingJSON(t *testing.T) {
	st := typicalState(t)
	want, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	e := stateEncoder{}
	e.state(st)
	if e.bad || string(e.b) != string(want) {
		t.Fatalf("by hand: %v\n%s", !e.bad, difference(e.b, want))
	}
	if len(want) < 3000 {
		t.Errorf("the typical state is %d bytes, not the few kilobytes of a hook session's", len(want))
	}
}

// A tool call's arguments are compacted and escaped as encoding/json
// does, whatever the blanks and characters in them.
func TestRawArgsMatchEncodingJSON(t *testing.T) {
	for _, raw := range validRaw {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := appendCompact(nil, []byte(raw)); string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", raw, got, want)
		}
	}
}

var validRaw = []string{
	`{"command":"go test ./... 2>&1 | head -50"}`,
	` { "a" : [ 1 , 2 , { "b" : null } ] } `,
	"\"line\u2028sep\u2029 \\\" \\\\\"",
	"{\n\t\"k\": \"a\\\"<b> \\u2028\"\r\n}",
	`[true,false,null,1.5e3,-0,"\ud83d\ude00"]`,
	"  7  ",
	"\"\xff bad utf8\"",
	`"é 日本"`,
	`{}`,
}

var invalidRaw = []string{`{`, `nope`, `{"a":1}x`, `"unterminated`}

// difference shows got and want around their first differing byte.
func difference(got, want []byte) string {
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	around := func(b []byte) []byte { return b[max(i-120, 0):min(i+120, len(b))] }
	return fmt.Sprintf(" got …%s…\nwant …%s…\n(byte %d)", around(got), around(want), i)
}

// filler sets every field of a value, recursively, from r. wild adds
// values encoding/json refuses or State leaves to it: numbers that are
// not finite, years it does not write, zones with seconds, arguments
// that are not JSON.
type filler struct {
	t    *testing.T
	r    *rand.Rand
	wild bool
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	rawType    = reflect.TypeFor[json.RawMessage]()
	textPieces = []string{"a", "agent:bob", "<tag>", "&amp;", "\u2028", "\u2029", "\xff", "\x00\x1f", `"quote\`, "日本", "\t\n\r", "é", "go test ./...", " "}
)

// rare is true once in n.
func (f *filler) rare(n int) bool { return f.r.IntN(n) == 0 }

func (f *filler) fill(v reflect.Value, path string) {
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(f.time()))
		return
	case rawType:
		v.Set(reflect.ValueOf(f.raw()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.text())
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(f.int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.int()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f.float())
	case reflect.Pointer:
		if f.rare(3) {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), path)
		v.Set(p)
	case reflect.Slice:
		switch f.r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 1))
		default:
			s := reflect.MakeSlice(v.Type(), 1+f.r.IntN(3), 3)
			for i := range s.Len() {
				f.fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
			v.Set(s)
		}
	case reflect.Map:
		switch f.r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range 1 + f.r.IntN(4) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				f.fill(k, path+" key")
				f.fill(e, path+" value")
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if sf := v.Type().Field(i); sf.IsExported() && sf.Tag.Get("json") != "-" {
				f.fill(v.Field(i), path+"."+sf.Name)
			}
		}
	default:
		f.t.Fatalf("%s is a %s: teach this test, and State, about it", path, v.Type())
	}
}

func (f *filler) text() string {
	if f.rare(4) {
		return ""
	}
	var b strings.Builder
	for range 1 + f.r.IntN(3) {
		b.WriteString(textPieces[f.r.IntN(len(textPieces))])
	}
	return b.String()
}

func (f *filler) int() int64 {
	switch f.r.IntN(4) {
	case 0:
		return 0
	case 1:
		return int64(f.r.IntN(100))
	case 2:
		return -int64(f.r.IntN(100)) - 1
	}
	return int64(f.r.Uint64())
}

func (f *filler) float() float64 {
	if f.wild && f.rare(30) {
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[f.r.IntN(3)]
	}
	switch f.r.IntN(5) {
	case 0:
		return []float64{0, math.Copysign(0, -1), 1e21, 1e-6, 1e-7, 999999999999999999999, math.MaxFloat64, math.SmallestNonzeroFloat64}[f.r.IntN(8)]
	case 1:
		return float64(f.r.IntN(1000)) / 8
	}
	return (f.r.Float64() - 0.5) * math.Pow(10, float64(f.r.IntN(60)-30))
}

func (f *filler) time() time.Time {
	if f.rare(5) {
		return time.Time{}
	}
	if f.wild && f.rare(30) {
		return []time.Time{
			time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("s", 3600+7)),
		}[f.r.IntN(3)]
	}
	t := time.Unix(f.r.Int64N(250_000_000_000)-62_000_000_000, f.r.Int64N(1e9))
	switch f.r.IntN(4) {
	case 0:
		return t.UTC()
	case 1:
		return time.Now() // with a monotonic reading
	case 2:
		return t.Truncate(time.Second).UTC()
	}
	return t.In(time.FixedZone("z", (f.r.IntN(48*60-1)-(24*60-1))*60))
}

func (f *filler) raw() json.RawMessage {
	switch {
	case f.rare(4):
		return nil
	case f.rare(4):
		return json.RawMessage{}
	case f.wild && f.rare(10):
		return json.RawMessage(invalidRaw[f.r.IntN(len(invalidRaw))])
	}
	return json.RawMessage(validRaw[f.r.IntN(len(validRaw))])
}

// typicalState is a hook session's state: the engine fed tool calls
// (reads, edits, failing and passing test runs) and the turn ends after
// them, with a session memory as the hook keeps it (pending calls, calls
// counted, sessions seen). About 5 KB of JSON.
func typicalState(tb testing.TB) *lb.BreakerState {
	cfg := lb.Defaults()
	eng := breaker.New(cfg)
	st := lb.NewBreakerState("session:claude-4f1c")
	t0 := time.Date(2026, 3, 2, 14, 5, 0, 0, time.FixedZone("CET", 3600))
	n := func(i int) *int { return &i }
	apply := func(i int, ev lb.Event) {
		ev.Time = t0.Add(time.Duration(i) * 7 * time.Second)
		ev.Caller = "claude"
		if _, err := eng.Apply(st, &ev); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range 10 {
		tc := lb.ToolCall{Tool: "Read", Args: json.RawMessage(fmt.Sprintf(`{"file_path":"internal/calc/op%d.go"}`, i%5)),
			ArgsHash: fmt.Sprintf("%016x", i*7919), ResultHash: fmt.Sprintf("%016x", i*104729), InfoHash: fmt.Sprintf("%016x", i*31), Batch: i/3 + 1}
		switch i % 4 {
		case 1:
			tc.Tool, tc.Edit, tc.Files = "Edit", true, []string{fmt.Sprintf("internal/calc/op%d.go", i%5)}
			tc.Args = json.RawMessage(fmt.Sprintf(`{"file_path":"internal/calc/op%d.go","old_string":"a < b","new_string":"a <= b"}`, i%5))
		case 3:
			tc.Tool = "Bash"
			tc.Args = json.RawMessage(`{"command":"go test ./... 2>&1 | tail -20"}`)
			tc.TestsPassing, tc.TestsFailing = n(40+i), n(3-i%3)
			tc.Tests = []lb.TestResult{{Name: "TestDivide", Passed: i > 6, Observed: true, Unit: "example.com/calc/internal/calc", Message: "calc_test.go:41: got 0, want +Inf"}}
			if i <= 6 {
				tc.Error = &lb.ErrorText{Raw: "--- FAIL: TestDivide (0.00s)\n    calc_test.go:41: got 0, want +Inf", Signature: "FAIL TestDivide calc_test.go:N got N want +Inf"}
			}
			tc.Usage = &lb.Usage{Model: "claude-sonnet-4-5", Calls: 2, InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 48000 + int64(i)}
		}
		apply(2*i, lb.Event{Kind: lb.EventToolCall, ToolCall: &tc})
		if i%5 == 4 {
			apply(2*i+1, lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: "turn end", FilesChanged: n(1 + i%3), Files: []string{"internal/calc/op1.go"}}})
		}
	}
	pending := func(i int) lb.PendingCall {
		message := ""
		if i == 2 {
			message = "3f09c2a1d4e5b6a7"
		}
		return lb.PendingCall{Message: message, ID: fmt.Sprintf("s1/toolu_01%06d", i), Time: t0.Add(time.Duration(i) * time.Minute), Batch: 9, Results: 30 + i, Shell: i%2 == 0,
			Call: lb.ToolCall{Tool: "Bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"go vet ./internal/pkg%d/... && echo ok"}`, i)), ArgsHash: fmt.Sprintf("%016x", i*65537), Batch: 9}}
	}
	st.Session = &lb.SessionMemory{
		Pending: []lb.PendingCall{pending(1), pending(2)},
		Batch:   9, Results: 31, BatchResults: 30,
		Nudged: "w-3", FailingTest: "TestDivide",
		Answer:      &lb.TextMark{Len: 812, Hash: "9f2c41d0a7b3e6f1"},
		Transcripts: []lb.TranscriptMark{{Session: "s1", Offset: 482113, UsageOffset: 480002, UsageLast: "msg_01XYZ", UsageRead: true}},
		Seen:        []lb.SeenSession{{Tool: "claude", SessionID: "s1", First: t0, Last: t0.Add(3 * time.Minute), LastEvent: "PostToolUse", Calls: 48}},
	}
	for i := range 10 {
		st.Session.Counted = append(st.Session.Counted, fmt.Sprintf("Ds1/toolu_01%06d", 100+i))
	}
	return st
}

// BenchmarkStateEncode and BenchmarkStateEncodeStdlib encode the typical
// hook session's state by hand and with encoding/json:
//
//	go test ./internal/jsonenc -run '^$' -bench StateEncode -benchmem
func BenchmarkStateEncode(b *testing.B) {
	st := typicalState(b)
	buf := make([]byte, 0, 16<<10)
	for b.Loop() {
		var err error
		if buf, err = State(buf[:0], st); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkStateEncodeStdlib(b *testing.B) {
	st := typicalState(b)
	var n int
	for b.Loop() {
		data, err := json.Marshal(st)
		if err != nil {
			b.Fatal(err)
		}
		n = len(data)
	}
	b.SetBytes(int64(n))
}
