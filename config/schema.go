package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker"
)

// Value types of keys.
const (
	TypeInt      = "int"
	TypeBool     = "bool"
	TypeDuration = "duration"
	// TypeNumber is a decimal number (US dollars, prices).
	TypeNumber = "number"
	TypeString = "string"
	// TypeStringList is a YAML list of strings (a single string is a list
	// of one); in variables and flags, comma-separated.
	TypeStringList = "list of strings"
	// TypeMappingList is a YAML list of mappings (breakers); only files
	// can set it.
	TypeMappingList = "list of mappings"
)

// KeyInfo describes one dotted key.
type KeyInfo struct {
	Key         string
	Type        string // one of the Type* constants
	Description string
	Default     string // the default value as it would be written in YAML
}

// Keys lists every dotted key, sorted, with its type, description and
// default.
func Keys() []KeyInfo {
	sch, err := buildSchema()
	if err != nil {
		// Only a Config field of a type this package does not know yet gets
		// here; the tests catch that, so there is nothing useful to list.
		return nil
	}
	def := loopbreaker.Defaults()
	out := make([]KeyInfo, 0, len(sch.leaves))
	for _, lf := range sch.leaves {
		out = append(out, KeyInfo{
			Key:         lf.key,
			Type:        lf.typ,
			Description: sch.describe(lf.key),
			Default:     formatValue(lf.get(&def)),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// pathStep is one step from Config to a field: a struct field index, or a
// map key when mapKey is valid.
type pathStep struct {
	field  int
	mapKey reflect.Value
}

// leaf is a key that holds a value. The fields of a list entry are leaves
// too, keyed by their name, with paths relative to the entry.
type leaf struct {
	key  string
	typ  string
	path []pathStep
	// goType is the field's Go type, for conversions and overflow checks.
	goType reflect.Type
	// elem describes the entries of a TypeMappingList.
	elem *elemSchema
}

// elemSchema is the set of keys of one entry of a list of mappings.
type elemSchema struct {
	fields []*leaf // in field order
	byName map[string]*leaf
	// template is the group whose effective values fill the fields an
	// entry leaves out ("" when zero values do).
	template string
	// required lists the fields the template cannot provide.
	required []string
	info     listInfo
}

func (e *elemSchema) names() []string {
	names := make([]string, len(e.fields))
	for i, f := range e.fields {
		names[i] = f.key
	}
	return names
}

// listInfo says how the entries of one list of mappings are completed and
// told apart.
type listInfo struct {
	// template is the group that gives entries their defaults.
	template string
	// identity is the field that names an entry; two entries may not share
	// it.
	identity string
	// example is a value of the list's type that SampleYAML shows in a
	// comment (the default list being empty).
	example any
}

// listInfos is keyed by the dotted key of each list of mappings.
func listInfos() map[string]listInfo {
	return map[string]listInfo{
		"prices": {
			identity: "model",
			example:  []loopbreaker.Price{{Model: "claude-sonnet-4", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
		},
		"breakers": {
			template: "breaker_template",
			identity: "scope",
			example: []loopbreaker.BreakerConfig{{
				Scope: "stakes:high", FailureThreshold: 3, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true,
			}},
		},
	}
}

// unusedKeys are fields of Config that are not settings, with the message a
// file, variable or flag that sets one gets.
func unusedKeys() map[string]string {
	return map[string]string{
		"breaker_template.scope": "breaker_template.scope is not used: the template applies to any scope not listed in breakers; delete it, or add a breakers entry with that scope",
	}
}

// node is the key tree in Config's field order (used to write SampleYAML).
type node struct {
	name     string
	key      string
	leaf     *leaf
	children []*node
}

// schema is the set of keys derived from Config's yaml tags.
type schema struct {
	root   *node
	leaves []*leaf          // in field order
	byKey  map[string]*leaf // dotted key -> leaf
	groups map[string]bool  // dotted keys that hold other keys
	// groupPaths leads from Config to each group's struct (templates).
	groupPaths map[string][]pathStep
}

// buildSchema derives the keys by reflection over loopbreaker.Config.
func buildSchema() (*schema, error) {
	s := &schema{root: &node{}, byKey: map[string]*leaf{}, groups: map[string]bool{}, groupPaths: map[string][]pathStep{}}
	if err := s.walk(s.root, reflect.TypeFor[loopbreaker.Config](), nil); err != nil {
		return nil, err
	}
	// Templates may come after their list in Config, so they are tied up
	// once every key is known.
	for _, lf := range s.leaves {
		if lf.elem == nil {
			continue
		}
		info := listInfos()[lf.key]
		lf.elem.info = info
		if info.template == "" {
			continue
		}
		if !s.groups[info.template] {
			return nil, fmt.Errorf("config: %s: template %s is not a group of keys", lf.key, info.template)
		}
		lf.elem.template = info.template
		for _, f := range lf.elem.fields {
			if s.byKey[info.template+"."+f.key] == nil {
				lf.elem.required = append(lf.elem.required, f.key)
			}
		}
	}
	return s, nil
}

var durationType = reflect.TypeFor[time.Duration]()

func (s *schema) walk(parent *node, t reflect.Type, path []pathStep) error {
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, ok := yamlName(f)
			if !ok {
				continue
			}
			if err := s.child(parent, name, f.Type, append(clonePath(path), pathStep{field: i})); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		keys := knownMapKeys(t)
		if keys == nil {
			return fmt.Errorf("config: %s: map of %s has no known keys; teach knownMapKeys about it", parent.key, t.Key())
		}
		for _, k := range keys {
			mk := reflect.ValueOf(k).Convert(t.Key())
			if err := s.child(parent, k, t.Elem(), append(clonePath(path), pathStep{mapKey: mk})); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("config: %s: unsupported type %s", parent.key, t)
}

// child adds the key name under parent: a leaf for a value, a group
// otherwise.
func (s *schema) child(parent *node, name string, t reflect.Type, path []pathStep) error {
	key := name
	if parent.key != "" {
		key = parent.key + "." + name
	}
	if _, unused := unusedKeys()[key]; unused {
		return nil
	}
	n := &node{name: name, key: key}
	parent.children = append(parent.children, n)
	typ := leafType(t)
	if typ == "" {
		s.groups[key] = true
		s.groupPaths[key] = path
		return s.walk(n, t, path)
	}
	lf := &leaf{key: key, typ: typ, path: path, goType: t}
	if typ == TypeMappingList {
		elem, err := elemSchemaOf(key, t.Elem())
		if err != nil {
			return err
		}
		lf.elem = elem
	}
	n.leaf = lf
	s.leaves = append(s.leaves, lf)
	s.byKey[key] = lf
	return nil
}

// elemSchemaOf lists the keys of a list entry: values and lists of strings,
// nothing nested deeper.
func elemSchemaOf(key string, t reflect.Type) (*elemSchema, error) {
	e := &elemSchema{byName: map[string]*leaf{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, ok := yamlName(f)
		if !ok {
			continue
		}
		typ := leafType(f.Type)
		if typ == "" || typ == TypeMappingList {
			return nil, fmt.Errorf("config: %s[].%s: unsupported type %s in a list entry", key, name, f.Type)
		}
		lf := &leaf{key: name, typ: typ, path: []pathStep{{field: i}}, goType: f.Type}
		e.fields = append(e.fields, lf)
		e.byName[name] = lf
	}
	return e, nil
}

// yamlName is the key of a struct field; false for a field YAML skips.
func yamlName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return strings.ToLower(f.Name), true // yaml's own rule for untagged fields
	}
	return name, true
}

// leafType is the Type* of a field that holds a value, "" for a group.
func leafType(t reflect.Type) string {
	if typ := scalarType(t); typ != "" {
		return typ
	}
	if t.Kind() == reflect.Slice {
		switch t.Elem().Kind() {
		case reflect.String:
			return TypeStringList
		case reflect.Struct:
			return TypeMappingList
		}
	}
	return ""
}

func scalarType(t reflect.Type) string {
	if t == durationType {
		return TypeDuration
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return TypeInt
	case reflect.Bool:
		return TypeBool
	case reflect.String:
		return TypeString
	case reflect.Float64:
		return TypeNumber
	}
	return ""
}

// knownMapKeys lists the keys a map-typed field may have; nil for a map
// type this package does not know.
func knownMapKeys(t reflect.Type) []string {
	if t.Key() == reflect.TypeFor[loopbreaker.Phase]() {
		return []string{
			string(loopbreaker.PhaseRed), string(loopbreaker.PhaseGreen),
			string(loopbreaker.PhaseRefactor), string(loopbreaker.PhaseDocument),
		}
	}
	return nil
}

func clonePath(p []pathStep) []pathStep { return append([]pathStep(nil), p...) }

// get returns the leaf's value in cfg: int64, bool, time.Duration, string,
// []string, or the list of structs itself for a TypeMappingList. A missing
// map entry reads as the zero value.
func (l *leaf) get(cfg *loopbreaker.Config) any {
	return l.getIn(reflect.ValueOf(cfg).Elem())
}

// getIn is get from the struct the leaf's path starts at.
func (l *leaf) getIn(root reflect.Value) any {
	v := valueAt(root, l.path)
	switch l.typ {
	case TypeDuration:
		return time.Duration(v.Int())
	case TypeInt:
		return v.Int()
	case TypeBool:
		return v.Bool()
	case TypeNumber:
		return v.Float()
	case TypeStringList:
		if v.Len() == 0 {
			return []string(nil)
		}
		out := make([]string, v.Len())
		for i := range out {
			out[i] = v.Index(i).String()
		}
		return out
	case TypeMappingList:
		return v.Interface()
	}
	return v.String()
}

// valueAt follows path from root; a missing map entry reads as the zero
// value.
func valueAt(root reflect.Value, path []pathStep) reflect.Value {
	v := root
	for _, st := range path {
		if st.mapKey.IsValid() {
			e := v.MapIndex(st.mapKey)
			if !e.IsValid() {
				e = reflect.Zero(v.Type().Elem())
			}
			v = e
			continue
		}
		v = v.Field(st.field)
	}
	return v
}

// set stores value (as returned by the parsers) in cfg.
func (l *leaf) set(cfg *loopbreaker.Config, value any) error {
	return l.setIn(reflect.ValueOf(cfg).Elem(), value)
}

// setIn is set in the struct the leaf's path starts at. An empty list is
// stored as nil, as in Defaults.
func (l *leaf) setIn(root reflect.Value, value any) error {
	switch l.typ {
	case TypeStringList:
		items, ok := value.([]string)
		if !ok {
			return fmt.Errorf("cannot store %T in %s", value, l.goType)
		}
		x := reflect.Zero(l.goType)
		if len(items) > 0 {
			x = reflect.MakeSlice(l.goType, len(items), len(items))
			for i, it := range items {
				x.Index(i).Set(reflect.ValueOf(it).Convert(l.goType.Elem()))
			}
		}
		setPath(root, l.path, x)
		return nil
	case TypeMappingList:
		// Entries need the effective template: see Loaded.fillList.
		return fmt.Errorf("a list of mappings is stored by fillList")
	}
	x := reflect.ValueOf(value)
	if !x.Type().ConvertibleTo(l.goType) {
		return fmt.Errorf("cannot store %T in %s", value, l.goType)
	}
	if l.typ == TypeInt && reflect.Zero(l.goType).OverflowInt(x.Int()) {
		return fmt.Errorf("%d is out of range", x.Int())
	}
	setPath(root, l.path, x.Convert(l.goType))
	return nil
}

// setPath sets the field at path; map values are not addressable, so a map
// entry is copied, changed and put back.
func setPath(v reflect.Value, path []pathStep, x reflect.Value) {
	if len(path) == 0 {
		v.Set(x)
		return
	}
	st := path[0]
	if !st.mapKey.IsValid() {
		setPath(v.Field(st.field), path[1:], x)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	elem := reflect.New(v.Type().Elem()).Elem()
	if cur := v.MapIndex(st.mapKey); cur.IsValid() {
		elem.Set(cur)
	}
	setPath(elem, path[1:], x)
	v.SetMapIndex(st.mapKey, elem)
}

// envName is the LOOPBREAKER_ variable for a dotted key. Every process
// names the variable of every key (config.Load), so it builds the name
// in one pass instead of through a strings.Replacer made for each key.
func envName(key string) string {
	return "LOOPBREAKER_" + strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return '_'
		}
		return r
	}, strings.ToUpper(key))
}

// describe is the one-line description of a dotted key or group.
func (s *schema) describe(key string) string {
	if d, ok := descriptions()[key]; ok {
		return d
	}
	// phases.<PHASE>[.<field>] share their wording.
	if rest, ok := strings.CutPrefix(key, "phases."); ok {
		phase, field, _ := strings.Cut(rest, ".")
		switch field {
		case "":
			return fmt.Sprintf("Thresholds while the agent is in the %s phase.", phase)
		case "no_progress":
			return fmt.Sprintf("No-progress threshold in the %s phase; 0 uses no_progress.threshold.", phase)
		case "same_error":
			return fmt.Sprintf("Same-error threshold in the %s phase; 0 uses same_error.threshold.", phase)
		}
	}
	return ""
}

// descriptions holds the wording of every key and group that is not
// generated by describe. The tests fail when a key has none.
func descriptions() map[string]string {
	return map[string]string{
		"enabled":       "Master switch: when false every check and record lets the agent go on and nothing is recorded.",
		"on_error":      `When the breaker itself fails (corrupt state, I/O error): "stop" halts the agent, "continue" lets it go on with a loud warning.`,
		"cooldown":      "How long the breaker stays OPEN before it lets one probe through (HALF_OPEN).",
		"auto_reset":    "Reset an OPEN breaker when a loop starts (Ralph's CB_AUTO_RESET).",
		"probe_timeout": "How long a half-open probe may stay unanswered before another caller may take it.",
		"warn_margin":   "Warn (HALF_OPEN) when a detector's count reaches its threshold minus this; 0 disables warnings; at most the largest threshold minus 1.",

		"no_progress":             "No-progress detector: iterations that change nothing.",
		"no_progress.threshold":   "Consecutive iterations without progress that open the breaker (a phase may override it).",
		"no_progress.files_count": "Count changed files, new commits and edits by tool calls as progress.",

		"same_error":                   "Same-error detector: the same normalised error again and again.",
		"same_error.threshold":         "Consecutive iterations with the same error signature that open the breaker (a phase may override it).",
		"same_error.session_threshold": "Times any one error signature may be seen since the last reset before the breaker opens; 0 means same_error.threshold.",

		"output_decline":             "Output-decline detector: the agent writes less and less.",
		"output_decline.percent":     "An iteration declines when its output is below this percent of the mean of the previous window.",
		"output_decline.window":      "How many previous measured iterations make the rolling mean.",
		"output_decline.min_samples": "Measured iterations needed before a decline is judged.",
		"output_decline.threshold":   "Consecutive declining iterations without progress that open the breaker.",

		"phase_failure":           "Phase-failure detector: the same phase fails again and again.",
		"phase_failure.threshold": "Consecutive failures of the same phase that open the breaker.",

		"permission_denials":           "Permission-denial detector: the agent keeps asking for what it may not do.",
		"permission_denials.threshold": "Permission denials that open the breaker.",

		"tamper":           "Tamper detector (hooks): the agent tries to reset, disable, uninstall or delete loopbreaker, or to edit its configuration or hook settings; the hook refuses each try.",
		"tamper.threshold": "Refused tries that open the breaker (it warns one before, by warn_margin); a change of the configuration or hook settings seen after the fact opens it at once. 0 refuses without counting.",

		"test_attempts":           "Attempts per test and per slice (TDD implementers).",
		"test_attempts.per_test":  "Failed attempts on one test that open the breaker.",
		"test_attempts.per_slice": "Failed attempts across all tests of a slice that open the breaker.",

		"failure_window":           "Sliding window of reviewed outcomes: too many failures within a time window.",
		"failure_window.threshold": "Failures within the window that open the breaker (1 to 1000).",
		"failure_window.window":    "How far back failures count.",

		"tool_calls":                  "Tool-call loop detection (hooks): the same call again and again, or short cycles of calls.",
		"tool_calls.repeat_warn":      "Identical calls with identical results in a row that warn; 0 disables the warning.",
		"tool_calls.repeat":           "Identical calls with identical results in a row (the same edit made again, whatever it answers) that open the breaker.",
		"tool_calls.cycle_warn":       "Repetitions of a short cycle of calls (A,B,A,B... of length 2 to 5) that warn; 0 disables the warning.",
		"tool_calls.cycle":            "Repetitions of a short cycle of calls that open the breaker.",
		"tool_calls.same_error":       "Times the same call fails with the same error, with no edit in between, before the breaker opens.",
		"tool_calls.history":          "How many recent calls are remembered (at least repeat and twice cycle).",
		"tool_calls.error_after_edit": "Failing runs, each after an edit, with the same normalised error (infrastructure errors included) that open the breaker; 0 turns the detector off.",
		"tool_calls.no_new_info":      "Calls in a row that bring no new information (fishing): each answers what a call with other arguments among the last N (this value) answered already, with the calls' own arguments removed or word for word, or nothing; they open the breaker; 0 turns the detector off.",
		"tool_calls.near_duplicate":   "Calls in a row that are one call with one changing argument (a line number, a path, a flag) and the same result, that open the breaker; 0 turns the detector off.",
		"tool_calls.no_effect":        "Tool calls since the last one that changed something (an applied edit whose effect a later run shows, a test that improved, a new turn) that open the breaker: reading and searching that never leads to an edit, and edits after which the same command answers the same; 0 turns the detector off.",

		"budget":                         "Budgets: caps on what the agent spends, read from its transcripts or its JSON output; each warns at budget.warn_percent and opens the breaker at 100 %; 0 turns a budget off.",
		"budget.calls_per_hour":          "Calls of the agent within the last hour (Ralph's MAX_CALLS_PER_HOUR): an iteration that reports the agent's usage (one invocation under loopbreaker run, one turn in hook mode); the model requests inside a turn are not counted; 0 turns it off.",
		"budget.session_tokens":          "Tokens (input, output and prompt-cache reads and writes) the breaker's agent may spend in all; a reset does not refill it; 0 turns it off.",
		"budget.session_cost":            "US dollars the breaker's agent may spend in all (the agent's own figure, else the prices table); 0 turns it off.",
		"budget.slice_tokens":            "Tokens one slice may spend; 0 turns it off.",
		"budget.slice_cost":              "US dollars one slice may spend; 0 turns it off.",
		"budget.tokens_without_progress": "Tokens spent since the last progress (a test that passes, files changed by an iteration, a completion); a reset ends the count; 0 turns it off.",
		"budget.warn_percent":            "Percent of a budget at which it warns (HALF_OPEN); 0 never warns.",
		"budget.on_calls_per_hour":       `What reaching budget.calls_per_hour does: "halt" opens the breaker (everywhere: run, record, hooks); "pause" has loopbreaker run wait, with a countdown, until the oldest call of the hour is an hour old, and the breaker does not open for it (hooks and record then only show the count).`,
		"prices":                         "Price table, US dollars per million tokens, one entry per model (model is the name or its start; the longest match wins); set in a file, it replaces the shipped table of list prices as of November 2025; nothing is looked up online.",

		"phases": "Per-phase thresholds for TDD loops (RED, GREEN, REFACTOR, DOCUMENT); 0 uses the global threshold.",

		"journal":             "The journal of everything the breaker saw and decided.",
		"journal.max_bytes":   "Rotate the journal when it grows past this many bytes; 0 never rotates.",
		"journal.keep":        "How many rotated journals to keep.",
		"journal.fsync":       "Flush every journal write to disk (power-loss safety); a killed process loses nothing either way.",
		"journal.max_entries": "Redis store: trim each breaker's journal stream to about this many entries (a snapshot entry keeps it replayable); 0 never trims.",
		"journal.max_age":     "Redis store: trim journal entries older than this (a duration); 0 never.",

		"trusted_stores": `Store URLs (password left out) a project's loopbreaker.yaml may name in store; any other store there is refused. Set it in the user file, LOOPBREAKER_TRUSTED_STORES or --set, never in a project file.`,
		"store":          `Where the breakers live: "" for the project's state directory, or redis://[user@]host:port/db (rediss:// for TLS, ?prefix=NAME for the key prefix) for one set of breakers shared by a fleet; the password goes in LOOPBREAKER_REDIS_PASSWORD (or the URL) and is never printed. A store set in a project file is refused unless trusted_stores lists it.`,

		"state_dir": `Directory that holds loopbreaker's state of every project (one directory per project under projects/, outside the project so the agent's searches never find it); "" means $XDG_STATE_HOME/loopbreaker, else ~/.local/state/loopbreaker. An absolute path; set in the user file, LOOPBREAKER_STATE_DIR or --set, never in a project's loopbreaker.yaml. LOOPBREAKER_DIR names one project's state directory itself and wins over it.`,

		"run":                    "The loop supervisor (loopbreaker run).",
		"run.max_iterations":     "Stop the loop after this many iterations; 0 means no limit.",
		"run.iteration_timeout":  "Stop an iteration that runs longer than this duration (its process group is killed, the iteration counts as failed); 0 means no limit.",
		"run.max_wait":           "Longest wait for an agent's usage limit to reset (when the agent CLI said when); a longer or unknown wait stops the loop with exit 3; 0 never waits.",
		"run.keep_outputs":       "How many iterations' outputs to keep in the state directory (a count).",
		"run.checkpoint":         "Tag a git checkpoint before the first attempt of a slice.",
		"run.completion_signals": "Iterations in a row that must signal completion before the loop ends (2 is Ralph's dual exit gate: the agent is asked once more, and must say it is done again).",
		"run.continue_session":   "Run every iteration after the first in the agent's own session of the previous one (Claude Code, Codex CLI, Gemini CLI, Qwen Code), instead of a fresh agent each time.",

		"scope":                "Scope lock: which files the agent may edit for the current slice (globs as in path.Match, plus ** for any depth).",
		"scope.allow":          `Globs of files the agent may edit freely (a list; in a variable or --set, comma-separated, "" for none).`,
		"scope.justify":        "Globs of files the agent may edit only with a one-sentence justification tied to the failing test (loopbreaker scope justify).",
		"scope.deny":           "Globs of files the agent may never edit for this slice.",
		"scope.files_in_scope": `Path of a JSON file {"files_in_scope": [...]} whose files are allowed too; "" for none.`,

		"breakers":                           "Scoped breakers over reviewed outcomes, one per scope (global, category:X, stakes:X, agent:X, tag:X, session:X, slice:X); set only in a file, a field an entry leaves out comes from breaker_template.",
		"breaker_template":                   "Settings of the breaker made on first use for any scope not listed in breakers (and of fields a breakers entry leaves out).",
		"breaker_template.failure_threshold": "Failures within the window that open a scoped breaker (a count, 1 to 1000).",
		"breaker_template.window":            "How far back a scoped breaker counts failures (a duration).",
		"breaker_template.cooldown":          "How long a scoped breaker stays OPEN before it lets one probe through (a duration).",
		"breaker_template.notify":            "Send a notification (notify.webhook_url) when a scoped breaker changes state.",
		"evict_after":                        "Forget a breaker made from the template once it is CLOSED with no failures and unused for this long (a duration).",

		"server":                "The HTTP server (loopbreaker serve).",
		"server.addr":           "Address the server listens on, host:port.",
		"server.max_body_bytes": "Largest request body the server accepts, in bytes.",

		"notify":             "Notifications of state changes: a webhook, a command and the desktop.",
		"notify.desktop":     "Show each notification on the desktop (notify-send on Linux, osascript on macOS), debounced like the webhook; a missing notify-send is a warning, once.",
		"notify.webhook_url": `URL that receives a JSON POST per state change; "" disables notifications.`,
		"notify.command":     `Command run by sh -c on each state change, with the change in LOOPBREAKER_SCOPE, _FROM, _TO, _MODE, _REASON, _DETECTOR, _TIME, _CHANGES, _TITLE and _TEXT, debounced like the webhook (e.g. notify-send "$LOOPBREAKER_TITLE" "$LOOPBREAKER_REASON"); "" disables it.`,
		"notify.debounce":    "Least time between two notifications for one scope (a duration); 0 sends every one.",
		"notify.retries":     "How many times a failed delivery is retried, with backoff; 0 means no retry.",
		"notify.timeout":     "How long one delivery attempt may take (a duration).",
	}
}
