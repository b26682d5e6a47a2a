package scoped

import (
	"fmt"
	"slices"
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
	// Kind is where Config comes from: KindConfigured, KindLoop or
	// KindTemplate.
	Kind string
}

// Policy says which breakers apply to a context and how each behaves. It is
// immutable once built and safe for concurrent use.
type Policy struct {
	base          lb.Config
	configured    []lb.BreakerConfig
	byScope       map[string]int
	templateKinds []string
	engines       []*breaker.Engine
	templateEng   *breaker.Engine
	// loopEng is the engine of session and slice scopes that no breaker
	// configures: the top-level settings, as every loop command uses them.
	loopEng    *breaker.Engine
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
	p.loopEng = engineFor(cfg, loopSettings(&cfg), now)
	return p, nil
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
		out[i] = resolveAt(&p.base, b.Scope, i)
	}
	return out
}

// Rule returns the policy of scope, as Resolve decides it.
func (p *Policy) Rule(scope string) Rule {
	i, ok := p.byScope[scope]
	if !ok {
		i = -1
	}
	return resolveAt(&p.base, scope, i)
}

// Engine returns the engine of scope's rule (see Rule), built once per
// configured breaker, once for the loops and once for the template.
func (p *Policy) Engine(scope string) *breaker.Engine {
	// As resolveAt decides the kind, without building the Rule.
	switch i, ok := p.byScope[scope]; {
	case ok:
		return p.engines[i]
	case IsLoopScope(scope):
		return p.loopEng
	default:
		return p.templateEng
	}
}

// Match returns the breakers that apply to c: every configured breaker
// whose scope matches, in configuration order, then a template breaker for
// each of c's own scopes of a template kind that is not configured.
func (p *Policy) Match(c Context) []Rule {
	own := c.Own()
	// Room for the usual match in one allocation, not one per doubling
	// (every check and outcome matches).
	out := make([]Rule, 0, min(len(p.configured), 8)+len(own))
	for i, b := range p.configured {
		if Matches(b.Scope, c) {
			out = append(out, resolveAt(&p.base, b.Scope, i))
		}
	}
	for _, s := range own {
		if _, ok := p.byScope[s]; ok || !slices.Contains(p.templateKinds, kindOf(s)) {
			continue
		}
		out = append(out, p.Rule(s))
	}
	return out
}
