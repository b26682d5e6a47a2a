package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Uninstalling undoes what the install added to Codex's config.toml, and
// only that: the trust of loopbreaker's hooks (hooks.state."<key>", keys
// that name loopbreaker's hooks and nothing else), and the project's
// trust when the install with --trust-project added it. Whether it did is
// kept in a file of loopbreaker's beside config.toml (out of the
// project's reach: a cloned repository cannot claim it), since Codex's
// config has no place for it. A project the person had trusted before
// stays trusted.

// trustRecordName is the file, in CODEX_HOME, that lists the projects
// whose trust loopbreaker's install added.
const trustRecordName = "loopbreaker-trusted-projects.json"

func trustRecord(configFile string) string {
	return filepath.Join(filepath.Dir(configFile), trustRecordName)
}

func readTrustRecord(configFile string) ([]string, error) {
	data, err := safeopen.ReadFile(trustRecord(configFile), safeopen.FollowLinks, safeopen.SmallFileLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var dirs []string
	if err := json.Unmarshal(data, &dirs); err != nil {
		return nil, errors.New(trustRecord(configFile) + ": not loopbreaker's list of projects (" + err.Error() + "): delete it")
	}
	return dirs, nil
}

// recordProjectTrust adds dir to (or, with add false, removes it
// from) the projects whose trust the install added; an empty list removes
// the file.
func recordProjectTrust(configFile, dir string, add bool) error {
	dirs, err := readTrustRecord(configFile)
	if err != nil {
		return err
	}
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return d == dir })
	if add {
		dirs = append(dirs, dir)
	}
	path := trustRecord(configFile)
	if len(dirs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, _ := json.MarshalIndent(dirs, "", "  ")
	return hookinstall.WriteAtomic(path, append(data, '\n'), 0o600)
}

// projectTrusted reports whether config.toml marks dir a trusted
// project, as Codex writes it: a [projects."DIR"] table with
// trust_level = "trusted".
func projectTrusted(configFile, dir string) bool {
	return projectTable(configFile, dir)["trust_level"] == `"trusted"`
}

// projectTable returns the keys and raw values of config.toml's
// [projects."DIR"] table (nil without one).
func projectTable(configFile, dir string) map[string]string {
	data, err := safeopen.ReadFile(configFile, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if err != nil {
		return nil
	}
	header := "[projects." + tomlKey(dir) + "]"
	var table map[string]string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == header
			if in && table == nil {
				table = map[string]string{}
			}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); in && ok {
			table[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return table
}

// forget removes keys from config.toml through the app-server (a null
// value replaces, that is deletes, the key).
func (s *AppServer) forget(ctx context.Context, keyPaths []string) error {
	if len(keyPaths) == 0 {
		return nil
	}
	edits := make([]configEdit, 0, len(keyPaths))
	for _, k := range keyPaths {
		edits = append(edits, configEdit{k, nil, "replace"})
	}
	return s.call(ctx, "config/batchWrite", map[string]any{"edits": edits}, nil)
}

// UntrustResult is what UntrustHooks removed.
type UntrustResult struct {
	// Hooks counts the hooks whose trust was removed.
	Hooks int
	// Project: the project's trust, which the install had added, was
	// removed.
	Project bool
}

// UntrustHooks removes, before loopbreaker's hooks are taken out of
// o.File, the trust Codex keeps for them, and the project's trust when the
// install added it (o.ConfigFile's record says so; o.TrustProject is
// ignored). Call it while the hooks are still in the file: Codex names
// each hook's trust by its place in the file.
func UntrustHooks(ctx context.Context, o TrustOptions) (UntrustResult, error) {
	var u UntrustResult
	dir := hookinstall.CanonicalPath(o.Dir)
	recorded, err := readTrustRecord(o.ConfigFile)
	if err != nil {
		return u, err
	}
	untrustProject := o.ConfigFile != "" && slices.Contains(recorded, dir)
	s, err := StartAppServer(ctx, o.Program, o.Environ)
	if err != nil {
		return u, err
	}
	defer s.Close()
	list, err := s.ListHooks(ctx, dir)
	if err != nil {
		return u, err
	}
	var keys []string
	for _, h := range list.Hooks {
		if samePath(h.SourcePath, o.File) && hook.IsOurs("codex", h.Command, o.Command) && h.TrustStatus != "untrusted" {
			keys = append(keys, "hooks.state."+tomlKey(h.Key))
		}
	}
	if err := s.forget(ctx, keys); err != nil {
		return u, err
	}
	u.Hooks = len(keys)
	if untrustProject {
		// The whole table when the trust is all it holds (the install
		// made it), else only the trust.
		key := "projects." + tomlKey(dir)
		if len(projectTable(o.ConfigFile, dir)) > 1 {
			key += ".trust_level"
		}
		if err := s.forget(ctx, []string{key}); err != nil {
			return u, err
		}
		u.Project = true
		if err := recordProjectTrust(o.ConfigFile, dir, false); err != nil {
			return u, err
		}
	}
	return u, nil
}
