package config

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/loopbreaker/loopbreaker"
)

// maxCached bounds the configurations a Cache keeps: one per project and
// environment a long-running process answers for, a handful in practice.
const maxCached = 64

// Cache keeps the configurations Load made, for a process that loads one
// after another (the resident breaker answers every hook call of every
// project of its user). Each Load still reads every file and looks at
// the environment, as Load does; only the decoding and validation are
// skipped when all of it is what an earlier Load read, byte for byte. So
// an edited, deleted or new loopbreaker.yaml, user file or variable is
// seen by the very next Load, whatever the files' times say. A Load that
// fails is never kept. The zero value is ready; it is safe for concurrent
// use.
type Cache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*Loaded
}

// Load is Load, from the cache when nothing it reads has changed. The
// Loaded returned is the caller's own (a copy).
func (c *Cache) Load(opts Options) (*Loaded, error) {
	in, err := readInputs(opts)
	if err != nil {
		return nil, err
	}
	key, ok := in.key(opts)
	if ok {
		c.mu.Lock()
		l := c.entries[key]
		c.mu.Unlock()
		if l != nil {
			return l.clone(), nil
		}
	}
	l, err := in.load(opts)
	if err != nil || !ok {
		return l, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCached {
		// Forgetting them all only costs one decoding each.
		c.entries = map[[sha256.Size]byte]*Loaded{}
	}
	c.entries[key] = l.clone()
	return l, nil
}

// key is the digest of everything load decodes: opts, the variables Load
// reads and the files' paths, names and bytes. ok is false when a file
// could not be read for another reason than its absence (its error is
// reported by every Load, never kept).
func (in inputs) key(opts Options) (key [sha256.Size]byte, ok bool) {
	h := sha256.New()
	putBytes := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	put := func(s string) { putBytes([]byte(s)) }
	put(opts.ProjectDir)
	put(opts.UserConfigDir)
	flags := make([]string, 0, len(opts.Flags))
	for k, v := range opts.Flags {
		flags = append(flags, k+"="+v)
	}
	slices.Sort(flags)
	put(strings.Join(flags, "\x00"))
	vars := make([]string, 0, 16)
	for k, v := range in.env {
		if readsEnv(k) {
			vars = append(vars, k+"="+v)
		}
	}
	slices.Sort(vars)
	put(strings.Join(vars, "\x00"))
	for _, f := range []fileRead{in.user, in.project} {
		put(f.path)
		put(f.name)
		switch {
		case f.path == "":
		case f.err == nil:
			put("read")
			putBytes(f.data)
		case errors.Is(f.err, os.ErrNotExist):
			put("absent")
		default:
			return key, false
		}
	}
	if in.explicit {
		put("explicit")
	}
	h.Sum(key[:0])
	return key, true
}

// readsEnv reports whether Load reads the variable name: where the user
// file is (HOME, XDG_CONFIG_HOME), every LOOPBREAKER_ variable that is a
// setting, LOOPBREAKER_CONFIG, or an unknown one Load refuses, and
// Ralph's names. The variables that are no settings (NonConfigEnv) are
// left out: they change with every call (the thin client's start,
// LOOPBREAKER_HOOK_STARTED) and would make every key new.
func readsEnv(name string) bool {
	if name == "HOME" || name == "XDG_CONFIG_HOME" || name == "LOOPBREAKER_CONFIG" {
		return true
	}
	if strings.HasPrefix(name, envPrefix) {
		return !isNonConfigEnv(name)
	}
	return slices.ContainsFunc(ralphAliases(), func(a envAlias) bool { return a.name == name })
}

// clone is a deep copy of l: the cache's own stays as it was decoded
// whatever its users do with theirs.
func (l *Loaded) clone() *Loaded {
	out := &Loaded{
		Sources:      make(map[string]Source, len(l.Sources)),
		entrySources: make(map[string]Source, len(l.entrySources)),
		inherited:    make(map[string]string, len(l.inherited)),
	}
	out.Config = Clone(l.Config)
	for k, v := range l.Sources {
		out.Sources[k] = v
	}
	for k, v := range l.entrySources {
		out.entrySources[k] = v
	}
	for k, v := range l.inherited {
		out.inherited[k] = v
	}
	return out
}

// Clone is a deep copy of cfg: it shares no list or map with it.
func Clone(cfg loopbreaker.Config) loopbreaker.Config {
	var out loopbreaker.Config
	deepCopy(reflect.ValueOf(&out).Elem(), reflect.ValueOf(cfg))
	return out
}

// deepCopy sets dst to a copy of src that shares no slice, map or pointer
// with it. The configuration is plain data (the schema walks it by
// reflection too); an unexported field is copied as it is.
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		dst.Set(src)
		for i := 0; i < src.NumField(); i++ {
			if dst.Field(i).CanSet() {
				deepCopy(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			deepCopy(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			m.SetMapIndex(it.Key(), v)
		}
		dst.Set(m)
	case reflect.Pointer:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			dst.Set(reflect.Zero(src.Type()))
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		deepCopy(v, src.Elem())
		dst.Set(v)
	default:
		dst.Set(src)
	}
}
