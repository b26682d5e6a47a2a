package residentwire

import "path/filepath"

// The places of protected mode, below a system root ("/" on a machine, a
// directory for an image being built or a test): the system resident
// breaker's socket, its state and its configuration. Each belongs to root
// or to the breaker's own OS user, never to the agent's.
const (
	// SystemRunDir holds the system resident breaker's socket, lock and
	// log.
	SystemRunDir = "run/loopbreaker"
	// SystemStateDir holds every guarded project's state.
	SystemStateDir = "var/lib/loopbreaker"
	// SystemConfigDir holds SystemConfigName, the configuration in force
	// for every project the system resident breaker guards.
	SystemConfigDir  = "etc/loopbreaker"
	SystemConfigName = "loopbreaker.yaml"
)

// SystemDir is the system resident breaker's socket directory below root.
func SystemDir(root string) string { return filepath.Join(root, SystemRunDir) }
