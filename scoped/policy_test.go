package scoped

import (
	"slices"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func TestMatch(t *testing.T) {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 50, Window: time.Hour},
		{Scope: "category:tooling", FailureThreshold: 4, Window: time.Hour},
		{Scope: "stakes:high", FailureThreshold: 2, Window: time.Hour},
		{Scope: "tag:deploy", FailureThreshold: 2, Window: time.Hour},
		{Scope: "agent:bob", FailureThreshold: 9, Window: time.Hour},
		{Scope: "slice:s1", FailureThreshold: 7, Window: time.Hour},
	}
	p, err := NewPolicy(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ctx  Context
		want []string
	}{
		{"empty context: only global", Context{}, []string{"global"}},
		{"category and stakes that are configured", Context{Category: "tooling", Stakes: "high"},
			[]string{"global", "category:tooling", "stakes:high"}},
		{"unconfigured category and stakes get no breaker", Context{Category: "docs", Stakes: "low"}, []string{"global"}},
		{"a new agent gets a template breaker", Context{AgentID: "alice"}, []string{"global", "agent:alice"}},
		{"a configured agent uses its own", Context{AgentID: "bob"}, []string{"global", "agent:bob"}},
		{"tags match one by one, unconfigured tags get none", Context{Tags: []string{"x", "deploy", "deploy"}},
			[]string{"global", "tag:deploy"}},
		{"session is a template kind, slice is not (unless configured)", Context{Session: "loop1", Slice: "s2"},
			[]string{"global", "session:loop1"}},
		{"configured slice", Context{Slice: "s1"}, []string{"global", "slice:s1"}},
		{"everything", Context{Category: "tooling", Stakes: "high", AgentID: "alice", Tags: []string{"deploy"}, Session: "loop1", Slice: "s1"},
			[]string{"global", "category:tooling", "stakes:high", "tag:deploy", "slice:s1", "agent:alice", "session:loop1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range p.Match(tt.ctx) {
				got = append(got, r.Scope)
				if r.Configured != slices.ContainsFunc(cfg.Breakers, func(b lb.BreakerConfig) bool { return b.Scope == r.Scope }) {
					t.Errorf("%s: Configured = %v", r.Scope, r.Configured)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Match(%+v) = %v, want %v", tt.ctx, got, tt.want)
			}
		})
	}
}

func TestTemplateKindsAreConfigurable(t *testing.T) {
	cfg := lb.Defaults()
	p, err := NewPolicy(cfg, []string{KindTag, KindSlice}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Match(Context{AgentID: "a", Session: "s", Slice: "x", Tags: []string{"t1", "t2"}}) {
		got = append(got, r.Scope)
	}
	if want := []string{"slice:x", "tag:t1", "tag:t2"}; !slices.Equal(got, want) {
		t.Fatalf("Match = %v, want %v", got, want)
	}
	if got := p.Match(Context{AgentID: "a"}); len(got) != 0 {
		t.Fatalf("agent is not a template kind here, got %v", got)
	}
	if _, err := NewPolicy(cfg, []string{"global"}, nil); err == nil || !strings.Contains(err.Error(), "template scope kind") {
		t.Fatalf("global as a template kind: err = %v", err)
	}
}

// twoBreakers: a global breaker, a stakes:high one that trips at 2 in a
// day, and the template that trips at 3 in an hour.
func twoBreakers() lb.Config {
	cfg := lb.Defaults()
	cfg.Breakers = []lb.BreakerConfig{
		{Scope: "global", FailureThreshold: 100, Window: time.Hour, Cooldown: 30 * time.Minute},
		{Scope: "stakes:high", FailureThreshold: 2, Window: 24 * time.Hour, Cooldown: time.Hour},
	}
	cfg.BreakerTemplate = lb.BreakerConfig{FailureThreshold: 3, Window: time.Hour, Cooldown: 10 * time.Minute}
	return cfg
}

func TestPolicyEnginesUseEachBreakersSettings(t *testing.T) {
	cfg := twoBreakers()
	p, err := NewPolicy(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Engine("stakes:high").Config
	if e.FailureWindow.Threshold != 2 || e.FailureWindow.Window != 24*time.Hour || e.Cooldown != time.Hour {
		t.Fatalf("stakes:high engine: %+v %v", e.FailureWindow, e.Cooldown)
	}
	e = p.Engine("agent:zed").Config
	if e.FailureWindow.Threshold != 3 || e.FailureWindow.Window != time.Hour || e.Cooldown != 10*time.Minute {
		t.Fatalf("template engine: %+v %v", e.FailureWindow, e.Cooldown)
	}
	if r := p.Rule("agent:zed"); r.Configured || r.Config.Scope != "agent:zed" || r.Config.FailureThreshold != 3 {
		t.Fatalf("Rule(agent:zed) = %+v", r)
	}
}

func TestPolicyRejectsBadConfig(t *testing.T) {
	cfg := twoBreakers()
	cfg.Breakers = append(cfg.Breakers, lb.BreakerConfig{Scope: "stakes:high", FailureThreshold: 1, Window: time.Hour})
	_, err := NewPolicy(cfg, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "breakers[2].scope \"stakes:high\" is already configured by breakers[1]") {
		t.Fatalf("duplicate scope: err = %v", err)
	}
	cfg = twoBreakers()
	cfg.Breakers[0].Scope = "team:x"
	if _, err := NewPolicy(cfg, nil, nil); err == nil || !strings.Contains(err.Error(), "breakers[0].scope") {
		t.Fatalf("unknown kind: err = %v", err)
	}
}

func TestContextProblems(t *testing.T) {
	tests := []struct {
		ctx   Context
		field string
	}{
		{Context{AgentID: "a\nb"}, "agent_id"},
		{Context{Session: " s"}, "session"},
		{Context{Category: strings.Repeat("x", MaxValueLen+1)}, "category"},
		{Context{Tags: []string{"ok", ""}}, "tags[1]"},
		{Context{Tags: make([]string, MaxTags+1)}, "tags"},
		{Context{Stakes: "\xff"}, "stakes"},
	}
	for _, tt := range tests {
		if p := tt.ctx.Problems(); p[tt.field] == "" {
			t.Errorf("Problems(%+v) = %v, want one for %s", tt.ctx, p, tt.field)
		}
	}
	if p := (Context{AgentID: "bob", Tags: []string{"a b"}}).Problems(); len(p) != 0 {
		t.Errorf("a good context has problems: %v", p)
	}
}

// A session (or slice) breaker that no entry configures uses the top-level
// cooldown and failure_window, the settings the loop commands use; an entry
// for it overrides them everywhere.
func TestPolicySessionUsesTopLevelSettings(t *testing.T) {
	cfg := lb.Defaults()
	cfg.Cooldown = 7 * time.Minute
	cfg.FailureWindow = lb.FailureWindowConfig{Threshold: 4, Window: 2 * time.Hour}
	cfg.BreakerTemplate = lb.BreakerConfig{FailureThreshold: 9, Window: time.Hour, Cooldown: time.Minute}
	cfg.Breakers = []lb.BreakerConfig{{Scope: "session:pinned", FailureThreshold: 2, Window: time.Hour, Cooldown: time.Hour}}
	p, err := NewPolicy(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Engine("session:free"); e.Config.Cooldown != 7*time.Minute || e.Config.FailureWindow.Threshold != 4 {
		t.Fatalf("unconfigured session: cooldown %v threshold %d, want the top-level 7m and 4", e.Config.Cooldown, e.Config.FailureWindow.Threshold)
	}
	if r := p.Rule("slice:s1"); r.Config.FailureThreshold != 4 || r.Config.Cooldown != 7*time.Minute || r.Configured {
		t.Fatalf("unconfigured slice rule: %+v", r)
	}
	if e := p.Engine("session:pinned"); e.Config.Cooldown != time.Hour || e.Config.FailureWindow.Threshold != 2 {
		t.Fatalf("configured session: %v %d", e.Config.Cooldown, e.Config.FailureWindow.Threshold)
	}
	if e := p.Engine("agent:x"); e.Config.Cooldown != time.Minute || e.Config.FailureWindow.Threshold != 9 {
		t.Fatalf("agent from the template: %v %d", e.Config.Cooldown, e.Config.FailureWindow.Threshold)
	}
	// EngineFor, the one-scope shortcut of the CLI, follows the same rule.
	for _, scope := range []string{"session:free", "slice:s1", "session:pinned", "agent:x", "stakes:high"} {
		if got, want := EngineFor(cfg, scope, nil).Config, p.Engine(scope).Config; got.Cooldown != want.Cooldown || got.FailureWindow != want.FailureWindow {
			t.Errorf("EngineFor(%s): cooldown %v window %+v, Policy.Engine: %v %+v", scope, got.Cooldown, got.FailureWindow, want.Cooldown, want.FailureWindow)
		}
	}
}
