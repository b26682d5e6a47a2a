package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/httpapi"
	"github.com/loopbreaker/loopbreaker/internal/origin"
	"github.com/loopbreaker/loopbreaker/metrics"
	"github.com/loopbreaker/loopbreaker/notify"
	"github.com/loopbreaker/loopbreaker/redisstore"
	"github.com/loopbreaker/loopbreaker/scoped"
)

type serveOptions struct {
	common
	addr            string
	templateScopes  string
	writeThrough    bool
	checkpointEvery time.Duration
	evictInterval   time.Duration
	shutdownTimeout time.Duration
	maxConnections  int
	maxBreakers     int
}

// runServe serves the scoped breakers over HTTP until ctx ends (SIGINT,
// SIGTERM), then finishes the requests under way, saves what is pending
// and exits 0.
func runServe(ctx context.Context, env *Env, args []string) error {
	var o serveOptions
	fs := newFlagSet("serve", env)
	o.registerProject(fs, env)
	fs.StringVar(&o.addr, "addr", "", "listen `address` (default: server.addr, 127.0.0.1:7777; port 0 picks a free one)")
	fs.StringVar(&o.templateScopes, "template-scopes", strings.Join(scoped.DefaultTemplateKinds(), ","),
		"scope `kinds` that get a breaker from breaker_template on first use (comma-separated: agent, session, slice, category, stakes, tag; empty: none)")
	fs.BoolVar(&o.writeThrough, "write-through", false, "write every batch of changes to the state files before answering, instead of to the write-ahead log (slower; the files are never behind)")
	fs.DurationVar(&o.checkpointEvery, "checkpoint-every", time.Second, "how often changes in the write-ahead log are written to the state files")
	fs.DurationVar(&o.evictInterval, "evict-interval", time.Minute, "how often idle template breakers are looked for (they go after evict_after)")
	fs.IntVar(&o.maxConnections, "max-connections", httpapi.DefaultMaxConnections, "connections open at once; one more gets 503 and is closed")
	fs.IntVar(&o.maxBreakers, "max-breakers", breakerserver.DefaultMaxLive, "breakers kept in memory; beyond it the least recently used CLOSED ones are forgotten from memory (their state stays in the store and is read again on use)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long requests under way may take to finish")
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "shared" {
			return usagef("--shared was removed: the server keeps the breakers in memory and takes a lock, one server per state directory, so several servers never shared a store; run one server per project (several agents can use it), or several servers on one Redis (store: redis://host:6379/0)")
		}
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if o.evictInterval <= 0 || o.shutdownTimeout <= 0 || o.checkpointEvery <= 0 || o.maxConnections <= 0 || o.maxBreakers <= 0 {
		return usagef("--evict-interval, --shutdown-timeout, --checkpoint-every, --max-connections and --max-breakers must be positive")
	}
	// A server owns its shutdown, whoever calls it: SIGINT and SIGTERM end
	// it gracefully.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	o.session = "default" // unused by the server; open wants one
	w, err := o.open(env)
	if err != nil {
		return err
	}
	defer w.Close()
	cfg := w.Config
	addr := o.addr
	if addr == "" {
		addr = cfg.Server.Addr
	}
	var kinds []string
	for k := range strings.SplitSeq(o.templateScopes, ",") {
		if k = strings.TrimSpace(k); k != "" {
			kinds = append(kinds, k)
		}
	}
	if kinds == nil {
		kinds = []string{}
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	// On a state directory the cache is authoritative: one server per
	// directory. On Redis every server is a peer: nothing is cached, every
	// call is one store update (fleet.go).
	rs, fleet := w.Store.(*redisstore.Store)
	if fleet {
		// A server writes hot scopes (global) without pause, as the
		// other servers do: the one that loses goes next.
		rs.TakeTurns()
	}
	if !fleet {
		release, err := lockServer(w.StateDir, addr)
		if err != nil {
			return err
		}
		defer release()
	}

	var notifier *notify.Notifier
	if cfg.Notify.WebhookURL != "" || cfg.Notify.Command != "" || cfg.Notify.Desktop {
		nopts := notify.Options{
			URL: cfg.Notify.WebhookURL, Command: cfg.Notify.Command, Desktop: cfg.Notify.Desktop, Debounce: cfg.Notify.Debounce, Retries: cfg.Notify.Retries,
			Timeout: cfg.Notify.Timeout, Logger: log,
		}
		if fleet {
			nopts.Gate = rs.NotifyGate() // debounce across every server on this Redis
		}
		notifier, err = notify.New(nopts)
		if err != nil {
			return err
		}
	}
	var m *breakerserver.Manager
	src := metrics.Sources{
		Breakers: func(ctx context.Context) ([]breakerserver.Breaker, error) { return m.List(ctx) },
		Health:   func() error { return m.Health() },
		Live:     func() breakerserver.Stats { return m.Stats() },
	}
	if notifier != nil {
		src.Notify = notifier.Stats
	}
	if fleet {
		src.Store = func() metrics.StoreCounters {
			c := rs.Counters()
			return metrics.StoreCounters{Updates: c.Updates, Scripts: c.Scripts, Conflicts: c.Conflicts, TurnWaits: c.TurnWaits, RoundTrips: c.RoundTrips}
		}
	}
	mt := metrics.New(src)
	walDir := ""
	if !o.writeThrough && !fleet {
		walDir = filepath.Join(w.StateDir, walDirName)
	}
	m, err = breakerserver.Open(ctx, w.Store, cfg, breakerserver.Options{
		Now: env.Now, TemplateKinds: kinds, Logger: log, Shared: fleet,
		WALDir: walDir, WALFsync: cfg.Journal.Fsync, CheckpointEvery: o.checkpointEvery, MaxLive: o.maxBreakers,
		OnChange: func(c breakerserver.Change) {
			mt.Change(c)
			if notifier != nil && c.Notify {
				notifier.Notify(notify.Change{Scope: c.Scope, From: c.From, To: c.To, Mode: c.Mode,
					Reason: c.Reason, Detector: c.Detector, Time: c.Time})
			}
		},
		OnCommit: mt.Commit,
	})
	if err != nil {
		if notifier != nil {
			notifier.Close(context.Background())
		}
		return err
	}

	if env.Getenv("GOGC") == "" {
		// Fewer collections, shorter latency tail (docs/server.md).
		debug.SetGCPercent(httpapi.GCPercent)
	}
	if env.Getenv("GOMEMLIMIT") == "" {
		// ...bounded by collecting earlier near this soft limit.
		debug.SetMemoryLimit(httpapi.MemoryLimit)
	}
	admin, read := env.Getenv("LOOPBREAKER_ADMIN_TOKEN"), env.Getenv("LOOPBREAKER_READ_TOKEN")
	handler := httpapi.NewServer(httpapi.Config{
		Manager: m, Metrics: mt, AdminToken: admin, ReadToken: read,
		MaxBodyBytes: cfg.Server.MaxBodyBytes, Logger: log, Now: env.Now,
		ResetOrigin: resetOrigin,
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		m.Close()
		if notifier != nil {
			notifier.Close(context.Background())
		}
		return fmt.Errorf("listen on %s: %w (is another server using the port? pick one with --addr)", addr, err)
	}
	limiter := httpapi.LimitListener(ln, o.maxConnections)
	ln = limiter
	if read == "" && !isLoopback(ln.Addr()) {
		log.Warn("listening beyond this machine without LOOPBREAKER_READ_TOKEN: anyone who can reach it may check and record outcomes")
	}
	if admin == "" {
		log.Info("resets over HTTP are disabled (LOOPBREAKER_ADMIN_TOKEN is not set)")
	}
	srv := httpapi.HTTPServer(handler, limiter, log, context.WithoutCancel(ctx))
	fmt.Fprintf(env.Stderr, "loopbreaker: serving http://%s (state %s, %s)\n", ln.Addr(), w.StoreName(), mode(walDir, fleet))

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stopEvict := make(chan struct{})
	evicted := make(chan struct{})
	go func() {
		defer close(evicted)
		t := time.NewTicker(o.evictInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if n, err := m.Evict(ctx); err != nil {
					log.Error("evicting idle breakers", "err", err)
				} else if n > 0 {
					log.Info("evicted idle template breakers", "count", n)
				}
			case <-stopEvict:
				return
			}
		}
	}()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	fmt.Fprintln(env.Stderr, "loopbreaker: shutting down: finishing requests under way")
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	var errs []error
	if err := srv.Shutdown(sctx); err != nil {
		errs = append(errs, fmt.Errorf("requests still running after --shutdown-timeout %s were cut off: %w", o.shutdownTimeout, err))
	}
	close(stopEvict)
	<-evicted
	if err := m.Close(); err != nil {
		errs = append(errs, fmt.Errorf("saving the last breaker changes: %w", err))
	}
	if notifier != nil {
		if err := notifier.Close(sctx); err != nil {
			errs = append(errs, err)
		}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("serving: %w", serveErr))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "loopbreaker: stopped")
	return nil
}

// walDirName is the server's write-ahead log directory in the state
// directory.
const walDirName = "server-wal"

func mode(walDir string, fleet bool) string {
	if fleet {
		return "shared with every server on this Redis: nothing cached, one store update per call"
	}
	if walDir != "" {
		return "cached, write-ahead log " + walDirName
	}
	return "cached, written through"
}

func isLoopback(a net.Addr) bool {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	return false
}

// resetOrigin is where a reset sent to the server came from: the client
// process on this host (its user, its parents) when it can be found, and
// whether it runs under an agent CLI (then the reset is refused).
func resetOrigin(r *http.Request) (from, underAgent string) {
	from = "HTTP from " + r.RemoteAddr
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	if local == nil || err != nil {
		return from, ""
	}
	org, ok := origin.Peer(remote, local, agentSigns())
	if !ok {
		return from + " (its process is not on this host, or cannot be seen)", org.Agent
	}
	return from + ", " + org.String(), org.Agent
}
