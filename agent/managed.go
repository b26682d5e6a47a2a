package agent

import (
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Managed is a CLI with a managed (system) scope for hooks: a settings
// file of the machine's that the CLI reads besides the user's and the
// project's, where hooks keep running whatever the agent's user writes in
// its own files, once the scope's pins are set (`hook install --managed`).
type Managed interface {
	ManagedScope() ManagedScope
}

// ManagedScope is where a CLI's managed hooks live and what keeps them on,
// as found by running the pinned CLI (hook/PROTOCOLS.md, "Protected mode").
type ManagedScope struct {
	// File is the managed settings file below the system root,
	// slash-separated ("etc/claude-code/managed-settings.json").
	File string
	// Format is the file's format, with its Pins: the settings without
	// which the agent's user could switch the managed hooks off.
	Format *hookinstall.Format
	// Own, for a file loopbreaker writes whole instead (not JSON, so not
	// merged: Codex's requirements.toml), is that file for the hooks'
	// command, pins included; Find reads back what a file holds of
	// loopbreaker's hooks. An existing file that is not loopbreaker's is
	// refused. Format then only gives the hooks' command.
	Own  func(command string) *hookinstall.OwnFile
	Find func(data []byte) hookinstall.Installed
	// Pinned names the pins of an Own file, for the install's account.
	Pinned []string
	// ManagedOnly: a pin makes the CLI run managed hooks only, so that a
	// copy of loopbreaker's hooks in the project's or the user's settings
	// does not run a second time. Without it such a copy must go first.
	ManagedOnly bool
	// Why says in a sentence what the pins stop, for the install's account.
	Why string
}

// Path is the managed file below root ("/" on a real system).
func (m ManagedScope) Path(root string) string {
	return filepath.Join(root, filepath.FromSlash(m.File))
}
