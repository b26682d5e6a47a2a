package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// requirementsHeader starts the requirements.toml loopbreaker writes: how
// it knows the file for its own.
const requirementsHeader = "# Written by `loopbreaker hook install codex --managed`; `loopbreaker hook uninstall codex --managed` removes it.\n"

// ManagedScope: /etc/codex/requirements.toml, whose hooks Codex runs
// without trust. [features] hooks = true pinned there keeps
// `[features] hooks = false` in the user's or the project's config.toml,
// `--disable hooks` and `-c features.hooks=false` from silencing them, and
// allow_managed_hooks_only makes Codex run no other hooks
// (hook/PROTOCOLS.md §0.12). TOML is not merged: loopbreaker writes the
// file whole, and refuses one that is not its own.
func (a Agent) ManagedScope() agent.ManagedScope {
	f := a.Format()
	return agent.ManagedScope{
		File: "etc/codex/requirements.toml", Format: f, ManagedOnly: true,
		Own: func(command string) *hookinstall.OwnFile {
			content := requirements(f, command)
			return &hookinstall.OwnFile{
				Content: content, Change: "requirements.toml with the hooks and pins", What: "loopbreaker's requirements.toml",
				Ours: func(data []byte) bool { return bytes.HasPrefix(data, []byte(requirementsHeader)) },
			}
		},
		Find:   func(data []byte) hookinstall.Installed { return findRequirements(a.Name(), data) },
		Pinned: []string{"allow_managed_hooks_only = true", "[features] hooks = true"},
		Why:    "Codex runs only the managed hooks, and neither config.toml, --disable hooks nor -c features.hooks=false turns them off",
	}
}

// requirements is loopbreaker's requirements.toml: the pins, and one
// matcher group per event of f running command.
func requirements(f *hookinstall.Format, command string) []byte {
	var b strings.Builder
	b.WriteString(requirementsHeader)
	b.WriteString("allow_managed_hooks_only = true\n\n[features]\nhooks = true\n")
	quoted, _ := hook.MarshalNoEscape(command) // a JSON string is a TOML basic string
	for _, e := range f.Entries {
		fmt.Fprintf(&b, "\n[[hooks.%s]]\n", e.Event)
		if e.Matcher != "" {
			m, _ := json.Marshal(e.Matcher)
			fmt.Fprintf(&b, "matcher = %s\n", m)
		}
		fmt.Fprintf(&b, "\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\n", e.Event, quoted)
	}
	return []byte(b.String())
}

// findRequirements reads loopbreaker's hooks out of a requirements.toml:
// the events of [[hooks.EVENT.hooks]] tables whose command is
// loopbreaker's, and their programs.
func findRequirements(tool hook.Tool, data []byte) hookinstall.Installed {
	var in hookinstall.Installed
	event := ""
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if t, ok := strings.CutPrefix(l, "[[hooks."); ok {
			event, _, _ = strings.Cut(strings.TrimSuffix(t, "]]"), ".")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.TrimSpace(k) != "command" || event == "" {
			continue
		}
		var command string
		if json.Unmarshal([]byte(strings.TrimSpace(v)), &command) != nil {
			continue
		}
		prog, ok := hook.ProgramOf(tool, command)
		if !ok {
			continue
		}
		if !slices.Contains(in.Events, event) {
			in.Events = append(in.Events, event)
		}
		if !slices.Contains(in.Programs, prog) {
			in.Programs = append(in.Programs, prog)
		}
	}
	return in
}
