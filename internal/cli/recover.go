package cli

import (
	"context"
	"errors"
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/redisstore"
)

type recoverOptions struct {
	common
	discard bool
}

// runRecover rebuilds a session's state from its journal (the newest
// snapshot entry plus every event after it), or with --discard starts it
// over from CLOSED. Either way the old state file is kept aside and the
// journal records what was done.
func runRecover(ctx context.Context, env *Env, args []string) error {
	var o recoverOptions
	fs := newFlagSet("recover", env)
	o.register(fs, env, true)
	fs.BoolVar(&o.discard, "discard", false, "do not replay: start over from CLOSED (the breaker's memory is lost)")
	w, err := o.parseOpen(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := refuseUnderAgent(env, "recover", w.Name); err != nil {
		return err
	}
	// What recover writes is the person's: the witness takes it as the
	// mark to compare the next updates with.
	defer func() {
		if st, err := w.Store.Load(ctx, w.Scope); err == nil {
			w.Service.Remember([]*lb.BreakerState{st})
		}
	}()
	_, loadErr := w.Store.Load(ctx, w.Scope)
	if loadErr != nil && !errors.Is(loadErr, lb.ErrCorruptState) {
		return loadErr
	}
	if o.discard {
		fresh := lb.NewBreakerState(w.Scope)
		if err := w.Store.Replace(ctx, w.Scope, fresh); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "loopbreaker: %s discarded and started over from CLOSED (the journal keeps the old history)\n", w.Scope)
		return nil
	}
	stats, err := journalStats(ctx, w.Store, w.Scope)
	if err != nil {
		return err
	}
	st, replayed, err := w.Service.Rebuild(ctx, w.Scope)
	if err != nil {
		return fmt.Errorf("%w\nthe journal cannot be replayed; `loopbreaker recover --discard` starts over from CLOSED", err)
	}
	if stats.Entries == 0 && loadErr != nil {
		return fmt.Errorf("no journal to rebuild %s from (%s); `loopbreaker recover --discard` starts over from CLOSED", w.Scope, stats.Path)
	}
	if err := w.Store.Replace(ctx, w.Scope, st); err != nil {
		return err
	}
	how := "the state file was fine; rebuilt anyway"
	if loadErr != nil {
		how = "the corrupt state file was kept aside"
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: %s rebuilt from %s: %d events replayed, state %s (%s)\n", w.Scope, stats.Path, replayed, st.State, how)
	if stats.Skipped > 0 || stats.TruncatedTail {
		fmt.Fprintf(env.Stdout, "  skipped %d unreadable journal lines", stats.Skipped)
		if stats.TruncatedTail {
			fmt.Fprint(env.Stdout, " and a half-written last line")
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

// journalStats describes the scope's journal in either store: a file's
// path, or a Redis stream's key.
func journalStats(ctx context.Context, store lb.Store, scope string) (filestore.JournalStats, error) {
	if rs, ok := store.(*redisstore.Store); ok {
		js, err := rs.JournalStats(ctx, scope)
		return filestore.JournalStats{Path: "the Redis stream " + js.Key, Entries: js.Entries, Skipped: js.Skipped,
			FirstSeq: js.FirstSeq, LastSeq: js.LastSeq}, err
	}
	fs, ok := store.(*filestore.Store)
	if !ok {
		return filestore.JournalStats{}, fmt.Errorf("the store cannot describe its journal")
	}
	return fs.JournalStats(ctx, scope)
}
