package loopbreaker

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Config holds every setting of the breaker. The yaml tags are the keys of
// loopbreaker.yaml; package config loads them with their provenance.
type Config struct {
	// Enabled is the master switch: when false every check and record lets
	// the agent go on and nothing is recorded.
	Enabled bool `yaml:"enabled"`
	// OnError says what to do when the breaker itself fails (corrupt state,
	// I/O error): "stop" halts the agent loudly, "continue" lets it go on
	// with a loud warning.
	OnError string `yaml:"on_error"`
	// Cooldown is how long OPEN lasts before it moves to HALF_OPEN (probe).
	Cooldown time.Duration `yaml:"cooldown"`
	// AutoReset resets an OPEN breaker when a loop starts (Ralph's
	// CB_AUTO_RESET).
	AutoReset bool `yaml:"auto_reset"`
	// ProbeTimeout is how long a half-open probe may stay unanswered before
	// another caller may take it.
	ProbeTimeout time.Duration `yaml:"probe_timeout"`
	// WarnMargin: a detector warns (HALF_OPEN) when its count reaches
	// threshold - WarnMargin. 0 disables warnings.
	WarnMargin int `yaml:"warn_margin"`

	NoProgress        NoProgressConfig    `yaml:"no_progress"`
	SameError         SameErrorConfig     `yaml:"same_error"`
	OutputDecline     OutputDeclineConfig `yaml:"output_decline"`
	PhaseFailure      ThresholdConfig     `yaml:"phase_failure"`
	PermissionDenials ThresholdConfig     `yaml:"permission_denials"`
	TestAttempts      TestAttemptsConfig  `yaml:"test_attempts"`
	FailureWindow     FailureWindowConfig `yaml:"failure_window"`
	ToolCalls         ToolCallsConfig     `yaml:"tool_calls"`
	Budget            BudgetConfig        `yaml:"budget"`
	// Prices price the tokens of each model (USD per million tokens).
	Prices []Price `yaml:"prices"`
	// Tamper: attempts of the agent to silence its breaker (refused by
	// the hook) that open it; a change detected after the fact opens it
	// at once. 0 refuses the attempts without counting them.
	Tamper  ThresholdConfig        `yaml:"tamper"`
	Phases  map[Phase]PhaseProfile `yaml:"phases"`
	Journal JournalConfig          `yaml:"journal"`

	// Run configures the loop supervisor (`loopbreaker run`).
	Run RunConfig `yaml:"run"`
	// Scope is the slice's scope lock.
	Scope ScopeConfig `yaml:"scope"`

	// Breakers are scoped breakers over reviewed outcomes.
	Breakers []BreakerConfig `yaml:"breakers"`
	// BreakerTemplate configures breakers for scopes not listed in
	// Breakers, created on first use (Scope is ignored).
	BreakerTemplate BreakerConfig `yaml:"breaker_template"`
	// EvictAfter forgets a template breaker that is CLOSED with no failures
	// and unused for this long.
	EvictAfter time.Duration `yaml:"evict_after"`
	Server     ServerConfig  `yaml:"server"`
	Notify     NotifyConfig  `yaml:"notify"`

	// Store is where the breakers live: "" for the project's state
	// directory (embedded), or redis://host:port/db (rediss:// for TLS)
	// for breakers a fleet of machines shares.
	Store string `yaml:"store"`
	// TrustedStores are store URLs a project file (loopbreaker.yaml, which
	// a cloned repository controls) may name; a store it names that is not
	// listed is refused. Only the user file, the environment and flags can
	// set it.
	TrustedStores []string `yaml:"trusted_stores"`

	// StateDir is the directory that holds the state of every project,
	// one directory per project under projects/, outside the projects'
	// work trees so that an agent searching its project never finds
	// loopbreaker's files. "" means $XDG_STATE_HOME/loopbreaker, else
	// ~/.local/state/loopbreaker. It must be absolute. Package config
	// refuses it in a project's loopbreaker.yaml: a cloned repository
	// could point it anywhere.
	StateDir string `yaml:"state_dir"`
}

// RunConfig configures `loopbreaker run`.
type RunConfig struct {
	// MaxIterations stops the loop after this many iterations (0: no limit).
	MaxIterations int `yaml:"max_iterations"`
	// IterationTimeout stops an iteration that runs longer (0: no limit).
	// An agent CLI without a network may wait for it forever, so an
	// unattended loop has one by default.
	IterationTimeout time.Duration `yaml:"iteration_timeout"`
	// MaxWait bounds how long the loop waits for an agent's usage limit
	// to reset before it stops instead (0: it never waits).
	MaxWait time.Duration `yaml:"max_wait"`
	// KeepOutputs is how many iterations' outputs are kept in the state
	// directory.
	KeepOutputs int `yaml:"keep_outputs"`
	// Checkpoint tags a checkpoint before the first attempt of a slice.
	Checkpoint bool `yaml:"checkpoint"`
	// CompletionSignals is how many iterations in a row must signal
	// completion before the loop ends (Ralph's dual exit gate asks for
	// two): an agent that says it is done once, on a guess, is asked once
	// more.
	CompletionSignals int `yaml:"completion_signals"`
	// ContinueSession runs every iteration after the first in the agent's
	// own session of the previous one (claude --resume, codex exec
	// resume, gemini --resume), instead of a fresh agent each time.
	ContinueSession bool `yaml:"continue_session"`
}

// ScopeConfig is the scope lock: which files an agent may edit for the
// current slice. Globs use the syntax of path.Match plus "**".
type ScopeConfig struct {
	// Allow: edits need no justification.
	Allow []string `yaml:"allow"`
	// Justify: edits need a one-sentence justification tied to the
	// failing test (`loopbreaker scope justify`).
	Justify []string `yaml:"justify"`
	// Deny: edits are refused.
	Deny []string `yaml:"deny"`
	// FilesInScope names a JSON file with {"files_in_scope": [...]}, whose
	// files are allowed too.
	FilesInScope string `yaml:"files_in_scope"`
}

// BreakerConfig is one scoped breaker.
type BreakerConfig struct {
	// Scope is global, category:X, stakes:X, agent:X, tag:X, session:X
	// or slice:X.
	Scope            string        `yaml:"scope"`
	FailureThreshold int           `yaml:"failure_threshold"`
	Window           time.Duration `yaml:"window"`
	Cooldown         time.Duration `yaml:"cooldown"`
	Notify           bool          `yaml:"notify"`
}

// ServerConfig configures `loopbreaker serve`.
type ServerConfig struct {
	Addr         string `yaml:"addr"`
	MaxBodyBytes int64  `yaml:"max_body_bytes"`
}

// NotifyConfig configures webhook notifications of state changes.
type NotifyConfig struct {
	// WebhookURL receives a JSON POST per state change ("" disables).
	WebhookURL string `yaml:"webhook_url"`
	// Command is run by sh -c per state change, with the change in
	// LOOPBREAKER_* variables ("" disables): desktop notifications.
	Command string `yaml:"command"`
	// Debounce is the least time between two notifications of one scope.
	Debounce time.Duration `yaml:"debounce"`
	// Desktop shows each notification on the desktop (notify-send on
	// Linux, osascript on macOS), debounced as the webhook is.
	Desktop bool `yaml:"desktop"`
	// Retries is how often a failed delivery is retried, with backoff.
	Retries int           `yaml:"retries"`
	Timeout time.Duration `yaml:"timeout"`
}

// NoProgressConfig configures the no-progress detector.
type NoProgressConfig struct {
	// Threshold: consecutive iterations without progress that open the
	// breaker (the phase profile may override it).
	Threshold int `yaml:"threshold"`
	// FilesCount makes changed files count as progress.
	FilesCount bool `yaml:"files_count"`
}

// SameErrorConfig configures the same-error detector.
type SameErrorConfig struct {
	// Threshold: consecutive iterations with the same normalised error
	// signature that open the breaker (the phase profile may override it).
	Threshold int `yaml:"threshold"`
	// SessionThreshold: times any one signature may be seen since the last
	// reset before the breaker opens. 0 means Threshold.
	SessionThreshold int `yaml:"session_threshold"`
}

// OutputDeclineConfig configures the output-decline detector: an iteration
// declines when its output is below Percent % of the mean of the previous
// Window measured iterations (at least MinSamples of them). Threshold
// consecutive declining iterations without progress open the breaker.
type OutputDeclineConfig struct {
	Percent    int `yaml:"percent"`
	Window     int `yaml:"window"`
	MinSamples int `yaml:"min_samples"`
	Threshold  int `yaml:"threshold"`
}

// ThresholdConfig is a detector configured by one count.
type ThresholdConfig struct {
	Threshold int `yaml:"threshold"`
}

// TestAttemptsConfig configures the per-test attempts and the slice ceiling.
type TestAttemptsConfig struct {
	PerTest  int `yaml:"per_test"`
	PerSlice int `yaml:"per_slice"`
}

// FailureWindowConfig configures the sliding window of reviewed outcomes
// of scoped breakers: Threshold failures within Window open the breaker.
type FailureWindowConfig struct {
	Threshold int           `yaml:"threshold"`
	Window    time.Duration `yaml:"window"`
}

// ToolCallsConfig configures tool-call loop detection (hooks): identical
// calls with identical results in a row, short cycles (A,B,A,B… of length
// 2–5) repeated, and the same call failing with the same error with no edit
// in between.
type ToolCallsConfig struct {
	RepeatWarn int `yaml:"repeat_warn"`
	Repeat     int `yaml:"repeat"`
	CycleWarn  int `yaml:"cycle_warn"`
	Cycle      int `yaml:"cycle"`
	SameError  int `yaml:"same_error"`
	// History is how many recent calls are remembered.
	History int `yaml:"history"`
	// ErrorAfterEdit: failing runs, each after an edit, with the same
	// normalised error (infrastructure errors included) that open the
	// breaker; 0 disables the detector.
	ErrorAfterEdit int `yaml:"error_after_edit"`
	// NoNewInfo: calls in a row that bring no new information: each
	// answers what a call with other arguments among the last NoNewInfo
	// answered already (with their own arguments removed, or word for
	// word), or nothing; 0 disables.
	NoNewInfo int `yaml:"no_new_info"`
	// NearDuplicate: calls in a row that are one call with one changing
	// argument and the same result; 0 disables.
	NearDuplicate int `yaml:"near_duplicate"`
	// NoEffect: tool calls since the last one that changed something (an
	// edit whose effect a later run shows, a test that improved, a new
	// turn): reading and searching that never leads to an applied edit,
	// and edits after which the same run answers the same; 0 disables.
	NoEffect int `yaml:"no_effect"`
}

// DefaultNoEffect is tool_calls.no_effect's default, calibrated on public
// recorded runs (docs/detection.md#work-that-changes-nothing).
const DefaultNoEffect = 40

// BudgetConfig caps what an agent may spend; a budget of 0 is off. Each
// budget warns at WarnPercent % of it and opens the breaker at 100 %.
type BudgetConfig struct {
	// CallsPerHour: model calls within the last hour (Ralph's
	// MAX_CALLS_PER_HOUR).
	CallsPerHour int `yaml:"calls_per_hour"`
	// SessionTokens and SessionCost (USD) cap the breaker's whole spend;
	// SliceTokens and SliceCost the current slice's.
	SessionTokens int64   `yaml:"session_tokens"`
	SessionCost   float64 `yaml:"session_cost"`
	SliceTokens   int64   `yaml:"slice_tokens"`
	SliceCost     float64 `yaml:"slice_cost"`
	// TokensWithoutProgress caps the tokens spent since the last progress.
	TokensWithoutProgress int64 `yaml:"tokens_without_progress"`
	// WarnPercent is the share of a budget at which it warns (0: never).
	WarnPercent int `yaml:"warn_percent"`
	// OnCallsPerHour says what reaching CallsPerHour does: CallsHalt opens
	// the breaker, CallsPause has `loopbreaker run` wait until the hour's
	// window has room again (the breaker does not open for it).
	OnCallsPerHour string `yaml:"on_calls_per_hour"`
}

// OnCallsPerHour values.
const (
	CallsHalt  = "halt"
	CallsPause = "pause"
)

// PhaseProfile overrides thresholds for one phase.
type PhaseProfile struct {
	NoProgress int `yaml:"no_progress"`
	SameError  int `yaml:"same_error"`
}

// JournalConfig bounds the journal.
type JournalConfig struct {
	// MaxBytes rotates the journal when it grows past this size; 0 never.
	MaxBytes int64 `yaml:"max_bytes"`
	// Keep is how many rotated journals to keep.
	Keep int `yaml:"keep"`
	// Fsync flushes every write to disk (power-loss safety); a killed
	// process loses nothing either way.
	Fsync bool `yaml:"fsync"`
	// MaxEntries bounds each scope's journal in a Redis store (a stream
	// trimmed to about this many entries); 0 never trims.
	MaxEntries int `yaml:"max_entries"`
	// MaxAge trims Redis journal entries older than this; 0 never.
	MaxAge time.Duration `yaml:"max_age"`
}

// Defaults returns the defaults: TDD phase profiles, Ralph's knobs
// (no progress 3, same error 5, permission denials 2, output decline 70 %,
// cooldown 30 min), 3 attempts per test and 7 per slice.
func Defaults() Config {
	return Config{
		Enabled:      true,
		OnError:      OnErrorStop,
		Cooldown:     30 * time.Minute,
		ProbeTimeout: 10 * time.Minute,
		WarnMargin:   1,
		NoProgress:   NoProgressConfig{Threshold: 3, FilesCount: true},
		SameError:    SameErrorConfig{Threshold: 5},
		OutputDecline: OutputDeclineConfig{
			Percent: 70, Window: 5, MinSamples: 3, Threshold: 2,
		},
		PhaseFailure:      ThresholdConfig{Threshold: 3},
		PermissionDenials: ThresholdConfig{Threshold: 2},
		Tamper:            ThresholdConfig{Threshold: 2},
		TestAttempts:      TestAttemptsConfig{PerTest: 3, PerSlice: 7},
		FailureWindow:     FailureWindowConfig{Threshold: 5, Window: time.Hour},
		ToolCalls: ToolCallsConfig{RepeatWarn: 3, Repeat: 5, CycleWarn: 3, Cycle: 5, SameError: 3, History: 30,
			ErrorAfterEdit: 4, NoNewInfo: 6, NearDuplicate: 6, NoEffect: DefaultNoEffect},
		Budget: BudgetConfig{CallsPerHour: 100, TokensWithoutProgress: DefaultTokensWithoutProgress, WarnPercent: 80, OnCallsPerHour: CallsHalt},
		Prices: DefaultPrices(),
		Phases: map[Phase]PhaseProfile{
			PhaseRed:      {NoProgress: 3, SameError: 5},
			PhaseGreen:    {NoProgress: 2, SameError: 3},
			PhaseRefactor: {NoProgress: 5, SameError: 5},
			PhaseDocument: {NoProgress: 3, SameError: 5},
		},
		Journal: JournalConfig{MaxBytes: 32 << 20, Keep: 3, MaxEntries: 10000},
		Run:     RunConfig{KeepOutputs: 50, Checkpoint: true, IterationTimeout: 15 * time.Minute, MaxWait: 6 * time.Hour, CompletionSignals: 1},
		BreakerTemplate: BreakerConfig{
			FailureThreshold: 5, Window: time.Hour, Cooldown: 30 * time.Minute, Notify: true,
		},
		EvictAfter: 24 * time.Hour,
		Server:     ServerConfig{Addr: "127.0.0.1:7777", MaxBodyBytes: 1 << 20},
		Notify:     NotifyConfig{Debounce: time.Minute, Retries: 3, Timeout: 5 * time.Second},
	}
}

// OnError values.
const (
	OnErrorStop     = "stop"
	OnErrorContinue = "continue"
)

// NoProgressThreshold is the no-progress threshold in phase p.
func (c *Config) NoProgressThreshold(p Phase) int {
	if p == PhaseNone {
		return c.NoProgress.Threshold
	}
	if prof, ok := c.Phases[p]; ok && prof.NoProgress > 0 {
		return prof.NoProgress
	}
	return c.NoProgress.Threshold
}

// SameErrorThreshold is the consecutive same-error threshold in phase p.
func (c *Config) SameErrorThreshold(p Phase) int {
	if p == PhaseNone {
		return c.SameError.Threshold
	}
	if prof, ok := c.Phases[p]; ok && prof.SameError > 0 {
		return prof.SameError
	}
	return c.SameError.Threshold
}

// SessionErrorThreshold is how often one signature may be seen since reset.
func (c *Config) SessionErrorThreshold() int {
	if c.SameError.SessionThreshold > 0 {
		return c.SameError.SessionThreshold
	}
	return c.SameError.Threshold
}

// WarnAt is the count at which a detector with threshold t warns; 0 when
// warnings are off or t leaves no room for one.
func (c *Config) WarnAt(t int) int {
	if c.WarnMargin <= 0 || t-c.WarnMargin < 1 {
		return 0
	}
	return t - c.WarnMargin
}

// Validate reports the first setting that makes no sense, naming its key.
// Each section has its validator; they run in this order.
func (c *Config) Validate() error {
	for _, v := range []func(*Config) error{
		(*Config).validateDetectors,
		(*Config).validateOutputDecline,
		(*Config).validateLoop,
		(*Config).validateToolCalls,
		(*Config).validateFailureWindow,
		func(c *Config) error { return c.Budget.validate() },
		(*Config).validatePrices,
		(*Config).validateWarnMargin,
		(*Config).validatePhases,
		(*Config).validateRun,
		(*Config).validateBreakers,
		(*Config).validateServer,
	} {
		if err := v(c); err != nil {
			return err
		}
	}
	return nil
}

// validateDetectors: every detector's threshold is at least 1; the ones
// that may be 0 say what 0 means.
func (c *Config) validateDetectors() error {
	for _, chk := range append(c.warnedThresholds(), []namedInt{
		{"output_decline.window", c.OutputDecline.Window},
		{"output_decline.min_samples", c.OutputDecline.MinSamples},
		{"output_decline.threshold", c.OutputDecline.Threshold},
		{"failure_window.threshold", c.FailureWindow.Threshold},
		{"tool_calls.repeat", c.ToolCalls.Repeat},
		{"tool_calls.cycle", c.ToolCalls.Cycle},
	}...) {
		if chk.v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", chk.key, chk.v)
		}
	}
	if c.SameError.SessionThreshold < 0 {
		return fmt.Errorf("same_error.session_threshold must be 0 (same as threshold) or more, got %d", c.SameError.SessionThreshold)
	}
	if c.Tamper.Threshold < 0 {
		return fmt.Errorf("tamper.threshold must be 0 (refuse without counting) or more, got %d", c.Tamper.Threshold)
	}
	return nil
}

func (c *Config) validateOutputDecline() error {
	if c.OutputDecline.Percent < 1 || c.OutputDecline.Percent > 100 {
		return fmt.Errorf("output_decline.percent must be between 1 and 100, got %d", c.OutputDecline.Percent)
	}
	if c.OutputDecline.MinSamples > c.OutputDecline.Window {
		return fmt.Errorf("output_decline.min_samples (%d) cannot exceed output_decline.window (%d)", c.OutputDecline.MinSamples, c.OutputDecline.Window)
	}
	return nil
}

// validateLoop: where the state lives and how a loop's breaker behaves.
func (c *Config) validateLoop() error {
	if c.StateDir != "" && !filepath.IsAbs(c.StateDir) {
		return fmt.Errorf("state_dir must be an absolute path, got %q (write it in full, e.g. /home/me/.local/state/loopbreaker)", c.StateDir)
	}
	if c.OnError != OnErrorStop && c.OnError != OnErrorContinue {
		return fmt.Errorf("on_error must be %q or %q, got %q", OnErrorStop, OnErrorContinue, c.OnError)
	}
	if c.Cooldown < 0 {
		return fmt.Errorf("cooldown must not be negative, got %s", c.Cooldown)
	}
	if c.ProbeTimeout <= 0 {
		return fmt.Errorf("probe_timeout must be positive, got %s", c.ProbeTimeout)
	}
	return nil
}

func (c *Config) validateToolCalls() error {
	t := &c.ToolCalls
	if t.ErrorAfterEdit < 0 || t.NoNewInfo < 0 || t.NearDuplicate < 0 || t.NoEffect < 0 {
		return fmt.Errorf("tool_calls.error_after_edit, tool_calls.no_new_info, tool_calls.near_duplicate and tool_calls.no_effect must be 0 (off) or more")
	}
	if t.RepeatWarn < 0 || t.CycleWarn < 0 {
		return fmt.Errorf("tool_calls.repeat_warn and tool_calls.cycle_warn must be 0 (no warning) or more")
	}
	// no_new_info reads its run of calls off the history.
	if t.History < 2*t.Cycle || t.History < t.Repeat || t.History < t.NoNewInfo {
		return fmt.Errorf("tool_calls.history (%d) must hold at least tool_calls.repeat, tool_calls.no_new_info and 2×tool_calls.cycle calls: raise it or lower those", t.History)
	}
	return nil
}

func (c *Config) validateFailureWindow() error {
	if c.FailureWindow.Threshold > MaxFailureThreshold {
		return fmt.Errorf("failure_window.threshold must be at most %d (a breaker keeps at most %d failures in its window, so it would never open), got %d",
			MaxFailureThreshold, MaxFailureThreshold, c.FailureWindow.Threshold)
	}
	if c.FailureWindow.Window <= 0 {
		return fmt.Errorf("failure_window.window must be positive, got %s", c.FailureWindow.Window)
	}
	return nil
}

func (c *Config) validatePrices() error {
	for i, p := range c.Prices {
		if p.Model == "" {
			return fmt.Errorf("prices[%d].model is empty: name the model (or the start of its name) the entry prices", i)
		}
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return fmt.Errorf("prices[%d] (%s): a price must not be negative", i, p.Model)
		}
	}
	return nil
}

func (c *Config) validatePhases() error {
	for p, prof := range c.Phases {
		switch p {
		case PhaseRed, PhaseGreen, PhaseRefactor, PhaseDocument:
		default:
			return fmt.Errorf("phases.%s: unknown phase (use RED, GREEN, REFACTOR or DOCUMENT)", p)
		}
		if prof.NoProgress < 0 || prof.SameError < 0 {
			return fmt.Errorf("phases.%s: thresholds must not be negative", p)
		}
	}
	return nil
}

// validateRun: `loopbreaker run`'s settings.
func (c *Config) validateRun() error {
	if c.Run.CompletionSignals < 1 {
		return fmt.Errorf("run.completion_signals must be at least 1 (iterations in a row that signal completion), got %d", c.Run.CompletionSignals)
	}
	if c.Run.MaxIterations < 0 || c.Run.IterationTimeout < 0 || c.Run.KeepOutputs < 0 || c.Run.MaxWait < 0 {
		return fmt.Errorf("run.max_iterations, run.iteration_timeout, run.max_wait and run.keep_outputs must not be negative")
	}
	return nil
}

// validateBreakers: the scoped breakers, configured and template.
func (c *Config) validateBreakers() error {
	for i, b := range c.Breakers {
		if err := b.validate(fmt.Sprintf("breakers[%d]", i), true); err != nil {
			return err
		}
	}
	if err := c.BreakerTemplate.validate("breaker_template", false); err != nil {
		return err
	}
	if c.EvictAfter <= 0 {
		return fmt.Errorf("evict_after must be positive, got %s", c.EvictAfter)
	}
	return nil
}

// validateServer: `loopbreaker serve`, its webhooks and its journal.
func (c *Config) validateServer() error {
	if c.Server.MaxBodyBytes <= 0 {
		return fmt.Errorf("server.max_body_bytes must be positive, got %d", c.Server.MaxBodyBytes)
	}
	if c.Notify.Debounce < 0 || c.Notify.Retries < 0 || c.Notify.Timeout <= 0 {
		return fmt.Errorf("notify.debounce and notify.retries must not be negative, notify.timeout must be positive")
	}
	if c.Journal.MaxBytes < 0 || c.Journal.Keep < 0 || c.Journal.MaxEntries < 0 || c.Journal.MaxAge < 0 {
		return fmt.Errorf("journal.max_bytes, journal.keep, journal.max_entries and journal.max_age must not be negative")
	}
	return nil
}

// namedInt is a setting's value with its key, for messages.
type namedInt struct {
	key string
	v   int
}

// warnedThresholds are the thresholds (each at least 1) of the detectors
// that warn at their threshold minus warn_margin.
func (c *Config) warnedThresholds() []namedInt {
	return []namedInt{
		{"no_progress.threshold", c.NoProgress.Threshold},
		{"same_error.threshold", c.SameError.Threshold},
		{"phase_failure.threshold", c.PhaseFailure.Threshold},
		{"permission_denials.threshold", c.PermissionDenials.Threshold},
		{"test_attempts.per_test", c.TestAttempts.PerTest},
		{"test_attempts.per_slice", c.TestAttempts.PerSlice},
		{"tool_calls.same_error", c.ToolCalls.SameError},
	}
}

// validateWarnMargin refuses a warn_margin that leaves no count to warn at:
// a detector warns at its threshold minus the margin, so a margin as large
// as every threshold silently turns warnings off, which 0 says plainly.
func (c *Config) validateWarnMargin() error {
	largest, key := 0, ""
	for _, t := range append(c.warnedThresholds(), namedInt{"same_error.session_threshold", c.SameError.SessionThreshold}, namedInt{"tamper.threshold", c.Tamper.Threshold}) {
		if t.v > largest {
			largest, key = t.v, t.key
		}
	}
	if c.WarnMargin < 0 || c.WarnMargin >= largest {
		return fmt.Errorf("warn_margin must be between 0 (no warnings) and %d (one less than the largest threshold, %s: %d), got %d: a detector warns at its threshold minus the margin",
			max(largest-1, 0), key, largest, c.WarnMargin)
	}
	return nil
}

// MaxFailureThreshold is the largest failure threshold a breaker can
// reach: it keeps at most this many failures in its window (package
// breaker), so a larger threshold would never open it.
const MaxFailureThreshold = 1000

// validate checks one breaker's settings; key names it in errors.
func (b BreakerConfig) validate(key string, needScope bool) error {
	if needScope {
		if err := ValidScope(b.Scope); err != nil {
			return fmt.Errorf("%s.scope: %w", key, err)
		}
	}
	if b.FailureThreshold < 1 {
		return fmt.Errorf("%s.failure_threshold must be at least 1, got %d", key, b.FailureThreshold)
	}
	if b.FailureThreshold > MaxFailureThreshold {
		return fmt.Errorf("%s.failure_threshold must be at most %d (a breaker keeps at most %d failures in its window, so it would never open), got %d",
			key, MaxFailureThreshold, MaxFailureThreshold, b.FailureThreshold)
	}
	if b.Window <= 0 {
		return fmt.Errorf("%s.window must be positive, got %s", key, b.Window)
	}
	if b.Cooldown < 0 {
		return fmt.Errorf("%s.cooldown must not be negative, got %s", key, b.Cooldown)
	}
	return nil
}

// DefaultTokensWithoutProgress is budget.tokens_without_progress's default.
const DefaultTokensWithoutProgress = 5_000_000

func (b BudgetConfig) validate() error {
	if b.CallsPerHour < 0 || b.SessionTokens < 0 || b.SliceTokens < 0 || b.TokensWithoutProgress < 0 || b.SessionCost < 0 || b.SliceCost < 0 {
		return fmt.Errorf("budget.* must be 0 (no budget) or more")
	}
	if b.CallsPerHour > MaxHourCalls {
		return fmt.Errorf("budget.calls_per_hour must be at most %d, got %d", MaxHourCalls, b.CallsPerHour)
	}
	if b.WarnPercent < 0 || b.WarnPercent > 100 {
		return fmt.Errorf("budget.warn_percent must be between 0 (no warning) and 100, got %d", b.WarnPercent)
	}
	if b.OnCallsPerHour != CallsHalt && b.OnCallsPerHour != CallsPause {
		return fmt.Errorf("budget.on_calls_per_hour must be %q (open the breaker) or %q (loopbreaker run waits until the hour has room), got %q", CallsHalt, CallsPause, b.OnCallsPerHour)
	}
	return nil
}

// StoreIsRedis reports whether a store setting names Redis (redis:// or
// rediss://) rather than a state directory.
func StoreIsRedis(store string) bool {
	return strings.HasPrefix(store, "redis://") || strings.HasPrefix(store, "rediss://")
}
