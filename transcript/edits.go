package transcript

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Agents without edit tools (SWE-agent's shell, mini-swe-agent) change
// files with shell commands. ShellWrites recognises the usual ways, so that
// such a command counts as an edit (a new attempt) as an Edit call does:
// in-place editors, redirections into a file, heredocs, tee, patch/git
// apply, and scripts that open a file for writing. Reading commands that
// merely mention ">" inside quotes are not matched by the redirection rule
// because it wants a file name after the operator, not another quote.
var shellWriteRules = []*lazyre.RE{
	lazyre.New(`\bsed\s+(-[a-zA-Z]*i|--in-place)`),
	lazyre.New(`\bperl\s+-[a-zA-Z]*i`),
	lazyre.New(`(^|[^0-9&>])>{1,2}\s*['"]?[A-Za-z0-9_./~-]*[A-Za-z0-9_]\.[A-Za-z0-9]+`),
	lazyre.New(`\btee\s+(-a\s+)?[^|\s]`),
	lazyre.New(`\b(git\s+apply|patch\s+-p\d|patch\s+<)`),
	lazyre.New(`\bopen\([^)]*,\s*['"][wa]`),
	lazyre.New(`\.write_text\(|\.write_bytes\(`),
	lazyre.New(`\b(cp|mv)\s+\S+\s+\S+`),
	lazyre.New(`\bapply_patch\b`),
}

// ShellWrites reports whether a shell command looks like it writes a file.
func ShellWrites(command string) bool {
	c := strings.ReplaceAll(command, "2>&1", "")
	c = strings.ReplaceAll(c, "> /dev/null", "")
	c = strings.ReplaceAll(c, ">/dev/null", "")
	for _, r := range shellWriteRules {
		if r.MatchString(c) {
			return true
		}
	}
	return false
}
