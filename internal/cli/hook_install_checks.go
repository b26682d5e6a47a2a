package cli

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
)

// checkAgentOnlyFlags refuses a flag of `hook install` that only some
// agent CLIs read (agent.Traits.InstallFlags), given for one that does
// not: silently ignored, it would let the person believe that it did
// something (that the folder is trusted, say).
func checkAgentOnlyFlags(fs *flag.FlagSet, verb string, a agent.Agent) error {
	readers := map[string][]string{}
	for _, other := range all.Agents() {
		for _, f := range other.Traits().InstallFlags {
			readers[f] = append(readers[f], string(other.Name()))
		}
	}
	tool := a.Name()
	var err error
	fs.Visit(func(f *flag.Flag) {
		who, special := readers[f.Name]
		if !special || slices.Contains(a.Traits().InstallFlags, f.Name) || err != nil {
			return
		}
		err = usagef("hook %s %s: --%s is for %s only and does nothing for %s: leave it out (`loopbreaker hook status` shows how %s is set up in this project, its trust included)",
			verb, tool, f.Name, strings.Join(who, " and "), tool, tool)
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
