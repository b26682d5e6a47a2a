package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// CallOf reads a pre-tool payload as a Call: the command line of a shell
// tool (Claude Code's Bash and PowerShell, Codex's Bash or exec arrays,
// Gemini's run_shell_command, Cline's run_commands), the paths of an edit tool (Codex's
// apply_patch bodies included). base is the directory relative paths and
// commands start from.
func CallOf(p *hook.Payload, base string) Call {
	c := Call{Cwd: base, Via: p.ToolName}
	var in map[string]json.RawMessage
	if json.Unmarshal(p.ToolInput, &in) != nil {
		return c
	}
	switch p.Class() {
	case hook.ClassShell:
		// Gemini runs a command in dir_path when given (relative to the
		// project); Codex's exec may name a workdir.
		for _, key := range []string{"dir_path", "directory", "workdir", "cwd"} {
			var d string
			if json.Unmarshal(in[key], &d) == nil && d != "" {
				if !filepath.IsAbs(d) && base != "" {
					d = filepath.Join(base, d)
				}
				c.Cwd = filepath.Clean(d)
			}
		}
		if in["command"] == nil && in["cmd"] == nil {
			// A shell tool that takes no single command (Cline's
			// run_commands runs each of its commands in a shell): its
			// command lines as its CLI reads them.
			for _, line := range strings.Split(p.ShellCommand(), "\n") {
				if strings.TrimSpace(line) != "" {
					c.Shell = append(c.Shell, line)
				}
			}
			return c
		}
		for _, key := range []string{"command", "cmd"} {
			var s string
			var argv []string
			switch {
			case json.Unmarshal(in[key], &s) == nil && strings.TrimSpace(s) != "":
				c.Shell = append(c.Shell, s)
			case json.Unmarshal(in[key], &argv) == nil && len(argv) > 0:
				c.Argv = append(c.Argv, argv)
			}
		}
	case hook.ClassEdit:
		c.Writes = p.Files("", base)
	}
	return c
}
