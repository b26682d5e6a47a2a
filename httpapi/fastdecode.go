package httpapi

import (
	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// The bodies of checks and outcomes are nearly always the same plain
// shape: one object of ASCII strings and a "context" object. parseFlat
// reads exactly that shape, and nothing else, without encoding/json's
// reflection (a fifth of the server's own work per request); anything it
// does not take (escapes, other characters, numbers, null, duplicate or
// unknown keys, keys spelled in another case, trailing data) goes to
// encoding/json, which decides and explains as before. What parseFlat
// takes, it reads as encoding/json would (FuzzFlatMatchesEncodingJSON).

// flatRequest is a request parseFlat can fill.
type flatRequest interface {
	// set takes a top-level string member; false: not one of the type's.
	set(key, value string) bool
	// context is the request's context, for the "context" member (nil:
	// the type has none).
	context() *scoped.Context
}

func (r *checkRequest) set(string, string) bool  { return false }
func (r *checkRequest) context() *scoped.Context { return &r.Context }

func (r *outcomeRequest) set(key, value string) bool {
	switch key {
	case "decision_id":
		r.DecisionID = value
	case "result":
		r.Result = lb.OutcomeResult(value)
	case "reason":
		r.Reason = value
	default:
		return false
	}
	return true
}
func (r *outcomeRequest) context() *scoped.Context { return &r.Context }

// setContext takes a string member of a context.
func setContext(c *scoped.Context, key, value string) bool {
	switch key {
	case "category":
		c.Category = value
	case "stakes":
		c.Stakes = value
	case "agent_id":
		c.AgentID = value
	case "session":
		c.Session = value
	case "slice":
		c.Slice = value
	default:
		return false
	}
	return true
}

// flatParser reads data from i.
type flatParser struct {
	data []byte
	i    int
}

func (p *flatParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips white space and takes c.
func (p *flatParser) next(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str takes a string of printable ASCII without escapes.
func (p *flatParser) str() (string, bool) {
	if !p.next('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			s := string(p.data[start:p.i])
			p.i++
			return s, true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return "", false
		}
		p.i++
	}
	return "", false
}

// members takes an object's members, handing each key to member; false
// when the object is not the plain shape, a key comes twice, or member
// refuses one.
func (p *flatParser) members(member func(key string) bool) bool {
	if !p.next('{') {
		return false
	}
	if p.next('}') {
		return true
	}
	var seen []string
	for {
		key, ok := p.str()
		if !ok || !p.next(':') {
			return false
		}
		for _, k := range seen {
			if k == key {
				return false
			}
		}
		seen = append(seen, key)
		if !member(key) {
			return false
		}
		if p.next('}') {
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}

// parseFlat fills v from data when data is the plain shape; false leaves
// v in any state (the caller decodes a fresh one with encoding/json).
func parseFlat(data []byte, v flatRequest) bool {
	p := &flatParser{data: data}
	ok := p.members(func(key string) bool {
		if key == "context" {
			c := v.context()
			return c != nil && p.members(func(key string) bool {
				if key == "tags" {
					return p.tags(c)
				}
				value, ok := p.str()
				return ok && setContext(c, key, value)
			})
		}
		value, ok := p.str()
		return ok && v.set(key, value)
	})
	p.space()
	return ok && p.i == len(data)
}

// tags takes a context's tags: an array of strings.
func (p *flatParser) tags(c *scoped.Context) bool {
	if !p.next('[') {
		return false
	}
	c.Tags = []string{}
	if p.next(']') {
		return true
	}
	for {
		s, ok := p.str()
		if !ok {
			return false
		}
		c.Tags = append(c.Tags, s)
		if p.next(']') {
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}
