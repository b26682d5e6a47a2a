package jsonenc

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Marshal returns json.Marshal(v) without encoding/json's per-type
// caches: encoding/json builds, for each struct type it meets, a table of its
// fields and an encoder for each of them, and keeps it for the life of
// the process. A process that encodes a large type once (each hook call
// hashes the whole configuration for its fingerprint) spends more building
// those tables than encoding. Marshal walks the value with reflection
// instead, for structs, slices, arrays, maps with string keys, pointers,
// interfaces, booleans, numbers and strings; anything else (a type with
// its own marshaller, a tag option, an embedded field, a byte slice) is
// left to encoding/json, so the bytes are always encoding/json's.
func Marshal(v any) ([]byte, error) {
	e := encoder{}
	if e.value(reflect.ValueOf(v), 0) {
		return e.buf, nil
	}
	return json.Marshal(v)
}

// maxDepth bounds the walk: a value that deep is likely a cycle, which
// encoding/json reports.
const maxDepth = 200

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

type encoder struct {
	buf []byte
	// customs remembers custom's answer per type: looking up *T of a type
	// the program never names is a search of every type's name.
	customs map[reflect.Type]bool
}

// custom reports whether t (or *t) encodes itself.
func (e *encoder) custom(t reflect.Type) bool {
	c, ok := e.customs[t]
	if ok {
		return c
	}
	c = t.Implements(jsonMarshaler) || t.Implements(textMarshaler)
	if !c && t.Kind() != reflect.Pointer {
		p := reflect.PointerTo(t)
		c = p.Implements(jsonMarshaler) || p.Implements(textMarshaler)
	}
	if e.customs == nil {
		e.customs = map[reflect.Type]bool{}
	}
	e.customs[t] = c
	return c
}

// value appends v; false means v holds something only encoding/json
// encodes as it should, and the caller falls back to it.
func (e *encoder) value(v reflect.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return true
	}
	if e.custom(v.Type()) {
		return false
	}
	switch v.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32:
		return e.delegate(float32(v.Float()))
	case reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false // encoding/json's error
		}
		e.buf = Float(e.buf, f)
	case reflect.String:
		e.buf = String(e.buf, v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return true
		}
		return e.value(v.Elem(), depth+1)
	case reflect.Struct:
		return e.structValue(v, depth)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // base64, or a type of its own
		}
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return true
		}
		return e.list(v, depth)
	case reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		return e.list(v, depth)
	case reflect.Map:
		return e.mapValue(v, depth)
	default:
		return false
	}
	return true
}

// delegate appends what encoding/json makes of a number.
func (e *encoder) delegate(x any) bool {
	b, err := json.Marshal(x)
	if err != nil {
		return false
	}
	e.buf = append(e.buf, b...)
	return true
}

func (e *encoder) list(v reflect.Value, depth int) bool {
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if !e.value(v.Index(i), depth+1) {
			return false
		}
	}
	e.buf = append(e.buf, ']')
	return true
}

func (e *encoder) structValue(v reflect.Value, depth int) bool {
	t := v.Type()
	e.buf = append(e.buf, '{')
	first := true
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false // promoted fields: encoding/json's rules
		}
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			n, opts, _ := strings.Cut(tag, ",")
			if opts != "" || !plainName(n) {
				return false // omitempty, string, omitzero; names needing care
			}
			if n != "" {
				name = n
			}
		}
		if slices.Contains(names, name) {
			return false // encoding/json drops both
		}
		names = append(names, name)
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = String(e.buf, name)
		e.buf = append(e.buf, ':')
		if !e.value(v.Field(i), depth+1) {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	return true
}

// plainName reports whether a tag's name is one encoding/json takes as
// it is: letters, digits and a few punctuation marks.
func plainName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (e *encoder) mapValue(v reflect.Value, depth int) bool {
	if v.Type().Key().Kind() != reflect.String || e.custom(v.Type().Key()) {
		return false
	}
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return true
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = String(e.buf, k.String())
		e.buf = append(e.buf, ':')
		if !e.value(v.MapIndex(k), depth+1) {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	return true
}
