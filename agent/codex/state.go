package codex

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Besides [features], config.toml decides per hook and per project
// whether Codex runs a hook (checked with Codex 0.169's app-server:
// hooks/list reports a hook "enabled": false when its state says so):
//
//	[hooks.state."<abs hooks.json>:<snake_event>:<group>:<handler>"]
//	trusted_hash = "sha256:…"  # an untrusted or changed hook is skipped
//	enabled = false            # the hook is not run
//
//	[projects."<dir>"]
//	trust_level = "trusted"    # else the project's hooks.json is not loaded

// stateSwitches are the settings of config.toml at path (read through r)
// about loopbreaker's hooks files hooksFiles, and the trust of project
// and the directories above it, as "PATH: KEY = VALUE" lines with KEY a
// dotted path whose parts are quoted.
func stateSwitches(r *agent.Reads, path string, hooksFiles []string, project string) []string {
	data, err := r.ReadFile(path)
	if err != nil {
		return nil
	}
	var files []string
	for _, f := range hooksFiles {
		files = append(files, f)
		if real, err := filepath.EvalSymlinks(f); err == nil && real != f {
			files = append(files, real)
		}
	}
	var dirs []string
	for _, p := range []string{project, hookinstall.CanonicalPath(project)} {
		for d := filepath.Clean(p); filepath.IsAbs(d) && !slices.Contains(dirs, d); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	ofOurs := func(key string) bool {
		return slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(key, f+":") })
	}
	var out []string
	var section []string
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[[") {
			section = nil // an array of tables: none of these
			continue
		}
		if strings.HasPrefix(l, "[") {
			if end := strings.LastIndex(l, "]"); end > 0 {
				section = tomlKeyParts(l[1:end])
			}
			continue
		}
		k, v, ok := cutAssignment(l)
		if !ok {
			continue
		}
		key := append(slices.Clone(section), tomlKeyParts(k)...)
		keep := false
		switch {
		case len(key) >= 2 && key[0] == "hooks" && key[1] == "state":
			// The whole state table inline, or one hook's.
			keep = len(key) == 2 || ofOurs(key[2])
		case len(key) >= 2 && key[0] == "projects":
			keep = slices.Contains(dirs, key[1]) && (len(key) == 2 || key[2] == "trust_level")
		}
		if keep {
			quoted := make([]string, len(key))
			for i, p := range key {
				quoted[i] = tomlKey(p)
			}
			out = append(out, path+": "+strings.Join(quoted, ".")+" = "+v)
		}
	}
	return out
}

// cutAssignment splits a TOML line KEY = VALUE, the key possibly quoted
// (with "=" inside the quotes) and the value up to a comment outside
// quotes.
func cutAssignment(l string) (key, value string, ok bool) {
	if l == "" || strings.HasPrefix(l, "#") {
		return "", "", false
	}
	var quote byte
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			value = strings.TrimSpace(l[i+1:])
			quote = 0
			for j := 0; j < len(value); j++ {
				switch c := value[j]; {
				case quote != 0:
					if c == quote {
						quote = 0
					}
				case c == '"' || c == '\'':
					quote = c
				case c == '#':
					value = strings.TrimSpace(value[:j])
					j = len(value)
				}
			}
			return strings.TrimSpace(l[:i]), value, true
		}
	}
	return "", "", false
}

// tomlKeyParts splits a dotted TOML key into its parts, unquoted, whitespace
// around the dots dropped.
func tomlKeyParts(k string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	quoted := false
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, quoted = c, true
		case c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
			quoted = false
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 || quoted || len(parts) > 0 {
		parts = append(parts, cur.String())
	}
	return parts
}
