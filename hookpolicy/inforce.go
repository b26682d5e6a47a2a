package hookpolicy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// The configuration a guarded session runs with is the one it started
// with (kept since the last reset), not whatever loopbreaker.yaml says
// now. A file changed or gone during the session — the agent's doing by a
// way the guard could not read, a person's branch switch, a teammate's
// commit pulled in — is said and not obeyed: the agent gains nothing by
// changing it, and a person's change does not halt the agent. The
// person's reset accepts the file as it is then; a new session starts
// with it.
//
// The state names the kept configuration by the hash of its JSON; the
// JSON itself is a file beside the state (configs/HASH.json under the
// hooks' directory), read only when the files say something else: every
// hook call decodes the state, and the configuration would triple it.

// configsDir holds the kept configurations, relative to the state
// directory.
const configsDir = DirName + "/configs"

// maxKeptConfig bounds the read of a kept configuration.
const maxKeptConfig = 1 << 20

// configName is the name of a configuration's JSON: the hex of the first
// 8 bytes of its SHA-256.
func configName(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// ReadKeptConfig reads the configuration kept under name in the state
// directory, checked against its name: a file changed since it was kept
// is refused, not obeyed.
func ReadKeptConfig(stateDir, name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, fmt.Errorf("the configuration kept for the session has no usable name (%q)", name)
	}
	root, err := nofollow.OpenRoot(stateDir, "the state directory")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel := path.Join(configsDir, name+".json")
	raw, err := root.ReadFile(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the configuration kept for the session (%s) is gone", root.Join(rel))
	case err != nil:
		return nil, fmt.Errorf("the configuration kept for the session cannot be read: %w", err)
	case len(raw) > maxKeptConfig:
		return nil, fmt.Errorf("the configuration kept for the session (%s) is larger than %d bytes", root.Join(rel), maxKeptConfig)
	case configName(raw) != name:
		return nil, fmt.Errorf("the configuration kept for the session (%s) was changed since it was kept", root.Join(rel))
	}
	return raw, nil
}

// keepConfigFile writes raw as the configuration named name, unless it
// is there already.
func (p *Policy) keepConfigFile(name string, raw []byte) error {
	rel := path.Join(configsDir, name+".json")
	root, err := p.noteRoot(rel)
	if err != nil {
		return err
	}
	defer root.Close()
	if have, err := root.ReadFile(rel); err == nil && configName(have) == name {
		return nil
	}
	return root.WriteAtomic(rel, raw, 0o644)
}

// keptEnabled is configInForce's answer in an update of a breaker the
// files switch off when the configuration in force (cfg) has it on: the
// update, which records nothing, is of no use, and the call is answered
// again with cfg.
type keptEnabled struct{ cfg lb.Config }

func (keptEnabled) Error() string {
	return "the configuration the session started with has the breaker on"
}

// configInForce decides, inside the update, with which configuration this
// call is answered: the files' when none is kept (it is kept from now
// on), else the kept one. Files that differ from the kept one are said on
// stderr once per change. Files that switch the breaker off while the
// kept configuration has it on end an update that would record nothing
// (keptEnabled): the call is answered again in one that records. A kept
// configuration that cannot be read (deleted, changed, written by another
// version) is an error: on_error decides, and a person's reset keeps the
// files' configuration.
func (c *call) configInForce() error {
	if c.EngineFor == nil || c.Guard == nil {
		return nil
	}
	marshal := c.ConfigJSON
	if marshal == nil {
		marshal = func(cfg lb.Config) ([]byte, error) { return jsonenc.Marshal(cfg) }
	}
	onDisk, err := marshal(c.onDisk)
	if err != nil {
		return fmt.Errorf("the configuration cannot be kept for the session: %w", err)
	}
	name, kept := configName(onDisk), c.tx.ConfigInForce()
	if kept == name {
		c.Config = c.onDisk
		return nil
	}
	if kept == "" {
		c.Config = c.onDisk
		if !c.onDisk.Enabled {
			return nil
		}
		if err := c.keepConfigFile(name, onDisk); err != nil {
			c.logf("loopbreaker: the configuration of session %s cannot be kept (%v): a change of loopbreaker.yaml during the session will be obeyed\n", c.Session, err)
			return nil
		}
		c.tx.KeepConfig(name)
		return nil
	}
	raw, err := ReadKeptConfig(c.StateDir, kept)
	var cfg lb.Config
	var what []string
	if err == nil {
		cfg, what, err = config.InForce(c.onDisk, raw)
	}
	if err != nil {
		return fmt.Errorf("session %s: %v; a person accepts the files' configuration with `loopbreaker reset --session %s`", c.Session, err, shell.Quote(c.Session))
	}
	if cfg.Enabled && !c.tx.Engine().Config.Enabled {
		// Nothing is said or changed yet: the call starts again.
		return keptEnabled{cfg}
	}
	c.tx.UseEngine(c.EngineFor(cfg))
	c.Config = cfg
	if m := c.tx.Peek(); m != nil && m.ConfigOnDisk == name {
		return nil
	}
	c.tx.Memory().ConfigOnDisk = name
	if len(what) > 4 {
		what = append(what[:4], fmt.Sprintf("and %d more", len(what)-4))
	}
	c.logf("loopbreaker: loopbreaker's configuration changed during session %s (%s); the session goes on with the one it started with. A person applies the new one from their terminal: loopbreaker reset --session %s\n",
		c.Session, strings.Join(what, "; "), shell.Quote(c.Session))
	return nil
}
