package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/redisstore"
	"github.com/loopbreaker/loopbreaker/session"
)

type migrateOptions struct {
	project  string
	from, to string
	json     bool
}

// runMigrate copies every breaker (state and journal) from one store to
// another: a state directory to Redis, Redis to a state directory, or
// between two of either. The destination must not hold the scopes yet.
// Without --to the destination is this project's state directory (a
// project moved from --from takes its breakers along).
func runMigrate(ctx context.Context, env *Env, args []string) error {
	var o migrateOptions
	fs := newFlagSet("migrate", env)
	fs.StringVar(&o.project, "C", env.globals.project, "project `dir`ectory (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	fs.StringVar(&o.from, "from", "", "the store to copy from: a state `dir`ectory, a project (its state directory, wherever it is; the project may be gone) or redis://host:port/db")
	fs.StringVar(&o.to, "to", "", "the store to copy to: redis://host:port/db, a state `dir`ectory or a project (default: this project's state directory)")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of text")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case o.from == "":
		return usagef("migrate needs --from, e.g. --from . --to redis://127.0.0.1:6379/0")
	}
	src, srcName, err := openMigrateStore(env, o.from, true)
	if err != nil {
		return err
	}
	defer src.Close()
	to := o.to
	if to == "" {
		project, err := projectDir(env, o.project)
		if err != nil {
			return err
		}
		if to, _, err = stateDirOf(env, project); err != nil {
			return err
		}
	}
	dst, dstName, err := openMigrateStore(env, to, false)
	if err != nil {
		return err
	}
	defer dst.Close()
	res, err := migrate(ctx, src, dst)
	if err != nil {
		return fmt.Errorf("migrate %s to %s: %w", srcName, dstName, err)
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"from": srcName, "to": dstName, "scopes": res.scopes, "entries": res.entries})
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: copied %d breakers (%d journal entries) from %s to %s\n", len(res.scopes), res.entries, srcName, dstName)
	return nil
}

func dirExists(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// openMigrateStore opens a redis:// URL or a state directory. A directory
// without scopes/ of its own is a project: its state directory under the
// state root (a project that was moved away or deleted is found by its
// old path).
func openMigrateStore(env *Env, where string, source bool) (lb.Store, string, error) {
	flag := "--to"
	if source {
		flag = "--from"
	}
	if scheme, _, ok := strings.Cut(where, "://"); ok && !lb.StoreIsRedis(where) {
		// Not a directory named "reddis:". Only the scheme: the rest may
		// hold a password.
		if len(scheme) > 16 {
			scheme = scheme[:16] + "..."
		}
		return nil, "", usagef("%s %s://...: unknown scheme %q; want redis://host:port/db, rediss://... (TLS), or a state directory", flag, scheme, scheme)
	}
	if lb.StoreIsRedis(where) {
		s, err := redisstore.Open(redisstore.Options{
			URL: where, Username: env.Getenv("LOOPBREAKER_REDIS_USERNAME"), Password: env.Getenv("LOOPBREAKER_REDIS_PASSWORD"),
			MaxEntries: -1, Now: env.Now,
		})
		if err != nil {
			return nil, "", err
		}
		return s, s.String(), nil
	}
	dir := abs(env, where)
	if _, err := os.Stat(filepath.Join(dir, "scopes")); errors.Is(err, fs.ErrNotExist) {
		if project := dir; source || session.HasProjectMarker(project) {
			keyed, err := keyedStateDir(env, project)
			if err != nil {
				return nil, "", err
			}
			dir = keyed
			if _, err := os.Stat(dir); source && err != nil {
				return nil, "", usagef("--from %s: no state directory %s, nor a state directory there; pass a state directory, a project with state, or a redis:// URL", where, dir)
			}
		}
	}
	if source {
		if _, err := os.Stat(dir); err != nil {
			return nil, "", usagef("%s %s: %v; pass a state directory or a redis:// URL", flag, where, err)
		}
		s, err := filestore.OpenReadOnly(dir, filestore.Options{Now: env.Now})
		return s, dir, err
	}
	s, err := filestore.Open(dir, filestore.Options{MaxJournalBytes: -1, Now: env.Now})
	return s, dir, err
}

type migrated struct {
	scopes  []string
	entries int
}

// migrate copies each scope in one destination update: the state as it
// is and its current journal (entry times kept; seqs numbered from 1 in
// the destination, which matters only when the source journal was
// rotated or trimmed).
func migrate(ctx context.Context, src, dst lb.Store) (migrated, error) {
	var res migrated
	scopes, err := src.Scopes(ctx)
	if err != nil {
		return res, err
	}
	existing, err := dst.Scopes(ctx)
	if err != nil {
		return res, err
	}
	for _, sc := range scopes {
		if slices.Contains(existing, sc) {
			return res, errDestinationHas(sc)
		}
	}
	for _, sc := range scopes {
		st, err := src.Load(ctx, sc)
		if err != nil {
			return res, fmt.Errorf("read %s: %w (repair it with `loopbreaker recover --scope %s` first)", sc, err, sc)
		}
		journal, err := src.Journal(ctx, sc, 0)
		if err != nil {
			return res, fmt.Errorf("read the journal of %s: %w", sc, err)
		}
		// A trimmed Redis journal's entries before its first snapshot
		// cannot be replayed: the copy starts at that snapshot.
		for i, e := range journal {
			if e.Type == lb.EntrySnapshot {
				if i > 0 && journal[0].Seq != 1 {
					journal = journal[i:]
				}
				break
			}
		}
		if len(journal) == 0 {
			journal = []lb.JournalEntry{{Time: st.UpdatedAt, Type: lb.EntrySnapshot, Snapshot: st}}
			if journal[0].Time.IsZero() {
				journal[0].Time = time.Unix(0, 0).UTC()
			}
		}
		err = dst.Update(ctx, []string{sc}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			if states[0].Seq != 0 {
				return nil, errDestinationHas(sc) // written meanwhile
			}
			*states[0] = *st
			entries := make([]lb.JournalEntry, len(journal))
			copy(entries, journal)
			return [][]lb.JournalEntry{entries}, nil
		})
		if err != nil {
			return res, fmt.Errorf("write %s: %w", sc, err)
		}
		res.scopes = append(res.scopes, sc)
		res.entries += len(journal)
	}
	return res, nil
}

// errDestinationHas says that migrate will not overwrite a breaker, and
// what to do.
func errDestinationHas(scope string) error {
	return fmt.Errorf("the destination already has breaker %s; migrate copies into a store that does not have them (move it aside, or use another prefix: redis://...?prefix=NAME)", scope)
}
