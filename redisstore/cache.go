package redisstore

import (
	"sync"

	lb "github.com/loopbreaker/loopbreaker"
)

// DefaultCachedStates is how many decoded states a Store keeps.
const DefaultCachedStates = 1024

// stateCache keeps the decoded state of the scopes this process used,
// keyed by their version token: an update that finds the token unchanged
// (or that a compare-and-set proves unchanged) skips reading and decoding
// the 4 KB of JSON. Entries are never handed out, only copies of them, so
// a caller keeping a state shares no memory with the next update.
type stateCache struct {
	mu  sync.Mutex
	max int
	m   map[string]cachedState
}

type cachedState struct {
	token string
	state *lb.BreakerState
}

// get returns a copy of scope's state if it is cached under token.
func (c *stateCache) get(scope, token string) (*lb.BreakerState, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.m[scope]
	c.mu.Unlock()
	if !ok || e.token != token {
		return nil, false
	}
	return e.state.Clone(), true
}

// take removes scope's entry and returns it itself, not a copy: for an
// update holding the scope's local lock, which may change it in place and
// puts a copy back when it is done (one copy per record instead of two).
func (c *stateCache) take(scope string) (*lb.BreakerState, string, bool) {
	if c.max <= 0 {
		return nil, "", false
	}
	c.mu.Lock()
	e, ok := c.m[scope]
	delete(c.m, scope)
	c.mu.Unlock()
	return e.state, e.token, ok
}

// put keeps a copy of st as scope's state under token.
func (c *stateCache) put(scope, token string, st *lb.BreakerState) {
	if c.max <= 0 || token == "" || st == nil {
		return
	}
	c.own(scope, token, st.Clone())
}

// putDone is put for a state its holder is done changing (an update's,
// handed to its caller): the copy takes the attempt history's spare room,
// and st keeps the same attempts clipped to their number. The next record
// of the scope, which takes the cached state, appends in place instead of
// moving the whole history to a new array, and st cannot see it.
func (c *stateCache) putDone(scope, token string, st *lb.BreakerState) {
	if c.max <= 0 || token == "" || st == nil {
		return
	}
	cp := st.Clone()
	cp.Attempts, st.Attempts = st.Attempts, cp.Attempts
	c.own(scope, token, cp)
}

// own keeps st itself as scope's state: st must be shared with no one.
func (c *stateCache) own(scope, token string, cp *lb.BreakerState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cachedState)
	}
	if _, ok := c.m[scope]; !ok && len(c.m) >= c.max {
		for k := range c.m { // any one: the map's order is random enough
			delete(c.m, k)
			break
		}
	}
	c.m[scope] = cachedState{token: token, state: cp}
}

func (c *stateCache) drop(scope string) {
	c.mu.Lock()
	delete(c.m, scope)
	c.mu.Unlock()
}
