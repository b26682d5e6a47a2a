package residentwire

import (
	"errors"
	"fmt"
	"path/filepath"
)

// SocketName and LockName are the files in the resident breaker's
// directory: the socket it answers on, and the lock the one resident
// breaker of the user holds while it runs.
const (
	SocketName = "resident.sock"
	LockName   = "resident.lock"
	LogName    = "resident.log"
)

// maxSocketPath is the longest socket path every Unix takes (sun_path is
// 104 bytes on macOS and the BSDs, 108 on Linux, with its NUL).
const maxSocketPath = 103

// Dir is the directory of the user's resident breaker:
// $XDG_RUNTIME_DIR/loopbreaker (a per-user tmpfs the login manager makes,
// 0700), else run/ in loopbreaker's state home ($XDG_STATE_HOME/loopbreaker
// or ~/.local/state/loopbreaker). It is never a path a repository
// controls: a project's settings cannot move it.
func Dir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "loopbreaker"), nil
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "loopbreaker", "run"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "loopbreaker", "run"), nil
	}
	return "", errors.New("no directory for the resident breaker's socket: neither XDG_RUNTIME_DIR, XDG_STATE_HOME nor HOME is an absolute path")
}

// SocketPath is the socket in dir, or an error when the path is too long
// for a Unix socket.
func SocketPath(dir string) (string, error) {
	p := filepath.Join(dir, SocketName)
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("the socket path %s is %d bytes, longer than a Unix socket takes (%d): set XDG_RUNTIME_DIR to a shorter directory", p, len(p), maxSocketPath)
	}
	return p, nil
}

// FallbackDir holds the marks of the agent sessions already told that
// their hook calls fell back to the in-process path: in loopbreaker's
// state home, not beside the socket, whose directory may be the very
// trouble.
func FallbackDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "loopbreaker", "hook-fallback"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "loopbreaker", "hook-fallback"), nil
	}
	return "", errors.New("neither XDG_STATE_HOME nor HOME is an absolute path")
}
