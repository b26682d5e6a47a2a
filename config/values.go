package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Parsed values are int64, bool, time.Duration or string; leaf.set converts
// them to the field's type.

// parseText parses a raw value from the environment or a flag.
func (l *leaf) parseText(raw string) (any, error) {
	switch l.typ {
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
	}
	if tag != "!!str" {
		return nil, fmt.Errorf("want a string, got %s (quote it if you mean the text)", describeNode(n))
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

// want names what a key expects, for messages.
func (l *leaf) want() string {
	switch l.typ {
	case TypeInt:
		return "an integer"
	case TypeBool:
		return "true or false"
	case TypeDuration:
		return "a duration such as 30m"
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
	}
	return fmt.Sprint(v)
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
