package scoped

import (
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// Kinds of Rule.Kind: where a breaker's settings come from.
const (
	KindConfigured = "configured"
	KindTemplate   = "template"
	KindLoop       = "loop"
)

// Resolve is the one answer to "which settings does scope's breaker run
// by", for every way in: `serve` and its HTTP API (Policy), the loop
// commands, the hooks and `run` (EngineFor), `mcp` and `replay`.
//
//   - a breakers: entry for the scope: its threshold, window and cooldown
//     (KindConfigured);
//   - else a session or slice, a loop's own breaker: the top-level
//     failure_window and cooldown (KindLoop);
//   - else breaker_template (KindTemplate).
//
// Everything else (the detectors, half_open, on_error) is the top level's
// for every breaker. cfg must be valid.
func Resolve(cfg lb.Config, scope string) Rule {
	return resolveAt(&cfg, scope, slices.IndexFunc(cfg.Breakers, func(b lb.BreakerConfig) bool { return b.Scope == scope }))
}

// resolveAt is Resolve once the index of scope's breakers: entry is known
// (-1: none), so that a Policy can find it through its map. cfg is not
// copied: a Policy resolves several scopes per call, and lb.Config is
// large.
func resolveAt(cfg *lb.Config, scope string, i int) Rule {
	switch {
	case i >= 0:
		return Rule{Scope: scope, Config: cfg.Breakers[i], Configured: true, Kind: KindConfigured}
	case IsLoopScope(scope):
		r := loopSettings(cfg)
		r.Scope = scope
		return Rule{Scope: scope, Config: r, Kind: KindLoop}
	default:
		t := cfg.BreakerTemplate
		t.Scope = scope
		return Rule{Scope: scope, Config: t, Kind: KindTemplate}
	}
}

// loopSettings is the breaker settings of an unconfigured session or slice:
// the top-level cooldown and failure window.
func loopSettings(cfg *lb.Config) lb.BreakerConfig {
	return lb.BreakerConfig{
		FailureThreshold: cfg.FailureWindow.Threshold, Window: cfg.FailureWindow.Window,
		Cooldown: cfg.Cooldown, Notify: cfg.BreakerTemplate.Notify,
	}
}

// IsLoopScope reports whether scope is a loop's own breaker (session or
// slice): the one the loop commands, the hooks and `run` feed with every
// detector's signals, and whose unconfigured settings are the top-level
// ones.
func IsLoopScope(scope string) bool {
	return strings.HasPrefix(scope, KindSession+":") || strings.HasPrefix(scope, KindSlice+":")
}

// EngineFor is the engine of Resolve(cfg, scope), without validating cfg
// again or building every breaker's engine as NewPolicy does: what a
// one-shot command (check, record, a hook) needs on its hot path. cfg must
// be valid.
func EngineFor(cfg lb.Config, scope string, now func() time.Time) *breaker.Engine {
	return engineFor(cfg, Resolve(cfg, scope).Config, now)
}

// engineFor is the engine of one breaker: the base configuration with the
// breaker's threshold, window and cooldown.
func engineFor(base lb.Config, b lb.BreakerConfig, now func() time.Time) *breaker.Engine {
	c := base
	c.FailureWindow = lb.FailureWindowConfig{Threshold: b.FailureThreshold, Window: b.Window}
	c.Cooldown = b.Cooldown
	return &breaker.Engine{Config: c, Now: now}
}
