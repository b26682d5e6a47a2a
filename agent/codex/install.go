package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Format is Codex's hooks.json (Claude Code's shape). Omitted matchers
// match everything; Codex ignores them on UserPromptSubmit and Stop anyway.
func (a Agent) Format() *hookinstall.Format {
	return &hookinstall.Format{
		Tool: a.Name(),
		Entries: []hookinstall.Entry{
			{Event: "PreToolUse"}, {Event: "PostToolUse"}, {Event: "Stop"},
			{Event: "UserPromptSubmit"}, {Event: "SessionStart"},
		},
		Command: hookinstall.GuardedCommand(a.Name()),
		Handler: hookinstall.StandardHandler("", int(hook.Timeout/time.Second)),
		Warnings: func(path string, _ []byte) []string {
			return configWarnings(filepath.Dir(path))
		},
		OwnDir:    ".codex",
		DirLevels: 1,
	}
}

// configPath is Codex's config.toml (CODEX_HOME, else ~/.codex).
func configPath(getenv func(string) string) string {
	return filepath.Join(agent.UserDirOr(getenv, "CODEX_HOME", ".codex"), "config.toml")
}

// Install merges (or removes) loopbreaker's hooks in hooks.json, and saves
// (or takes back) Codex's trust of them through `codex app-server`:
// `codex exec` skips untrusted hooks without a word.
func (a Agent) Install(ctx context.Context, req *agent.InstallRequest) (*agent.InstallResult, error) {
	command := hook.Command(req.Program, a.Name())
	var notes []string
	if req.Uninstall {
		notes = untrustBeforeUninstall(ctx, req, command)
	}
	res, err := agent.InstallFile(a.Format(), req, hookinstall.Options{})
	if err != nil {
		return nil, err
	}
	if !req.Uninstall {
		notes = trustAfterInstall(ctx, req, res.Path, command)
	}
	res.Notes = append(res.Notes, notes...)
	return res, nil
}

// trustAfterInstall saves Codex's trust of the installed hooks, or says
// exactly what to do instead.
func trustAfterInstall(ctx context.Context, req *agent.InstallRequest, file, command string) []string {
	var notes []string
	byHand := fmt.Sprintf("start codex in %s and choose \"Trust all and continue\" when it says \"Hooks need review\" (or open /hooks and trust the loopbreaker entries); --dangerously-bypass-hook-trust lasts one invocation only", req.Project)
	cfg := configPath(req.Getenv)
	projectTrustHint := fmt.Sprintf("Codex loads %s only in a trusted project: install again with --trust-project (writes [projects.%q] trust_level = \"trusted\" in %s), or run codex there once and trust the project", file, hookinstall.CanonicalPath(req.Project), cfg)
	if !req.Trust {
		notes = append(notes, "next: Codex skips new or changed hooks until they are trusted, and `codex exec` says nothing about it: "+byHand)
		if !req.User {
			notes = append(notes, projectTrustHint)
		}
		return notes
	}
	program, ok := req.LookPath("codex")
	if !ok {
		notes = append(notes, "next: codex is not on PATH, so the hooks' trust was not saved, and `codex exec` skips untrusted hooks SILENTLY: install again with codex on PATH, or "+byHand)
		if !req.User {
			notes = append(notes, projectTrustHint)
		}
		return notes
	}
	t, err := TrustHooks(ctx, TrustOptions{
		Program: program, Environ: req.Environ, Dir: req.Project, File: file, Command: command,
		TrustProject: req.TrustProject && !req.User, ConfigFile: cfg,
	})
	if err != nil {
		return append(notes, "warning: Codex's trust of the hooks could not be saved: "+err.Error(), "next: `codex exec` skips untrusted hooks SILENTLY: "+byHand)
	}
	if t.ProjectTrusted {
		notes = append(notes, fmt.Sprintf("codex: marked %s a trusted project in %s", hookinstall.CanonicalPath(req.Project), cfg))
	}
	switch {
	case t.NotListed && !req.User:
		notes = append(notes, "next: "+projectTrustHint)
	case t.NotListed:
		notes = append(notes, fmt.Sprintf("warning: %s does not list the hooks of %s: check that hooks are on (`codex features list`)", program, file))
	case t.AllTrusted() && t.Trusted == 0:
		notes = append(notes, fmt.Sprintf("codex: the hooks are trusted already (%s)", cfg))
	case t.AllTrusted():
		notes = append(notes, fmt.Sprintf("codex: trusted %d hooks in %s (through codex app-server): `codex exec` runs them", t.Trusted, cfg))
	default:
		for _, h := range t.Hooks {
			if !h.Enabled || !h.Trusted() {
				notes = append(notes, fmt.Sprintf("warning: Codex hook %s is %s (enabled: %v): it will not run; see /hooks in codex", h.Key, h.TrustStatus, h.Enabled))
			}
		}
	}
	return notes
}

// untrustBeforeUninstall takes back what the install added to Codex's
// config.toml: the trust of loopbreaker's hooks, and the project's trust
// when the install added it. It runs while the hooks are still in the
// file (Codex names a hook's trust by its place there).
func untrustBeforeUninstall(ctx context.Context, req *agent.InstallRequest, command string) []string {
	if _, err := os.Stat(req.Path); err != nil {
		return nil
	}
	cfg := configPath(req.Getenv)
	program, ok := req.LookPath("codex")
	if !ok {
		return []string{fmt.Sprintf("warning: codex is not on PATH: the trust of loopbreaker's hooks stays in %s (harmless once they are gone; remove their hooks.state entries by hand if you like)", cfg)}
	}
	u, err := UntrustHooks(ctx, TrustOptions{
		Program: program, Environ: req.Environ, Dir: req.Project, File: req.Path, Command: command, ConfigFile: cfg,
	})
	if err != nil {
		return []string{fmt.Sprintf("warning: the trust of loopbreaker's hooks could not be removed from %s: %v", cfg, err)}
	}
	var notes []string
	if u.Hooks > 0 {
		notes = append(notes, fmt.Sprintf("codex: removed the trust of %d loopbreaker hooks from %s", u.Hooks, cfg))
	}
	if u.Project {
		notes = append(notes, fmt.Sprintf("codex: %s is no longer a trusted project in %s (the install had marked it)", hookinstall.CanonicalPath(req.Project), cfg))
	}
	return notes
}

// Installed reads loopbreaker's hooks in hooks.json at path.
func (a Agent) Installed(r *agent.Reads, path string) (hookinstall.Installed, []string) {
	return agent.InstalledFile(r, a.Format(), path)
}

// Status asks codex app-server (read-only) whether Codex runs the
// installed hooks; without codex it reads config.toml.
func (a Agent) Status(ctx context.Context, s *agent.StatusRequest) (string, []string) {
	var parts, warnings []string
	cfg := configPath(s.Getenv)
	for _, p := range s.Places {
		if len(p.Events) == 0 {
			continue
		}
		if s.Executable == "" {
			saved, trusted := configTrust(cfg, p.Path, s.Project)
			part := fmt.Sprintf("%s: %d trust hashes saved in %s (not checked: codex is not on PATH)", p.Level, saved, cfg)
			if p.Level == "project" && !trusted {
				part += "; the project is not marked trusted"
			}
			parts = append(parts, part)
			continue
		}
		command := ""
		if len(p.Programs) > 0 {
			command = hook.Command(p.Programs[0], a.Name())
		}
		t, err := TrustHooks(ctx, TrustOptions{
			Program: s.Executable, Environ: s.Environ, Dir: s.Project, File: p.Path, Command: command, ReadOnly: true,
		})
		switch {
		case err != nil:
			parts = append(parts, p.Level+": unknown ("+err.Error()+")")
		case t.NotListed && p.Level == "project":
			parts = append(parts, "project: NOT LOADED (the project is not trusted by Codex)")
			warnings = append(warnings, "Codex ignores "+p.Path+": the project is not trusted; `loopbreaker hook install codex --trust-project`")
		case t.NotListed:
			parts = append(parts, p.Level+": not listed by codex")
		case t.AllTrusted():
			parts = append(parts, fmt.Sprintf("%s: trusted (%d hooks)", p.Level, len(t.Hooks)))
		default:
			n := 0
			for _, h := range t.Hooks {
				if !h.Trusted() || !h.Enabled {
					n++
				}
			}
			parts = append(parts, fmt.Sprintf("%s: %d of %d hooks NOT trusted or disabled", p.Level, n, len(t.Hooks)))
			user := ""
			if p.Level == "user" {
				user = " --user"
			}
			warnings = append(warnings, "codex exec skips untrusted hooks silently: `loopbreaker hook install codex"+user+"` saves the trust")
		}
	}
	return strings.Join(parts, "; "), warnings
}

// Sessions are Codex's sessions (rollouts under CODEX_HOME/sessions) run
// in project since since.
func (Agent) Sessions(env *agent.Env, project string, since time.Time) []hookinstall.AgentSession {
	return sessionsIn(filepath.Dir(configPath(env.Getenv)), project, since)
}

// configWarnings reads the config.toml next to a Codex hooks.json
// just enough to warn: hooks switched off in [features], or inline
// [hooks] tables that Codex merges with hooks.json (with a warning of its
// own).
func configWarnings(dir string) []string {
	path := filepath.Join(dir, "config.toml")
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			// Codex cannot read it either, or reads what loopbreaker
			// cannot see: a change of the switches all the same.
			return []string{path + ": unreadable (" + err.Error() + ")"}
		}
		return nil
	}
	var out []string
	section := ""
	inline := false
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if i := strings.Index(l, "#"); i >= 0 && !strings.ContainsAny(l[:i], `"'`) {
			l = strings.TrimSpace(l[:i])
		}
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			if section == "hooks" || strings.HasPrefix(section, "hooks.") {
				inline = true
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || section != "features" {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if (k == "hooks" || k == "codex_hooks") && v == "false" {
			out = append(out, fmt.Sprintf("%s: [features] %s = false switches hooks off; set it to true (not changed for you)", filepath.Join(dir, "config.toml"), k))
		}
	}
	if inline {
		out = append(out, fmt.Sprintf("%s also defines hooks inline ([hooks] tables): Codex merges them with hooks.json and warns; consider keeping one of the two", filepath.Join(dir, "config.toml")))
	}
	return out
}

// configTrust reads CODEX_HOME/config.toml just enough to say, when
// codex cannot be asked, how many hooks of file have a saved trust hash
// (not checked against the current hooks) and whether dir is a trusted
// project.
func configTrust(configPath, file, dir string) (savedHashes int, trusted bool) {
	data, err := safeopen.ReadFile(configPath, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if err != nil {
		return 0, false
	}
	section := ""
	stateOfFile := false
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			stateOfFile = strings.HasPrefix(section, `hooks.state."`+file+":")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)
		switch {
		case stateOfFile && k == "trusted_hash" && v != "":
			savedHashes++
		case k == "trust_level" && v == "trusted" && (section == "projects."+tomlKey(dir) || section == "projects."+tomlKey(hookinstall.CanonicalPath(dir))):
			trusted = true
		}
	}
	return savedHashes, trusted
}
