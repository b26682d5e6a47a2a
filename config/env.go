package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

const envPrefix = "LOOPBREAKER_"

// NonConfigEnv lists the LOOPBREAKER_ variables that are not settings, so
// Load lets them pass instead of reporting them as unknown keys. A name
// ending in "*" allows every variable with that prefix. Any other
// LOOPBREAKER_ variable must be a setting: add new non-setting variables
// here.
func NonConfigEnv() []string {
	return []string{
		"LOOPBREAKER_DIR",
		"LOOPBREAKER_NOW",
		"LOOPBREAKER_CALLER",
		"LOOPBREAKER_SESSION",
		"LOOPBREAKER_CONFIG",
		"LOOPBREAKER_ADMIN_TOKEN",
		"LOOPBREAKER_READ_TOKEN",
		// The Redis store's credentials (store: redis://...): never
		// settings, so that `config` never prints them.
		"LOOPBREAKER_REDIS_USERNAME",
		"LOOPBREAKER_REDIS_PASSWORD",
		"LOOPBREAKER_WARNING",
		"LOOPBREAKER_WARNING_FILE",
		"LOOPBREAKER_GUIDANCE",
		"LOOPBREAKER_GUIDANCE_FILE",
		"LOOPBREAKER_ITERATION",
		"LOOPBREAKER_HOOK_*",
		// The thin hook client's and the resident breaker's own: the
		// client forwards its whole environment with each call.
		"LOOPBREAKER_RESIDENT",
		"LOOPBREAKER_RESIDENT_IDLE",
		// The test tooling's (scripts/test, the real-agent tier): they
		// reach loopbreaker through the environment of the tests.
		"LOOPBREAKER_AGENTS_DIR",
		"LOOPBREAKER_E2E",
		"LOOPBREAKER_E2E_*",
		"LOOPBREAKER_TEST_LOGS",
	}
}

// OwnVariable reports whether name is a variable that decides where
// loopbreaker keeps its state and configuration, which breaker a call
// feeds, how it runs, or what it measures: every LOOPBREAKER_ variable,
// Ralph's aliases, the home and XDG directories the state, the user file
// and the resident breaker's socket are found under, PATH (which git,
// which loopbreaker) and git's own variables (which repository). A hook obeys these only from the environment
// the person started the agent CLI in, never from a file the agent can
// write (hookpolicy, internal/cli hook_env.go).
func OwnVariable(name string) bool {
	switch name {
	case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "PATH":
		return true
	}
	if strings.HasPrefix(name, "GIT_") {
		return true
	}
	for _, a := range ralphAliases() {
		if name == a.name {
			return true
		}
	}
	return strings.HasPrefix(name, envPrefix)
}

func isNonConfigEnv(name string) bool {
	for _, n := range NonConfigEnv() {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if name == n {
			return true
		}
	}
	return false
}

// envAlias is a variable from another tool that sets one of our keys.
type envAlias struct {
	name  string
	key   string
	parse func(l *leaf, raw string) (any, error)
}

// ralphAliases are the variables of Ralph for Claude Code
// (lib/circuit_breaker.sh), so people migrating keep their knobs. They rank
// below the LOOPBREAKER_ name of the same key.
func ralphAliases() []envAlias {
	text := func(l *leaf, raw string) (any, error) { return l.parseText(raw) }
	return []envAlias{
		{"CB_NO_PROGRESS_THRESHOLD", "no_progress.threshold", text},
		{"CB_SAME_ERROR_THRESHOLD", "same_error.threshold", text},
		// Ralph documents this as "output declines by more than N%", while
		// output_decline.percent means "below N% of the rolling average".
		// Both default to 70; the number is taken as is, not converted, so
		// a migrated value keeps its number but not Ralph's exact meaning.
		{"CB_OUTPUT_DECLINE_THRESHOLD", "output_decline.percent", text},
		{"CB_PERMISSION_DENIAL_THRESHOLD", "permission_denials.threshold", text},
		{"CB_COOLDOWN_MINUTES", "cooldown", func(_ *leaf, raw string) (any, error) {
			n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
			if err != nil || n > math.MaxInt64/int64(time.Minute) || n < math.MinInt64/int64(time.Minute) {
				return nil, fmt.Errorf("want a whole number of minutes, got %q", raw)
			}
			return time.Duration(n) * time.Minute, nil
		}},
		{"CB_AUTO_RESET", "auto_reset", text},
		{"MAX_CALLS_PER_HOUR", "budget.calls_per_hour", text},
	}
}

// fromEnv reads the environment layer. An empty variable counts as unset,
// except for a list of strings, where it is an empty list (so that a
// variable can clear a list set in a file).
func (s *schema) fromEnv(env map[string]string) ([]setting, []error) {
	var out []setting
	var errs []error
	add := func(lf *leaf, name, raw string, parse func(*leaf, string) (any, error)) {
		src := Source{Kind: KindEnv, Name: name}
		v, err := parse(lf, raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %v", src, lf.key, err))
			return
		}
		out = append(out, setting{leaf: lf, value: v, src: src})
	}

	// Aliases first, so that the LOOPBREAKER_ name, applied later, wins. A
	// shadowed alias is not even parsed: the user chose the other value.
	for _, a := range ralphAliases() {
		lf := s.byKey[a.key]
		raw := env[a.name]
		if lf == nil || raw == "" || env[envName(a.key)] != "" {
			continue
		}
		add(lf, a.name, raw, a.parse)
	}

	names := make([]string, 0, len(env))
	for name := range env {
		if strings.HasPrefix(name, envPrefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	// Every key's variable is named only when a variable may set one: a
	// hook call's environment usually holds none, and this is most of
	// what reading the environment costs.
	var byEnv map[string]*leaf
	for _, name := range names {
		if isNonConfigEnv(name) {
			continue
		}
		if msg := s.refused(name, envName, "from the environment"); msg != "" {
			if env[name] != "" {
				errs = append(errs, fmt.Errorf("env %s: %s", name, msg))
			}
			continue
		}
		if byEnv == nil {
			byEnv = make(map[string]*leaf, len(s.leaves))
			for _, lf := range s.leaves {
				byEnv[envName(lf.key)] = lf
			}
		}
		lf := byEnv[name]
		if lf == nil {
			errs = append(errs, fmt.Errorf("env %s: not a loopbreaker setting%s; unset it (every LOOPBREAKER_* variable is read as a setting, except those listed in docs/configuration.md)",
				name, suggestEnv(name, byEnv)))
			continue
		}
		if env[name] == "" && lf.typ != TypeStringList {
			continue
		}
		add(lf, name, env[name], func(l *leaf, raw string) (any, error) { return l.parseText(raw) })
	}
	return out, errs
}

// refused explains why name, a variable or flag key as spelled by nameOf,
// cannot set anything: a list of mappings (or a part of one) or an unused
// key. "" when it is not refused. how says where the value came from.
func (s *schema) refused(name string, nameOf func(key string) string, how string) string {
	for key, msg := range unusedKeys() {
		if name == nameOf(key) {
			return msg
		}
	}
	for _, lf := range s.leaves {
		if lf.typ != TypeMappingList {
			continue
		}
		whole := nameOf(lf.key)
		if name == whole || strings.HasPrefix(name, whole+"_") || strings.HasPrefix(name, whole+".") || strings.HasPrefix(name, whole+"[") {
			return fmt.Sprintf("%s cannot be set %s; list its entries in %s (%s:, then one \"- %s: ...\" per entry)",
				lf.key, how, ProjectFile, lf.key, lf.elem.names()[0])
		}
	}
	return ""
}

func suggestEnv(name string, byEnv map[string]*leaf) string {
	// Compare without the shared prefix, which would make every name look
	// close to every other.
	cands := make([]string, 0, len(byEnv))
	for n := range byEnv {
		cands = append(cands, strings.TrimPrefix(n, envPrefix))
	}
	for _, n := range NonConfigEnv() {
		if !strings.HasSuffix(n, "*") {
			cands = append(cands, strings.TrimPrefix(n, envPrefix))
		}
	}
	if best := closest(strings.TrimPrefix(name, envPrefix), cands); best != "" {
		return " (did you mean " + envPrefix + best + "?)"
	}
	return ""
}
