package redisstore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// fill sets every exported field reachable from v to something non-zero:
// pointers point somewhere, slices and maps have two elements.
func fill(t *testing.T, v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	if v.Type() == reflect.TypeOf(json.RawMessage{}) {
		v.Set(reflect.ValueOf(json.RawMessage(`{"x":1}`)))
		return
	}
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Date(2026, 11, 21, 9, 0, depth, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, depth+1)
			if k.Kind() == reflect.String {
				k.SetString(k.String() + string(rune('a'+i)))
			}
			fill(t, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), depth+1)
			}
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(depth + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(depth + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(depth) + 0.5)
	default:
		t.Fatalf("BreakerState has a field of kind %s (%s) that cloneState copies shallowly; teach cloneState about it", v.Kind(), v.Type())
	}
}

// shares reports a pointer, slice or map that a and b have in common.
func shares(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shares(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range a.Len() {
			if p := shares(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Map:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				if p := shares(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// The cache hands out copies: a copy equals its source and shares no
// memory with it, for every field BreakerState has now or gains later,
// but for the attempt history, which is never changed in place: the copy
// shares it clipped, so that its appends go to an array of its own.
func TestCloneStateIsDeep(t *testing.T) {
	var st lb.BreakerState
	fill(t, reflect.ValueOf(&st).Elem(), 0)
	cp := st.Clone()
	if !reflect.DeepEqual(&st, cp) {
		t.Fatalf("the copy differs:\n%+v\n%+v", st, *cp)
	}
	a, b := reflect.ValueOf(&st).Elem(), reflect.ValueOf(cp).Elem()
	for i := range a.NumField() {
		name := a.Type().Field(i).Name
		if name == "Attempts" {
			continue
		}
		if p := shares(a.Field(i), b.Field(i), "BreakerState."+name); p != "" {
			t.Fatalf("the copy shares %s with the original", p)
		}
	}
	if len(cp.Attempts) == 0 || cap(cp.Attempts) != len(cp.Attempts) {
		t.Fatalf("the copy's attempts (%d, room for %d) are not clipped: an append to it would write into the original's array", len(cp.Attempts), cap(cp.Attempts))
	}
	if !reflect.DeepEqual(lb.NewBreakerState("a").Clone(), lb.NewBreakerState("a")) {
		t.Fatal("a new state does not copy to itself (nil and empty slices must stay as they are)")
	}
}

// The buffer encoding writes the same value as encodeValue.
func TestEncodeValueToSameBytes(t *testing.T) {
	var st lb.BreakerState
	fill(t, reflect.ValueOf(&st).Elem(), 0)
	st.Reason = "a <b> & c" // HTML characters are escaped alike
	want, err := encodeValue("tok", &st)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("left over")
	if err := encodeValueTo(&buf, "tok", &st); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Fatalf("encodeValueTo:\n%s\nencodeValue:\n%s", buf.String(), want)
	}
}

// A state an update handed out is the caller's: later updates, which take
// their states from the cache, never change it, whether the first one
// wrote (a record) or not (a check).
func TestKeptStatesAreNotShared(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{})
	var kept []*lb.BreakerState
	keepIt := func(fn lb.UpdateFunc) lb.UpdateFunc {
		return func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			kept = append(kept, states[0])
			return fn(states)
		}
	}
	// As each was handed out: the attempts are shared between copies
	// (BreakerState.Clone), and must not change either.
	var seen []string
	update := func(fn lb.UpdateFunc) {
		t.Helper()
		storetest.MustUpdate(t, s, keepIt(fn), "global")
		b, err := json.Marshal(kept[len(kept)-1])
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, string(b))
	}
	update(storetest.Iterate("a")) // 1: first write, read path
	update(storetest.Iterate("b")) // 2: from the cache
	update(look)                   // 2: a check from the cache
	update(storetest.Iterate("c")) // 3
	update(look)                   // 3
	for range 70 {                 // past the trim of the attempt history
		update(storetest.Iterate("d"))
	}
	for i := range kept {
		if b, _ := json.Marshal(kept[i]); string(b) != seen[i] {
			t.Fatalf("update %d handed out a state that changed later:\nthen %s\nnow  %s", i+1, seen[i], b)
		}
	}
	for i, want := range []int{1, 2, 2, 3, 3} {
		if kept[i].Iterations != want {
			t.Fatalf("update %d handed out a state now at %d iterations, want %d (shared with a later update)", i+1, kept[i].Iterations, want)
		}
		for j := range i {
			if kept[j] == kept[i] {
				t.Fatalf("updates %d and %d were handed the same state", j+1, i+1)
			}
		}
	}
	checkJournal(t, s, "global", 73)
}
