package jsonenc_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
)

// strs are strings encoding/json escapes in its own ways: HTML
// characters, control characters, line separators, invalid UTF-8.
var strs = []string{"", "a", "stakes:high", "<a&b>", "tab\there\n", "\x00\x1f", "\b\f\x7f", "~!@#$%^*()_+{}|:?/.,;[]=-`", "line\u2028sep\u2029", "é€😀", "bad\xff\xfeutf8", `quote"back\slash`}

// floats cover encoding/json's switch between plain and exponent forms.
var floats = []float64{0, 9.999999999999999e20, 0.0000010000000000000002, 1.5e300, -2.25e-10, math.Copysign(0, -1), 0.1, 1, 2.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 3.75e-3, -0.000001, math.MaxFloat64, math.SmallestNonzeroFloat64}

// fill sets every field reachable from v to a random value of its kind:
// nil and empty slices, maps and pointers included.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := []int64{0, 1, -1, 3, math.MaxInt32, int64(90 * time.Minute)}[r.IntN(6)]
		if !v.OverflowInt(n) {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(300)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(floats[r.IntN(len(floats))])
	case reflect.String:
		v.SetString(strs[r.IntN(len(strs))])
	case reflect.Pointer:
		if r.IntN(3) == 0 || depth > 6 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(3), 3)
			for i := range s.Len() {
				fill(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.IntN(4) == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for range r.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(r, k, depth+1)
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

func same(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := jsonenc.Marshal(v)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("jsonenc.Marshal = %s (%v)\nencoding/json      = %s (%v)", got, err, want, wantErr)
	}
}

// The configuration and the hook fingerprint's document, filled at
// random many times over, encode to encoding/json's bytes: a field added
// to lb.Config with a kind Marshal gets wrong fails here.
func TestMarshalIsEncodingJSON(t *testing.T) {
	type place struct {
		Path      string
		Installed hookinstall.Installed
	}
	type doc struct {
		Config any
		Hooks  []place
	}
	d := lb.Defaults()
	same(t, doc{Config: &d})
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var cfg lb.Config
		fill(r, reflect.ValueOf(&cfg).Elem(), 0)
		var hooks []place
		fill(r, reflect.ValueOf(&hooks).Elem(), 0)
		same(t, doc{Config: &cfg, Hooks: hooks})
		same(t, cfg)
	}
}

type withMarshaler struct{ N int }

func (w withMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type withText struct{ N int }

func (w *withText) MarshalText() ([]byte, error) { return []byte("text"), nil }

type inner struct{ A, B int }

// What Marshal does not walk itself comes out as encoding/json makes it:
// own marshallers, tag options, embedded fields, bytes, duplicate names,
// and errors.
func TestMarshalLeavesTheRestToEncodingJSON(t *testing.T) {
	type tagged struct {
		A int    `json:"a,omitempty"`
		B string `json:",string"`
		C int    `json:"-"`
		D int    `json:"-,"`
		E int    `json:"e"`
	}
	type embedded struct {
		inner
		C int
	}
	type dup struct {
		X int `json:"Y"`
		Y int
	}
	for _, v := range []any{
		nil, 3, "x", []byte("bytes"), [2]byte{1, 2}, map[string]int{"b": 1, "a": 2},
		withMarshaler{1}, &withText{2}, []withText{{3}}, map[string]withMarshaler{"k": {}},
		tagged{E: 1}, embedded{inner{1, 2}, 3}, dup{1, 2},
		map[int]string{2: "b", 1: "a"}, struct{ F float32 }{0.1}, struct{ P *int }{},
	} {
		same(t, v)
	}
	for _, v := range []any{math.NaN(), math.Inf(1), struct{ C chan int }{}, func() {}} {
		if _, err := jsonenc.Marshal(v); err == nil {
			t.Errorf("Marshal(%T) gave no error, as encoding/json does", v)
		}
	}
	type node struct{ Next *node }
	n := &node{}
	n.Next = n
	if _, err := jsonenc.Marshal(n); err == nil {
		t.Error("a cycle gave no error, as encoding/json does")
	}
}
