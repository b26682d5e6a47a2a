package hookpolicy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
)

// The configuration a guarded session runs with is the one it started
// with (kept in the breaker state since the last reset), not whatever
// loopbreaker.yaml says now. A file changed or gone during the session —
// the agent's doing by a way the guard could not read, a person's branch
// switch, a teammate's commit pulled in — is said and not obeyed: the
// agent gains nothing by changing it, and a person's change does not halt
// the agent. The person's reset accepts the file as it is then; a new
// session starts with it.

// adoptKeptWhenDisabled, before the update, makes the configuration in
// force the kept one when the file now says enabled: false: a breaker
// switched off records nothing, so the update must run with the kept
// configuration from its start. A state that cannot be read here is left
// to the update, which reports it.
func (p *Policy) adoptKeptWhenDisabled(ctx context.Context) {
	if p.Config.Enabled || p.EngineFor == nil || p.Guard == nil {
		return
	}
	st, err := p.Service.Store.Load(ctx, p.Scope)
	if err != nil || st.ConfigInForce == nil {
		return
	}
	kept, _, err := config.InForce(p.Config, st.ConfigInForce)
	if err != nil || !kept.Enabled {
		return
	}
	svc := *p.Service
	svc.Engine = p.EngineFor(kept)
	p.Service, p.Config = &svc, kept
}

// configInForce decides, inside the update, with which configuration this
// call is answered: the file's when none is kept (it is kept from now
// on), else the kept one. A file that differs from the kept one is said
// on stderr once per change. A kept configuration that cannot be read
// (written by another version) is an error: on_error decides, and a
// person's reset keeps the file's.
func (c *call) configInForce() error {
	if c.EngineFor == nil || c.Guard == nil {
		return nil
	}
	onDisk, err := jsonenc.Marshal(c.onDisk)
	if err != nil {
		return fmt.Errorf("the configuration cannot be kept for the session: %w", err)
	}
	raw := c.tx.ConfigInForce()
	if raw == nil {
		c.Config = c.onDisk
		if c.onDisk.Enabled {
			c.tx.KeepConfig(onDisk)
		}
		return nil
	}
	if bytes.Equal(raw, onDisk) {
		c.Config = c.onDisk
		return nil
	}
	kept, what, err := config.InForce(c.onDisk, raw)
	if err != nil {
		return fmt.Errorf("session %s: %v; a person accepts the file as it is now with `loopbreaker reset --session %s`", c.Session, err, ShellWord(c.Session))
	}
	c.tx.UseEngine(c.EngineFor(kept))
	c.Config = kept
	sum := sha256.Sum256(onDisk)
	hash := hex.EncodeToString(sum[:6])
	if m := c.tx.Peek(); m != nil && m.ConfigOnDisk == hash {
		return nil
	}
	c.tx.Memory().ConfigOnDisk = hash
	if len(what) > 4 {
		what = append(what[:4], fmt.Sprintf("and %d more", len(what)-4))
	}
	c.logf("loopbreaker: loopbreaker's configuration changed during session %s (%s); the session goes on with the one it started with. A person applies the new one from their terminal: loopbreaker reset --session %s\n",
		c.Session, strings.Join(what, "; "), ShellWord(c.Session))
	return nil
}
