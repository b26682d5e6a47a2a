package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Parsed values are int64, bool, time.Duration, string, []string or
// entryList; leaf.set converts them to the field's type.

// parseText parses a raw value from the environment or a flag. A list of
// strings is comma-separated ("src/**, docs/*.md"); an empty value is an
// empty list. A list of mappings cannot be written this way.
func (l *leaf) parseText(raw string) (any, error) {
	switch l.typ {
	case TypeStringList:
		return splitList(raw)
	case TypeMappingList:
		return nil, fmt.Errorf("a list of mappings can only be set in loopbreaker.yaml")
	case TypeInt:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %q", raw)
		}
		return l.checkRange(n)
	case TypeBool:
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("want true or false, got %q", raw)
	case TypeDuration:
		return parseDuration(strings.TrimSpace(raw))
	case TypeNumber:
		return parseNumber(strings.TrimSpace(raw))
	}
	return raw, nil
}

// parseNode parses a YAML value. Only the YAML type that matches the key is
// accepted: a quoted "5" is not an integer and 1800 is not a duration.
func (l *leaf) parseNode(n *yaml.Node) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("want %s, got %s", l.want(), describeNode(n))
	}
	tag := n.ShortTag()
	if tag == "!!null" {
		return nil, fmt.Errorf("no value; write %s or delete the line to use the default", l.want())
	}
	switch l.typ {
	case TypeInt:
		var i int64
		if tag != "!!int" || n.Decode(&i) != nil {
			return nil, fmt.Errorf("want an integer, got %s", describeNode(n))
		}
		return l.checkRange(i)
	case TypeBool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return nil, fmt.Errorf("want true or false, got %s", describeNode(n))
		}
		return b, nil
	case TypeDuration:
		return parseDuration(n.Value)
	case TypeNumber:
		if tag != "!!int" && tag != "!!float" {
			return nil, fmt.Errorf("want a number such as 2.50, got %s", describeNode(n))
		}
		return parseNumber(n.Value)
	}
	if tag != "!!str" {
		return nil, fmt.Errorf("want a string, got %s (quote it if you mean the text)", describeNode(n))
	}
	return n.Value, nil
}

// parseNumber reads a decimal number; infinities and NaN are refused.
func parseNumber(s string) (any, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("want a number such as 2.50, got %q", s)
	}
	return f, nil
}

// splitList splits a comma-separated list, trimming spaces around items.
// An empty item is refused: it is a stray comma, never a useful pattern.
func splitList(raw string) ([]string, error) {
	if strings.TrimSpace(raw) == "" {
		return []string{}, nil
	}
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("want a comma-separated list such as src/**,docs/*.md, but item %d of %q is empty; remove the stray comma", i+1, raw)
		}
	}
	return parts, nil
}

// listItem reads one string of a list of strings.
func listItem(n *yaml.Node) (string, error) {
	switch {
	case n.Kind != yaml.ScalarNode:
		return "", fmt.Errorf("want a string, got %s", describeNode(n))
	case n.ShortTag() == "!!null":
		return "", fmt.Errorf("want a string, got nothing")
	case n.ShortTag() != "!!str":
		return "", fmt.Errorf("want a string, got %s (quote it if you mean the text)", describeNode(n))
	case n.Value == "":
		return "", fmt.Errorf("empty string; delete it (write [] for an empty list)")
	}
	return n.Value, nil
}

// checkRange rejects integers the field cannot hold.
func (l *leaf) checkRange(n int64) (any, error) {
	if l.goType != nil && l.goType.Size() < 8 {
		bits := l.goType.Size() * 8
		if lim := int64(1) << (bits - 1); n >= lim || n < -lim {
			return nil, fmt.Errorf("%d is out of range", n)
		}
	}
	return n, nil
}

// parseDuration takes Go syntax only. A bare number is refused (except 0,
// which needs no unit) because "30" could mean seconds or minutes.
func parseDuration(s string) (any, error) {
	if s == "0" {
		return time.Duration(0), nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return nil, fmt.Errorf("want a duration, got the bare number %s: write 30m or 1800s (a unit is required)", s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("want a duration such as 30m or 1h30m, got %q", s)
	}
	return d, nil
}

const wantStringList = `a list of strings such as ["src/**", "docs/*.md"] ([] for none)`

// want names what a key expects, for messages.
func (l *leaf) want() string {
	switch l.typ {
	case TypeInt:
		return "an integer"
	case TypeBool:
		return "true or false"
	case TypeDuration:
		return "a duration such as 30m"
	case TypeNumber:
		return "a number such as 2.50"
	case TypeStringList:
		return wantStringList
	case TypeMappingList:
		return "a list of mappings, one per entry ([] for none)"
	}
	return "a string"
}

// describeNode shows a YAML value in a message.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "something else"
}

// formatValue writes a value as it would appear in YAML (without quotes).
func formatValue(v any) string {
	switch x := v.(type) {
	case time.Duration:
		return formatDuration(x)
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return listJSON(rv)
	}
	return fmt.Sprint(v)
}

// listJSON writes a list on one line as JSON, which YAML reads too:
// strings quoted, durations as "30m", struct fields under their yaml names
// in field order.
func listJSON(v reflect.Value) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v reflect.Value) {
	switch {
	case v.Type() == durationType:
		b.WriteString(quoteJSON(formatDuration(time.Duration(v.Int()))))
	case v.Kind() == reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, v.Index(i))
		}
		b.WriteByte(']')
	case v.Kind() == reflect.Struct:
		b.WriteByte('{')
		first := true
		for i := 0; i < v.NumField(); i++ {
			name, ok := yamlName(v.Type().Field(i))
			if !ok {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(quoteJSON(name))
			b.WriteByte(':')
			writeJSON(b, v.Field(i))
		}
		b.WriteByte('}')
	case v.Kind() == reflect.String:
		b.WriteString(quoteJSON(v.String()))
	case v.Kind() == reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case v.CanInt():
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case v.CanFloat():
		b.WriteString(strconv.FormatFloat(v.Float(), 'f', -1, 64))
	default:
		b.WriteString(quoteJSON(fmt.Sprint(v.Interface())))
	}
}

// quoteJSON quotes s for JSON, leaving <, > and & (common in globs and
// URLs) readable.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// formatDuration drops the zero units Go prints: 30m, 1h30m, 45s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
