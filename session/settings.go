package session

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// Engine is the engine of one breaker scope: the configuration with the
// settings that scope gets (a breakers: entry, the loop's own settings
// for session: and slice: scopes, else the template). It is the one
// answer to "which settings does this scope get" for every adapter.
func Engine(cfg lb.Config, scope string, now func() time.Time) *breaker.Engine {
	return scoped.EngineFor(cfg, scope, now)
}

// Engine is the engine of scope with the session's configuration.
func (s *Session) Engine(scope string) *breaker.Engine { return Engine(s.Config, scope, s.opts.Now) }
