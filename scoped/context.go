// Package scoped says which breakers apply to the work at hand and the
// settings each runs by. A check or an outcome comes with a Context
// (category, stakes, agent, tags, session, slice); every breaker whose
// scope matches it applies (Policy.Match), and Resolve gives one scope's
// settings, for every way in: the server, the loop commands, the hooks,
// `run`, `mcp` and `replay`.
//
// The breakers are those configured under `breakers:` plus, for the
// context's own agent and session (see Policy.TemplateKinds), breakers made
// on first use from `breaker_template:`; a session or slice no entry
// configures runs by the top-level settings.
//
// The package holds no state and does no I/O: the breakers themselves, as
// the server keeps them, are package breakerserver's.
package scoped

import (
	"fmt"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// Limits on a context, so that one request cannot create unbounded scopes.
const (
	MaxValueLen = lb.MaxScopeValueLen
	MaxTags     = 32
)

// Context describes the work a caller is about to do (check) or did
// (outcome); it selects the breakers that apply. Empty fields are unset.
type Context struct {
	Category string   `json:"category,omitempty"`
	Stakes   string   `json:"stakes,omitempty"`
	AgentID  string   `json:"agent_id,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Session  string   `json:"session,omitempty"`
	Slice    string   `json:"slice,omitempty"`
}

// Scope kinds, in the order template breakers are listed.
const (
	KindGlobal   = "global"
	KindAgent    = "agent"
	KindSession  = "session"
	KindSlice    = "slice"
	KindCategory = "category"
	KindStakes   = "stakes"
	KindTag      = "tag"
)

// SessionScope is the scope of the breaker of the session (the loop)
// named name: the one a hook, a loop command, `run` and a replay of that
// session feed.
func SessionScope(name string) string { return KindSession + ":" + name }

// Problems lists what is wrong with c, by JSON field name; empty when c is
// usable.
func (c Context) Problems() map[string]string {
	p := map[string]string{}
	check := func(field, v string) {
		if msg := valueProblem(v); msg != "" {
			p[field] = msg
		}
	}
	check("category", c.Category)
	check("stakes", c.Stakes)
	check("agent_id", c.AgentID)
	check("session", c.Session)
	check("slice", c.Slice)
	if len(c.Tags) > MaxTags {
		p["tags"] = fmt.Sprintf("has %d tags; send at most %d", len(c.Tags), MaxTags)
	}
	for i, t := range c.Tags {
		if t == "" {
			p[fmt.Sprintf("tags[%d]", i)] = "is empty; leave empty tags out"
			continue
		}
		check(fmt.Sprintf("tags[%d]", i), t)
	}
	return p
}

// valueProblem checks one value of a context as the value of a scope.
func valueProblem(v string) string { return lb.ScopeValueProblem(v) }

// Own lists the scopes named by the context's own values, kind by kind
// (agent, session, slice, category, stakes, tags), without global.
func (c Context) Own() []string {
	out := make([]string, 0, 5+len(c.Tags))
	add := func(kind, v string) {
		if v != "" {
			s := kind + ":" + v
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	add(KindAgent, c.AgentID)
	add(KindSession, c.Session)
	add(KindSlice, c.Slice)
	add(KindCategory, c.Category)
	add(KindStakes, c.Stakes)
	for _, t := range c.Tags {
		add(KindTag, t)
	}
	return out
}

// Matches reports whether a breaker of scope applies to c: global always,
// kind:value when c has that value (tag: when it is one of c's tags).
func Matches(scope string, c Context) bool {
	if scope == KindGlobal {
		return true
	}
	kind, v, ok := strings.Cut(scope, ":")
	if !ok || v == "" {
		return false
	}
	switch kind {
	case KindCategory:
		return c.Category == v
	case KindStakes:
		return c.Stakes == v
	case KindAgent:
		return c.AgentID == v
	case KindSession:
		return c.Session == v
	case KindSlice:
		return c.Slice == v
	case KindTag:
		return slices.Contains(c.Tags, v)
	}
	return false
}

// kindOf returns the kind of a scope ("global" for global).
func kindOf(scope string) string {
	kind, _, _ := strings.Cut(scope, ":")
	return kind
}
