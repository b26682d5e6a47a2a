package agent

import (
	"os"
	"path/filepath"
	"strings"
)

// DotEnvFiles are the .env files a CLI that loads them into its own
// environment (Gemini CLI, Qwen Code), and so into its hooks', may read
// for a session started in project: going up from project to home,
// <dir>/<settingsDir>/.env, else <dir>/.env, at the first directory that
// has one; then each of userDirs' .env and home's. Those that exist.
func DotEnvFiles(project, home, settingsDir string, userDirs ...string) []string {
	var out []string
	exists := func(f string) bool {
		fi, err := os.Stat(f)
		return err == nil && !fi.IsDir()
	}
	for dir := project; filepath.IsAbs(dir) && dir != home; {
		if f := filepath.Join(dir, settingsDir, ".env"); exists(f) {
			out = append(out, f)
			break
		}
		if f := filepath.Join(dir, ".env"); exists(f) {
			out = append(out, f)
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for _, d := range append(userDirs, home) {
		if f := filepath.Join(d, ".env"); filepath.IsAbs(d) && exists(f) {
			out = append(out, f)
		}
	}
	return out
}

// DotEnv is what files set, read as dotenv files through r: KEY=VALUE
// (or KEY: VALUE) lines, `export` before the key, the value in quotes or
// up to a comment; other lines are passed over.
func DotEnv(r *Reads, files []string) []SetVar {
	var out []SetVar
	for _, f := range files {
		data, err := r.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
			i := strings.IndexAny(line, "=:")
			if i <= 0 || strings.HasPrefix(line, "#") {
				continue
			}
			name := strings.TrimSpace(line[:i])
			if strings.ContainsAny(name, " \t") {
				continue
			}
			out = append(out, SetVar{File: f, Name: name, Value: dotEnvValue(strings.TrimSpace(line[i+1:]))})
		}
	}
	return out
}

// dotEnvValue is a value as written after the key: unquoted, or up to a
// comment.
func dotEnvValue(v string) string {
	for _, q := range []string{`"`, `'`, "`"} {
		if strings.HasPrefix(v, q) {
			if end := strings.Index(v[1:], q); end >= 0 {
				return v[1 : 1+end]
			}
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}
