package hookpolicy

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// GuardInput is what the guard of one hook call is built from.
type GuardInput struct {
	// Agent is the calling CLI: only its settings are protected and
	// fingerprinted, and only its files are read.
	Agent   agent.Agent
	Project string
	// Home is the user's home directory, Getenv the environment.
	Home   string
	Getenv func(string) string
	// StateDir is the session's state directory, StateRoot the directory
	// of every project's state ("" when unknown).
	StateDir, StateRoot string
	// Config are the configuration files besides the project's; Binaries
	// the loopbreaker program's paths.
	Config, Binaries []string
	// Resident is the resident breaker's socket directory ("" when none).
	Resident string
	// Reads reads the CLI's settings files (nil: each file once for this
	// guard).
	Reads *agent.Reads
	// AgentSet is what the CLI's own files set of loopbreaker's variables
	// in its hooks' environment, which the call did not obey
	// (internal/cli hook_env.go): set during a session, it is a change of
	// the guard all the same.
	AgentSet []agent.SetVar
}

// NewGuard is what the hook protects from the agent: the project's
// configuration and state, every state directory, the calling CLI's hook
// settings (every file and folder that decides whether its hooks run) and
// the loopbreaker program; and the fingerprint of the configuration and
// of loopbreaker's hooks in those settings, this call's.
func NewGuard(in GuardInput) *Guard {
	p := tamper.Protected{
		Project:   in.Project,
		Home:      in.Home,
		StateDir:  in.StateDir,
		StateRoot: in.StateRoot,
		Config:    in.Config,
		Binaries:  in.Binaries,
		Resident:  in.Resident,
		Vars:      map[string]string{},
	}
	for _, name := range []string{"HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "LOOPBREAKER_DIR", "LOOPBREAKER_STATE_DIR"} {
		if v := in.Getenv(name); v != "" {
			p.Vars[name] = v
		}
	}
	if p.Vars["HOME"] == "" && in.Home != "" {
		p.Vars["HOME"] = in.Home
	}
	g := in.Agent.Guarded(in.Project, in.Getenv)
	for k, v := range g.Vars {
		p.Vars[k] = v
	}
	p.Hooks, p.HookDirs = g.Files, g.Dirs
	r := in.Reads
	if r == nil {
		r = &agent.Reads{}
	}
	doc := fingerprintOf(in, r)
	fp := hashDoc(doc, jsonenc.Marshal)
	return &Guard{Protected: p, Fingerprint: string(in.Agent.Name()) + fingerprintKind + fp, Switches: doc.Switches}
}

// fingerprintKind follows the CLI's name in its fingerprint's sender: the
// fingerprint covers its hook settings only (the configuration in force is
// kept whole in the state), and a state kept by a version whose
// fingerprint covered the configuration too is not read as a change.
const fingerprintKind = "/hooks="

// fingerprintPlace is one settings file of the calling CLI in the
// fingerprint.
type fingerprintPlace struct {
	Path      string
	Installed hookinstall.Installed
}

// fingerprintDoc is what the fingerprint hashes, as JSON.
type fingerprintDoc struct {
	Hooks []fingerprintPlace
	// Switches are the calling CLI's settings that decide whether its
	// hooks run (agent.Agent.Switches).
	Switches []string `json:",omitempty"`
}

// fingerprintOf is what the fingerprint hashes: loopbreaker's entries in
// the calling CLI's hook settings (project and user) and the switches
// that decide whether its hooks run at all. Other settings of those files (permissions the CLI saves as the
// person approves them) are not part of it. Each file is read once,
// through r, for both.
func fingerprintOf(in GuardInput, r *agent.Reads) fingerprintDoc {
	doc := fingerprintDoc{Switches: in.Agent.Switches(r, in.Project, in.Getenv)}
	doc.Switches = append(doc.Switches, agent.EnvSwitches(in.AgentSet, func(string) bool { return true })...)
	for _, user := range []bool{false, true} {
		path, err := in.Agent.SettingsPath(user, in.Project, in.Getenv)
		if err != nil {
			continue
		}
		installed, _ := in.Agent.Installed(r, path)
		doc.Hooks = append(doc.Hooks, fingerprintPlace{Path: path, Installed: installed})
	}
	return doc
}

// hashDoc is the first 6 bytes of the SHA-256 of doc's JSON (as marshal
// writes it), in hex; "" when it cannot be encoded.
func hashDoc(doc fingerprintDoc, marshal func(any) ([]byte, error)) string {
	b, err := marshal(doc)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
