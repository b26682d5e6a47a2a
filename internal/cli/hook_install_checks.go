package cli

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
)

// agentOnlyFlags names the flags of `hook install` that only one agent CLI
// reads, with that CLI: the one place here that knows it (it belongs with
// those agents' packages once agent.Agent can say which flags it reads).
func agentOnlyFlags() map[string]hook.Tool {
	return map[string]hook.Tool{
		"trust":         "codex",
		"trust-project": "codex",
		"agent-version": "claude",
	}
}

// checkAgentOnlyFlags refuses a flag given for an agent CLI that does not
// read it: silently ignored, it would let the person believe that it did
// something (that the folder is trusted, say).
func checkAgentOnlyFlags(fs *flag.FlagSet, verb string, tool hook.Tool) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if only, ok := agentOnlyFlags()[f.Name]; ok && only != tool && err == nil {
			err = usagef("hook %s %s: --%s is for %s only and does nothing for %s: leave it out (`loopbreaker hook status` shows how %s is set up in this project, its trust included)",
				verb, tool, f.Name, only, tool, tool)
		}
	})
	return err
}

// commandProblem says why the --command program cannot run now, or "".
// It is a warning, not a refusal: hooks may be installed before the
// program is put in place (a provisioning script, an image being built),
// and until then they only warn.
func commandProblem(env *Env, program string) string {
	if strings.ContainsAny(program, `/\`) {
		fi, err := os.Stat(program)
		switch {
		case err != nil:
			return "there is no such file"
		case fi.IsDir():
			return "it is a directory"
		case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
			return "it is not executable (chmod +x it)"
		}
		return ""
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, program)); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return ""
		}
	}
	return "it is not on PATH"
}
