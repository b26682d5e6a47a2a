package scoped

import (
	"fmt"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// DefaultTemplateKinds are the kinds of scope that get a template breaker
// on first use: the ones that name a running thing (an agent, a session),
// which come and go and cannot be listed in a config file in advance.
// Categories, stakes, tags and slices are policy classes: they have a
// breaker only when `breakers:` configures one.
func DefaultTemplateKinds() []string { return []string{KindAgent, KindSession} }

// Rule is one breaker's policy: its scope and settings, and whether it was
// configured (else it comes from the template and may be evicted).
type Rule struct {
	Scope      string
	Config     lb.BreakerConfig
	Configured bool
}

// Policy says which breakers apply to a context and how each behaves. It is
// immutable once built and safe for concurrent use.
type Policy struct {
	base          lb.Config
	configured    []lb.BreakerConfig
	byScope       map[string]int
	template      lb.BreakerConfig
	templateKinds []string
	engines       []*breaker.Engine
	templateEng   *breaker.Engine
	// loopEng is the engine of session and slice scopes that no breaker
	// configures: the top-level settings, as every loop command uses them.
	loopEng    *breaker.Engine
	loopRule   lb.BreakerConfig
	evictAfter time.Duration
}

// NewPolicy builds the policy of cfg: cfg.Breakers are the configured
// breakers, cfg.BreakerTemplate the template for the context's own scopes of
// templateKinds (nil: DefaultTemplateKinds; empty: none). now is the clock
// of the engines (nil: time.Now).
func NewPolicy(cfg lb.Config, templateKinds []string, now func() time.Time) (*Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if templateKinds == nil {
		templateKinds = DefaultTemplateKinds()
	}
	for _, k := range templateKinds {
		switch k {
		case KindAgent, KindSession, KindSlice, KindCategory, KindStakes, KindTag:
		default:
			return nil, fmt.Errorf("template scope kind %q: want some of agent, session, slice, category, stakes, tag", k)
		}
	}
	p := &Policy{
		base:          cfg,
		byScope:       map[string]int{},
		template:      cfg.BreakerTemplate,
		templateKinds: slices.Clone(templateKinds),
		evictAfter:    cfg.EvictAfter,
	}
	for i, b := range cfg.Breakers {
		if j, dup := p.byScope[b.Scope]; dup {
			return nil, fmt.Errorf("breakers[%d].scope %q is already configured by breakers[%d]; list each scope once", i, b.Scope, j)
		}
		p.byScope[b.Scope] = i
		p.configured = append(p.configured, b)
		p.engines = append(p.engines, engineFor(cfg, b, now))
	}
	p.templateEng = engineFor(cfg, cfg.BreakerTemplate, now)
	p.loopRule = loopRule(cfg)
	p.loopEng = engineFor(cfg, p.loopRule, now)
	return p, nil
}

// loopRule is the breaker settings of an unconfigured session or slice:
// the top-level cooldown and failure window.
func loopRule(cfg lb.Config) lb.BreakerConfig {
	return lb.BreakerConfig{
		FailureThreshold: cfg.FailureWindow.Threshold, Window: cfg.FailureWindow.Window,
		Cooldown: cfg.Cooldown, Notify: cfg.BreakerTemplate.Notify,
	}
}

// EngineFor is Policy.Engine for one scope, without validating cfg again
// or building every breaker's engine: what a one-shot command (check,
// record, a hook) needs on its hot path. cfg must be valid.
func EngineFor(cfg lb.Config, scope string, now func() time.Time) *breaker.Engine {
	for _, b := range cfg.Breakers {
		if b.Scope == scope {
			return engineFor(cfg, b, now)
		}
	}
	if isLoopScope(scope) {
		return engineFor(cfg, loopRule(cfg), now)
	}
	return engineFor(cfg, cfg.BreakerTemplate, now)
}

// engineFor is the engine of one breaker: the base configuration with the
// breaker's threshold, window and cooldown.
func engineFor(base lb.Config, b lb.BreakerConfig, now func() time.Time) *breaker.Engine {
	c := base
	c.FailureWindow = lb.FailureWindowConfig{Threshold: b.FailureThreshold, Window: b.Window}
	c.Cooldown = b.Cooldown
	return &breaker.Engine{Config: c, Now: now}
}

// Enabled is the configuration's master switch.
func (p *Policy) Enabled() bool { return p.base.Enabled }

// EvictAfter is how long an idle template breaker is kept.
func (p *Policy) EvictAfter() time.Duration { return p.evictAfter }

// TemplateKinds are the kinds that get template breakers.
func (p *Policy) TemplateKinds() []string { return slices.Clone(p.templateKinds) }

// Configured lists the configured breakers in configuration order.
func (p *Policy) Configured() []Rule {
	out := make([]Rule, len(p.configured))
	for i, b := range p.configured {
		out[i] = Rule{Scope: b.Scope, Config: b, Configured: true}
	}
	return out
}

// isLoopScope reports whether scope is a loop's own breaker (session or
// slice), whose unconfigured settings are the top-level ones.
func isLoopScope(scope string) bool {
	return strings.HasPrefix(scope, KindSession+":") || strings.HasPrefix(scope, KindSlice+":")
}

// Rule returns the policy of scope: its configured breaker; else, for a
// session or slice, the top-level cooldown and failure_window (the same
// settings `loopbreaker check`, `record`, `run` and the hooks use); else the
// template (Configured false).
func (p *Policy) Rule(scope string) Rule {
	if i, ok := p.byScope[scope]; ok {
		return Rule{Scope: scope, Config: p.configured[i], Configured: true}
	}
	if isLoopScope(scope) {
		r := p.loopRule
		r.Scope = scope
		return Rule{Scope: scope, Config: r}
	}
	t := p.template
	t.Scope = scope
	return Rule{Scope: scope, Config: t}
}

// Engine returns the engine of scope: configured, the top-level one for an
// unconfigured session or slice, else the template's.
func (p *Policy) Engine(scope string) *breaker.Engine {
	if i, ok := p.byScope[scope]; ok {
		return p.engines[i]
	}
	if isLoopScope(scope) {
		return p.loopEng
	}
	return p.templateEng
}

// Match returns the breakers that apply to c: every configured breaker
// whose scope matches, in configuration order, then a template breaker for
// each of c's own scopes of a template kind that is not configured.
func (p *Policy) Match(c Context) []Rule {
	var out []Rule
	for _, b := range p.configured {
		if Matches(b.Scope, c) {
			out = append(out, Rule{Scope: b.Scope, Config: b, Configured: true})
		}
	}
	for _, s := range c.Own() {
		if _, ok := p.byScope[s]; ok || !slices.Contains(p.templateKinds, kindOf(s)) {
			continue
		}
		out = append(out, p.Rule(s))
	}
	return out
}
