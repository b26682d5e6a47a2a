package jsonenc

import (
	"slices"
	"strconv"
	"time"
)

// stateEncoder appends a breaker state's JSON to b, one object member at
// a time. Every member is written with a leading comma; open and close
// turn the first one into the object's brace, so that an object whose
// members are all omitted needs no bookkeeping. A value encoding/json
// would refuse, or writes in a way not copied here, sets bad: State then
// hands the whole state to encoding/json.
type stateEncoder struct {
	b   []byte
	bad bool
	// keys is reused to sort a map's keys.
	keys []string
}

// open starts an object; close ends the object open returned.
func (e *stateEncoder) open() int { return len(e.b) }

func (e *stateEncoder) close(start int) {
	if len(e.b) == start {
		e.b = append(e.b, "{}"...)
		return
	}
	e.b[start] = '{'
	e.b = append(e.b, '}')
}

// key starts a member; name is the comma, the member's name written as a
// JSON string (tag names are plain ASCII) and the colon: `,"scope":`.
func (e *stateEncoder) key(name string) { e.b = append(e.b, name...) }

func (e *stateEncoder) str(name, s string) {
	e.key(name)
	e.b = String(e.b, s)
}

// strOmit is str for a field tagged omitempty.
func (e *stateEncoder) strOmit(name, s string) {
	if s != "" {
		e.str(name, s)
	}
}

func (e *stateEncoder) int(name string, n int64) {
	e.key(name)
	e.b = strconv.AppendInt(e.b, n, 10)
}

func (e *stateEncoder) intOmit(name string, n int64) {
	if n != 0 {
		e.int(name, n)
	}
}

func (e *stateEncoder) intPtrOmit(name string, n *int) {
	if n != nil {
		e.int(name, int64(*n))
	}
}

func (e *stateEncoder) boolean(name string, v bool) {
	e.key(name)
	e.b = strconv.AppendBool(e.b, v)
}

// trueOmit writes a bool tagged omitempty: only true is written.
func (e *stateEncoder) trueOmit(name string, v bool) {
	if v {
		e.key(name)
		e.b = append(e.b, "true"...)
	}
}

func (e *stateEncoder) float(name string, f float64) {
	e.key(name)
	e.floatValue(f)
}

// floatValue writes f; encoding/json refuses infinities and NaN.
func (e *stateEncoder) floatValue(f float64) {
	if !finite(f) {
		e.bad = true
		return
	}
	e.b = Float(e.b, f)
}

func finite(f float64) bool { return f-f == 0 }

func (e *stateEncoder) time(name string, t time.Time) {
	e.key(name)
	e.timeValue(t)
}

// timeOmitZero writes a time tagged omitzero (omitted when IsZero).
func (e *stateEncoder) timeOmitZero(name string, t time.Time) {
	if !t.IsZero() {
		e.time(name, t)
	}
}

// timeValue writes t; encoding/json refuses a time its MarshalJSON
// refuses.
func (e *stateEncoder) timeValue(t time.Time) {
	if !TimeOK(t) {
		e.bad = true
		return
	}
	e.b = Time(e.b, t)
}

// strs writes a list of strings: null when nil, as encoding/json does.
func (e *stateEncoder) strs(name string, s []string) {
	e.key(name)
	if s == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, v := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = String(e.b, v)
	}
	e.b = append(e.b, ']')
}

// strsOmit is strs for a field tagged omitempty (omitted when empty).
func (e *stateEncoder) strsOmit(name string, s []string) {
	if len(s) > 0 {
		e.strs(name, s)
	}
}

// ints writes a list of integers tagged omitempty.
func ints[T int64 | uint32](e *stateEncoder, name string, s []T) {
	if len(s) == 0 {
		return
	}
	e.key(name)
	e.b = append(e.b, '[')
	for i, v := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = strconv.AppendInt(e.b, int64(v), 10)
	}
	e.b = append(e.b, ']')
}

// list writes a list tagged omitempty, each element by each.
func list[T any](e *stateEncoder, name string, s []T, each func(*stateEncoder, *T)) {
	if len(s) == 0 {
		return
	}
	e.key(name)
	e.b = append(e.b, '[')
	for i := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		each(e, &s[i])
	}
	e.b = append(e.b, ']')
}

// floatMapOmit writes a map of numbers tagged omitempty, its keys sorted
// as encoding/json sorts them (byte by byte).
func (e *stateEncoder) floatMapOmit(name string, m map[string]float64) {
	if len(m) == 0 {
		return
	}
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	e.key(name)
	start := e.open()
	for _, k := range e.keys {
		e.b = append(e.b, ',')
		e.b = String(e.b, k)
		e.b = append(e.b, ':')
		e.floatValue(m[k])
	}
	e.close(start)
}
