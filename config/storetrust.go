package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/redact"
)

// checkStoreTrust refuses a store named by a project file that the person
// has not vouched for. A project file is part of the repository: a cloned
// repository's loopbreaker.yaml with store: redis://attacker:6379 would
// send every command the agent runs to someone else's server. The store
// is the person's when it comes from their user file, the environment or
// a flag; a project file may name it only when trusted_stores (a
// user-only key, see userOnlyKeys) lists it, so a fleet can commit its store once
// every machine's user file trusts it.
func (l *Loaded) checkStoreTrust(opts Options, env map[string]string) error {
	cfg := &l.Config
	src := l.Sources["store"]
	if src.Kind != KindProject || cfg.Store == "" {
		return nil
	}
	want := normalStore(cfg.Store)
	if slices.ContainsFunc(cfg.TrustedStores, func(t string) bool { return normalStore(t) == want }) {
		return nil
	}
	return fmt.Errorf("%s: store %v: a store named by a project file is not used unless you trust it, because a cloned repository could send your agent's commands to its own server; set store in your user file %s, LOOPBREAKER_STORE or --store, or add %q to trusted_stores in your user file (or LOOPBREAKER_TRUSTED_STORES)",
		src.Location(), redact.URL(cfg.Store), userFileHint(opts, env), redact.URL(want))
}

// normalStore is a store URL as trusted_stores compares it: without its
// user and password, scheme and host in lower case. A string that is not
// a URL is compared as it is.
func normalStore(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return s
	}
	u.User = nil
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

// userFileHint is the user file's path, for messages.
func userFileHint(opts Options, env map[string]string) string {
	if p := userFilePath(opts, env); p != "" {
		return p
	}
	return "$XDG_CONFIG_HOME/loopbreaker/config.yaml"
}
