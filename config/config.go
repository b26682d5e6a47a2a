// Package config loads loopbreaker.Config from layers and remembers where
// every effective value came from.
//
// Layers, highest priority first:
//
//	flags        Options.Flags, e.g. from repeated --set key=value
//	environment  LOOPBREAKER_<KEY> (plus Ralph's CB_* names, see ralphAliases)
//	project file loopbreaker.yaml (or .yml) in Options.ProjectDir,
//	             or the file named by LOOPBREAKER_CONFIG
//	user file    $XDG_CONFIG_HOME/loopbreaker/config.yaml,
//	             else $HOME/.config/loopbreaker/config.yaml
//	defaults     loopbreaker.Defaults()
//
// Keys are the dotted yaml tags of loopbreaker.Config (no_progress.threshold,
// phases.GREEN.no_progress, ...). Everything is strict: unknown keys, wrong
// types and bare numbers for durations are errors that name the file, line
// and key, because a silently ignored setting is worse than a loud one for a
// tool whose job is to stop runaway agents.
//
// Lists replace, they do not merge: the highest layer that sets a list sets
// all of it.
//
// A list of strings (scope.allow, scope.justify, scope.deny) is a YAML list,
// or a single string for a list of one. In a variable or a flag it is
// comma-separated with spaces trimmed (LOOPBREAKER_SCOPE_ALLOW="src/**,
// docs/*.md"); there an empty value is an empty list, so it can clear a list
// set in a file (for every other key an empty variable counts as unset).
//
// A list of mappings (breakers) can only be set in a file: one mapping per
// entry, keys checked like any other. A field an entry leaves out takes the
// effective value of the matching breaker_template key, after every layer
// is applied (so LOOPBREAKER_BREAKER_TEMPLATE_WINDOW changes every entry
// that does not set window). scope has no template value: every entry needs
// one, and no two entries may share it. Entries are counted from 0 in
// messages (breakers[0].window), as in Validate's. breaker_template.scope is
// not a setting and setting it is an error.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Source kinds, lowest priority first.
const (
	KindDefault = "default"
	KindUser    = "user"
	KindProject = "project"
	KindEnv     = "env"
	KindFlag    = "flag"
)

// Source says where an effective value came from.
type Source struct {
	// Kind is one of "default", "user", "project", "env", "flag".
	Kind string
	// Name is the file path (as shown to people), the variable name or the
	// flag ("--set key"); empty for defaults.
	Name string
	// Line is the line in the file; 0 when not from a file.
	Line int
}

// Location is Name with the line when there is one: "loopbreaker.yaml:12",
// "LOOPBREAKER_COOLDOWN", "--set cooldown", "" for a default.
func (s Source) Location() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Name, s.Line)
	}
	return s.Name
}

// String is the kind followed by the location: "project loopbreaker.yaml:12",
// "env LOOPBREAKER_COOLDOWN", "default".
func (s Source) String() string {
	if loc := s.Location(); loc != "" {
		return s.Kind + " " + loc
	}
	return s.Kind
}

// Loaded is an effective configuration with its provenance.
type Loaded struct {
	Config loopbreaker.Config
	// Sources maps every dotted key to where its effective value came from.
	// A list of mappings (breakers) is one key, set where the list is; see
	// SourceOf for its entries.
	Sources map[string]Source

	// entrySources says where each entry of a list of mappings and each of
	// its fields came from: "breakers[1]", "breakers[1].window".
	entrySources map[string]Source
	// inherited maps an entry field the entry leaves out to the template
	// key it was taken from: "breakers[1].window" -> "breaker_template.window".
	inherited map[string]string
}

// SourceOf is where the value of key came from. Besides the dotted keys of
// Sources it knows the entries of lists of mappings and their fields
// ("breakers[0]", "breakers[0].window", counted from 0); a field an entry
// leaves out reports the source of the template key it was taken from.
// Unknown keys read as defaults.
func (l *Loaded) SourceOf(key string) Source {
	if s, ok := l.entrySources[key]; ok {
		return s
	}
	return l.source(key)
}

// Options tells Load where to look.
type Options struct {
	// ProjectDir holds loopbreaker.yaml. A relative LOOPBREAKER_CONFIG is
	// resolved against it too.
	ProjectDir string
	// Env is the environment, like os.Environ(). Nil means an empty
	// environment: Load never reads the process environment itself.
	Env []string
	// Flags maps dotted keys to raw values (highest priority).
	Flags map[string]string
	// UserConfigDir overrides the user configuration directory (the one
	// that holds loopbreaker/config.yaml), for tests.
	UserConfigDir string
}

// Project file names, preferred first.
const (
	ProjectFile    = lb.ProjectFile
	projectFileAlt = lb.ProjectFileAlt
)

// setting is one value read from one layer.
type setting struct {
	leaf  *leaf
	value any
	src   Source
}

// Load reads every layer, applies them in priority order over Defaults()
// and validates the result. Problems in files, variables and flags are all
// reported together, one per line.
func Load(opts Options) (*Loaded, error) {
	in, err := readInputs(opts)
	if err != nil {
		return nil, err
	}
	return in.load(opts)
}

// inputs is everything Load reads outside opts: the environment and the
// bytes of the configuration files, read once. Load is a function of
// them and of opts, which is what lets Cache keep its results.
type inputs struct {
	env map[string]string
	// user and project are the files of those layers (path "": none).
	user, project fileRead
	// explicit: LOOPBREAKER_CONFIG names the project file, which must
	// then exist.
	explicit bool
}

// fileRead is one configuration file as read: its path to open, its name
// as shown to people, and its bytes or why they could not be read.
type fileRead struct {
	path, name string
	data       []byte
	err        error
}

// readInputs finds and reads the configuration files; an error is one
// that stops Load before any layer is read.
func readInputs(opts Options) (inputs, error) {
	in := inputs{env: envMap(opts.Env)}
	userPath, err := userFile(opts, in.env)
	if err != nil {
		return in, err
	}
	if userPath != "" {
		in.user = readLayerFile(userPath, userPath)
	}
	projPath, projName, err := projectFile(opts, in.env)
	if err != nil {
		return in, err
	}
	if projPath != "" {
		_, in.explicit = in.env["LOOPBREAKER_CONFIG"]
		in.project = readLayerFile(projPath, projName)
	}
	return in, nil
}

func readLayerFile(path, name string) fileRead {
	data, err := readConfigFile(path, name)
	return fileRead{path: path, name: name, data: data, err: err}
}

// load applies the layers read over Defaults() and validates the result.
func (in inputs) load(opts Options) (*Loaded, error) {
	sch, err := buildSchema()
	if err != nil {
		return nil, err
	}
	env := in.env

	var layers [][]setting
	var problems []error
	addLayer := func(s []setting, errs []error) {
		layers = append(layers, s)
		problems = append(problems, errs...)
	}

	if in.user.path != "" {
		addLayer(sch.decodeFile(in.user, KindUser, false))
	}
	if in.project.path != "" {
		settings, errs := sch.decodeFile(in.project, KindProject, in.explicit)
		kept, refused := refuseUserOnly(settings)
		addLayer(kept, append(errs, refused...))
	}

	addLayer(sch.fromEnv(env))
	addLayer(sch.fromFlags(opts.Flags))

	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}

	l := &Loaded{Config: loopbreaker.Defaults(), Sources: map[string]Source{},
		entrySources: map[string]Source{}, inherited: map[string]string{}}
	for _, lf := range sch.leaves {
		l.Sources[lf.key] = Source{Kind: KindDefault}
	}
	// A list of mappings is filled in last, from the winning layer's
	// entries and the effective template.
	lists := map[*leaf]setting{}
	for _, layer := range layers {
		for _, s := range layer {
			l.Sources[s.leaf.key] = s.src
			if s.leaf.typ == TypeMappingList {
				lists[s.leaf] = s
				continue
			}
			if err := s.leaf.set(&l.Config, s.value); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", s.src, s.leaf.key, err)
			}
		}
	}
	for _, lf := range sch.leaves {
		if s, ok := lists[lf]; ok {
			if err := l.fillList(sch, s); err != nil {
				return nil, err
			}
		}
	}
	if err := l.Config.Validate(); err != nil {
		return nil, l.blame(sch, err)
	}
	if err := l.checkStoreTrust(opts, env); err != nil {
		return nil, err
	}
	return l, nil
}

// fillList stores a list of mappings: each entry starts as a copy of the
// effective template (zero without one) and gets the fields it sets.
func (l *Loaded) fillList(sch *schema, s setting) error {
	lf, list := s.leaf, s.value.(entryList)
	root := reflect.ValueOf(&l.Config).Elem()
	tmpl := lf.elem.template
	out := reflect.Zero(lf.goType) // an empty list is nil, as in Defaults
	if len(list) > 0 {
		out = reflect.MakeSlice(lf.goType, len(list), len(list))
	}
	for i, ent := range list {
		ev := out.Index(i)
		if tmpl != "" {
			ev.Set(valueAt(root, sch.groupPaths[tmpl]))
		}
		name := fmt.Sprintf("%s[%d]", lf.key, i)
		l.entrySources[name] = Source{Kind: s.src.Kind, Name: s.src.Name, Line: ent.line}
		for _, f := range lf.elem.fields {
			fkey := name + "." + f.key
			if fv, ok := ent.fields[f.key]; ok {
				if err := f.setIn(ev, fv.value); err != nil {
					return fmt.Errorf("%s:%d: %s: %v", s.src.Name, fv.line, fkey, err)
				}
				l.entrySources[fkey] = Source{Kind: s.src.Kind, Name: s.src.Name, Line: fv.line}
				continue
			}
			if tkey := tmpl + "." + f.key; sch.byKey[tkey] != nil {
				l.entrySources[fkey] = l.source(tkey)
				l.inherited[fkey] = tkey
			}
		}
	}
	setPath(root, lf.path, out)
	return nil
}

// userFilePath is where the user configuration file is read from
// (whether or not it exists); "" when neither XDG_CONFIG_HOME nor HOME
// says.
func userFilePath(opts Options, env map[string]string) string {
	dir := opts.UserConfigDir
	if dir == "" {
		// The XDG spec says a relative XDG_CONFIG_HOME is invalid and must
		// be ignored.
		if x := env["XDG_CONFIG_HOME"]; x != "" && filepath.IsAbs(x) {
			dir = x
		} else if h := env["HOME"]; h != "" {
			dir = filepath.Join(h, ".config")
		} else {
			return ""
		}
	}
	return filepath.Join(dir, "loopbreaker", "config.yaml")
}

// explicitFile is the file LOOPBREAKER_CONFIG names, a relative name
// being the project's.
func explicitFile(projectDir, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(projectDir, name)
}

// Files are the configuration files Load reads besides the project's own
// loopbreaker.yaml, whether or not they exist: the one LOOPBREAKER_CONFIG
// names, then the user file. The hook's guard protects them.
func Files(projectDir string, env []string) []string {
	m := envMap(env)
	var out []string
	if explicit := m["LOOPBREAKER_CONFIG"]; explicit != "" {
		out = append(out, explicitFile(projectDir, explicit))
	}
	if p := userFilePath(Options{}, m); p != "" {
		out = append(out, p)
	}
	return out
}

// userFile finds the user configuration file; "" when there is none.
func userFile(opts Options, env map[string]string) (string, error) {
	path := userFilePath(opts, env)
	if path == "" {
		return "", nil
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("user config: %w", err)
	}
	return path, nil
}

// projectFile finds the project file: its path to open and its name as shown
// to people; "" when there is none.
func projectFile(opts Options, env map[string]string) (path, name string, err error) {
	if explicit, ok := env["LOOPBREAKER_CONFIG"]; ok && explicit != "" {
		return explicitFile(opts.ProjectDir, explicit), explicit, nil
	}
	var found []string
	for _, name := range []string{ProjectFile, projectFileAlt} {
		p := filepath.Join(opts.ProjectDir, name)
		if _, err := os.Stat(p); err == nil {
			found = append(found, name)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("project config: %w", err)
		}
	}
	switch len(found) {
	case 0:
		return "", "", nil
	case 1:
		return filepath.Join(opts.ProjectDir, found[0]), found[0], nil
	}
	return "", "", fmt.Errorf("both %s and %s exist in %s: move any settings from %s into %s and delete %s",
		ProjectFile, projectFileAlt, displayDir(opts.ProjectDir), projectFileAlt, ProjectFile, projectFileAlt)
}

func displayDir(d string) string {
	if d == "" {
		return "the current directory"
	}
	return d
}

// envMap turns KEY=VALUE entries into a map; the last entry of a repeated
// name wins, as with exec.Cmd.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		m[k] = v
	}
	return m
}

// fromFlags reads the flag layer.
func (s *schema) fromFlags(flags map[string]string) ([]setting, []error) {
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []setting
	var errs []error
	for _, k := range keys {
		src := Source{Kind: KindFlag, Name: "--set " + k}
		if msg := s.refused(k, func(key string) string { return key }, "with --set"); msg != "" {
			errs = append(errs, fmt.Errorf("flag --set %s: %s", k, msg))
			continue
		}
		lf := s.byKey[k]
		if lf == nil {
			errs = append(errs, fmt.Errorf("flag --set %s: unknown key %q%s", k, k, s.suggestKey(k)))
			continue
		}
		v, err := lf.parseText(flags[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %v", src, k, err))
			continue
		}
		out = append(out, setting{leaf: lf, value: v, src: src})
	}
	return out, errs
}

// keyWord finds candidate keys in Validate's messages, entries of lists
// included (breakers[1].window).
var keyWord = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*(?:\[[0-9]+\]|\.[A-Za-z0-9_]+)*`)

// blame prefixes a validation error with where the offending keys were set.
// Validate names keys in its messages; groups (phases.GREEN) blame their
// non-default leaves; an entry of a list (breakers[1].window) blames its
// line, or the template key when the entry leaves the field out.
func (l *Loaded) blame(s *schema, verr error) error {
	msg := verr.Error()
	var keys []string
	var notes []string
	seen := map[string]bool{}
	for _, w := range keyWord.FindAllString(msg, -1) {
		if seen[w] {
			continue
		}
		seen[w] = true
		if strings.Contains(w, "[") {
			// The field if known, else its entry (breakers[1].scope ->
			// breakers[1]).
			for k := w; k != ""; {
				if _, ok := l.entrySources[k]; ok {
					keys = append(keys, k)
					if tkey, ok := l.inherited[k]; ok {
						entry, field, _ := strings.Cut(k, "].")
						notes = append(notes, fmt.Sprintf("%s] leaves %s out, so it comes from %s", entry, field, tkey))
					}
					break
				}
				i := strings.LastIndexAny(k, ".[")
				if i < 0 {
					break
				}
				k = k[:i]
			}
			continue
		}
		if s.byKey[w] != nil {
			keys = append(keys, w)
			continue
		}
		// A bare word naming a group is more likely prose than a key.
		if s.groups[w] && strings.Contains(w, ".") {
			for _, lf := range s.leaves {
				if strings.HasPrefix(lf.key, w+".") && l.Sources[lf.key].Kind != KindDefault {
					keys = append(keys, lf.key)
				}
			}
		}
	}
	note := ""
	if len(notes) > 0 {
		note = " (" + strings.Join(notes, "; ") + ")"
	}
	switch len(keys) {
	case 0:
		return fmt.Errorf("invalid configuration: %w", verr)
	case 1:
		return fmt.Errorf("%s: %w%s", l.SourceOf(keys[0]), verr, note)
	}
	var from []string
	for _, k := range keys {
		from = append(from, fmt.Sprintf("%s from %s", k, l.SourceOf(k)))
	}
	return fmt.Errorf("%w (%s)%s", verr, strings.Join(from, "; "), note)
}
