package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
	"github.com/loopbreaker/loopbreaker/session"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// hookGuard is what the hook protects from the agent: the project's
// configuration and state, every state directory, the agent CLIs' hook
// settings (project and user) and the loopbreaker program; and the
// fingerprint of the configuration and hook settings this call runs with.
func hookGuard(env *Env, w *workspace) *hookpolicy.Guard {
	home := env.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	p := tamper.Protected{
		Project:   w.project,
		Home:      home,
		StateDir:  w.stateDir,
		StateRoot: guardStateRoot(env, w),
		Vars:      map[string]string{},
	}
	for _, name := range []string{"HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "PI_CODING_AGENT_DIR", "LOOPBREAKER_DIR", "LOOPBREAKER_STATE_DIR"} {
		if v := env.Getenv(name); v != "" {
			p.Vars[name] = v
		}
	}
	if p.Vars["HOME"] == "" && home != "" {
		p.Vars["HOME"] = home
	}
	if f := env.Getenv("LOOPBREAKER_CONFIG"); f != "" {
		p.Config = append(p.Config, absIn(w.project, f))
	}
	if dir := env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		p.Config = append(p.Config, filepath.Join(dir, "loopbreaker", "config.yaml"))
	} else if home != "" {
		p.Config = append(p.Config, filepath.Join(home, ".config", "loopbreaker", "config.yaml"))
	}
	for _, tool := range hook.AllTools() {
		for _, user := range []bool{false, true} {
			path, err := hook.SettingsPath(tool, user, w.project, env.Getenv)
			switch {
			case err != nil:
			case tool == hook.Cline:
				// A folder: every script in it is a hook.
				p.HookDirs = append(p.HookDirs, path)
			default:
				p.Hooks = append(p.Hooks, path)
			}
		}
	}
	p.Hooks = append(p.Hooks, codexConfigPath(env))
	if dir := env.Getenv("COPILOT_HOME"); filepath.IsAbs(dir) {
		p.HookDirs = append(p.HookDirs, filepath.Join(dir, "hooks"))
	}
	if dir := env.Getenv("PI_CODING_AGENT_DIR"); filepath.IsAbs(dir) {
		p.HookDirs = append(p.HookDirs, filepath.Join(dir, "extensions"))
	}
	// OpenCode also reads the configuration file OPENCODE_CONFIG names,
	// which can list more plugins.
	if f := env.Getenv("OPENCODE_CONFIG"); f != "" {
		p.Hooks = append(p.Hooks, absIn(w.project, f))
	}
	if dir := env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		p.HookDirs = append(p.HookDirs, filepath.Join(dir, "opencode", "plugins"), filepath.Join(dir, "opencode", "plugin"))
	}
	if exe, err := os.Executable(); err == nil {
		p.Binaries = append(p.Binaries, exe)
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			p.Binaries = append(p.Binaries, real)
		}
	}
	if path, ok := lookPath(env, "loopbreaker"); ok {
		p.Binaries = append(p.Binaries, path)
	}
	return &hookpolicy.Guard{Protected: p, Fingerprint: guardFingerprint(env, w)}
}

// guardStateRoot is the directory of every project's state, as this
// call's configuration places it (state_dir); "" when there is none.
func guardStateRoot(env *Env, w *workspace) string {
	root, err := session.StateRoot(w.cfg, env.Getenv)
	if err != nil {
		return ""
	}
	return root
}

func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// guardFingerprint hashes the effective configuration and loopbreaker's
// entries in every agent CLI's hook settings (project and user): what
// decides whether and how the agent is guarded. Other settings of those
// files (permissions the CLI saves as the person approves them) are not
// part of it.
func guardFingerprint(env *Env, w *workspace) string {
	// jsonenc.Marshal gives json.Marshal's bytes (the fingerprints breakers
	// hold were made with it) without building its tables of every type
	// under lb.Config in each hook process.
	return hashDoc(fingerprintOf(env, w), jsonenc.Marshal)
}

// fingerprintPlace is one agent CLI's settings file in the fingerprint.
type fingerprintPlace struct {
	Path      string
	Installed hookinstall.Installed
}

// fingerprintDoc is what the fingerprint hashes, as JSON.
type fingerprintDoc struct {
	Config any
	Hooks  []fingerprintPlace
}

func fingerprintOf(env *Env, w *workspace) fingerprintDoc {
	doc := fingerprintDoc{Config: w.cfg}
	for _, tool := range hook.AllTools() {
		for _, user := range []bool{false, true} {
			path, err := hook.SettingsPath(tool, user, w.project, env.Getenv)
			if err != nil {
				continue
			}
			pl := fingerprintPlace{Path: path}
			if tool == hook.Cline {
				events, prog := hookinstall.ClineInstalled(path)
				pl.Installed = hookinstall.Installed{Events: events}
				if prog != "" {
					pl.Installed.Programs = []string{prog}
				}
			} else if data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit); err == nil {
				pl.Installed = hookinstall.FindInstalled(tool, data)
			}
			doc.Hooks = append(doc.Hooks, pl)
		}
	}
	return doc
}

// hashDoc is the first 6 bytes of the SHA-256 of doc's JSON, in hex; ""
// when it cannot be encoded.
func hashDoc(doc fingerprintDoc, marshal func(any) ([]byte, error)) string {
	b, err := marshal(doc)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
