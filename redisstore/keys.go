package redisstore

import (
	"hash/maphash"
	"slices"
	"sync"
)

// keys names the Redis keys of one prefix. Every key carries the hash tag
// {prefix}, so that in a Redis Cluster one update's keys (its scopes,
// their journals, the scope set) share a slot, as a script requires.
type keys struct {
	prefix    string
	prefixTag string // "{prefix}:"
	schema    string
	scopes    string
}

func newKeys(prefix string) keys {
	tag := "{" + prefix + "}:"
	return keys{prefix: prefix, prefixTag: tag, schema: tag + "schema", scopes: tag + "scopes"}
}

func (k keys) state(scope string) string   { return k.prefixTag + "s:" + scope }
func (k keys) journal(scope string) string { return k.prefixTag + "j:" + scope }
func (k keys) turn(scope string) string    { return k.prefixTag + "t:" + scope }

// stripes are this process's per-scope locks (hashed into a fixed set).
type stripes struct {
	seed maphash.Seed
	init sync.Once
	mu   [256]sync.Mutex
}

// lock takes the stripes of scopes in index order (no deadlock between
// updates over overlapping sets) and returns the unlock.
func (s *stripes) lock(scopes []string) func() {
	s.init.Do(func() { s.seed = maphash.MakeSeed() })
	idx := make([]int, 0, len(scopes))
	for _, sc := range scopes {
		i := int(maphash.String(s.seed, sc) % uint64(len(s.mu)))
		if !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	for _, i := range idx {
		s.mu[i].Lock()
	}
	return func() {
		for _, i := range idx {
			s.mu[i].Unlock()
		}
	}
}
