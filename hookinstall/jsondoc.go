package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A settings file is edited in place: only the value of its "hooks" key is
// rewritten, every other byte stays as the user wrote it (key order,
// spacing, escapes). encoding/json maps would lose the order, so objects
// are read as ordered members with their offsets.

// member is one key of a JSON object and where it sits in the source.
type member struct {
	key string
	// raw is the value, verbatim.
	raw json.RawMessage
	// start is the offset of the key's opening quote; valStart/valEnd
	// delimit the value.
	start, valStart, valEnd int
}

// object is a parsed JSON object over its source bytes.
type object struct {
	src []byte
	// open and close are the offsets of '{' and '}'.
	open, close int
	members     []member
}

// parseObject reads src as exactly one JSON object (whitespace around it
// allowed).
func parseObject(src []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{src: src, open: int(dec.InputOffset()) - 1}
	for dec.More() {
		prev := int(dec.InputOffset())
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		start := prev
		for start < len(src) && (isSpace(src[start]) || src[start] == ',') {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		vs := end - len(raw)
		if vs < 0 || !bytes.Equal(src[vs:end], raw) {
			return nil, fmt.Errorf("cannot locate the value of %q", key)
		}
		o.members = append(o.members, member{key: key, raw: raw, start: start, valStart: vs, valEnd: end})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	o.close = int(dec.InputOffset()) - 1
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level object")
	}
	return o, nil
}

// isSpace reports JSON's insignificant whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// find returns the index of the last member named key (encoding/json lets
// the last duplicate win too), or -1.
func (o *object) find(key string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return i
		}
	}
	return -1
}

// indent returns the whitespace before the first member on its line (the
// indentation of one level inside this object) and whether the object is
// laid out over several lines at all.
func (o *object) indent() (string, bool) {
	if len(o.members) == 0 {
		return "", false
	}
	s := o.members[0].start
	i := s
	for i > 0 && (o.src[i-1] == ' ' || o.src[i-1] == '\t') {
		i--
	}
	if i == 0 || o.src[i-1] != '\n' {
		return "", false
	}
	return string(o.src[i:s]), true
}

// lineIndent is the whitespace that starts the line holding offset at.
func lineIndent(src []byte, at int) string {
	i := at
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[i:j])
}

// replaceValue returns src with member i's value replaced by value.
func (o *object) replaceValue(i int, value []byte) []byte {
	m := o.members[i]
	out := make([]byte, 0, len(o.src)-len(m.raw)+len(value))
	out = append(out, o.src[:m.valStart]...)
	out = append(out, value...)
	return append(out, o.src[m.valEnd:]...)
}

// addMember returns src with key: value appended as the last member.
// ind is the members' indentation ("" for a one-line object).
func (o *object) addMember(key string, value []byte, ind string, multiline bool) []byte {
	k, _ := json.Marshal(key)
	var ins []byte
	at := o.open + 1
	if len(o.members) > 0 {
		at = o.members[len(o.members)-1].valEnd
		ins = append(ins, ',')
	}
	if multiline {
		ins = append(ins, '\n')
		ins = append(ins, ind...)
	} else if len(o.members) > 0 {
		ins = append(ins, ' ')
	}
	ins = append(ins, k...)
	ins = append(ins, ": "...)
	ins = append(ins, value...)
	if len(o.members) == 0 && multiline {
		// The object was empty: close it on its own line.
		ins = append(ins, '\n')
		ins = append(ins, lineIndent(o.src, o.open)...)
	}
	out := append([]byte(nil), o.src[:at]...)
	out = append(out, ins...)
	rest := o.src[at:]
	if len(o.members) == 0 {
		// Drop whatever whitespace sat between the braces.
		rest = o.src[o.close:]
	}
	return append(out, rest...)
}

// removeMember returns src without member i (and its comma).
func (o *object) removeMember(i int) []byte {
	m := o.members[i]
	var from, to int
	switch {
	case len(o.members) == 1:
		from, to = o.open+1, o.close
	case i > 0:
		// From the end of the previous value: takes the comma before.
		from, to = o.members[i-1].valEnd, m.valEnd
	default:
		// First of several: from its key to the next key, so that the
		// next member takes its place (and its indentation).
		from, to = m.start, o.members[1].start
	}
	out := append([]byte(nil), o.src[:from]...)
	return append(out, o.src[to:]...)
}

// compactObject renders members as a compact JSON object, in order.
func compactObject(keys []string, vals []json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := json.Compact(&b, vals[i]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// compactArray renders elements as a compact JSON array.
func compactArray(elems []json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := json.Compact(&b, e); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// indentUnit guesses one level of indentation from a top-level member
// indentation ("  ", "    " or "\t"); two spaces when unknown.
func indentUnit(ind string) string {
	if ind == "" {
		return "  "
	}
	return ind
}

// objectElems splits a JSON array whose elements are all objects; ok is
// false for anything else (legacy non-event keys such as "disabled").
func objectElems(raw json.RawMessage) ([]json.RawMessage, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	for _, e := range elems {
		if t := bytes.TrimSpace(e); len(t) == 0 || t[0] != '{' {
			return nil, false
		}
	}
	return elems, true
}
