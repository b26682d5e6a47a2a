package report

import (
	"cmp"
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// recoveryOptions lists the ways out, each with the exact command to run.
// recommend is the option the hypothesis favours.
func recoveryOptions(r *Report, opts Options, recommend string) []RecoveryOption {
	prog := opts.Program
	session := ""
	if opts.Session != "" {
		session = " --session " + shell.Quote(opts.Session)
	}
	slice := r.Slice
	var out []RecoveryOption

	if opts.CheckpointTag != "" && slice != "" {
		out = append(out, RecoveryOption{
			ID: "rollback", Available: true,
			Label:   "Roll back to checkpoint " + opts.CheckpointTag,
			Command: prog + " rollback --slice " + shell.Quote(slice),
			Note:    "resets the work tree to git tag " + opts.CheckpointTag + "; uncommitted work and later commits are saved in a rescue ref first",
		})
	} else {
		out = append(out, RecoveryOption{
			ID:    "rollback",
			Label: "Roll back to a checkpoint",
			Note:  fmt.Sprintf("not available: no checkpoint tag exists for slice %s (one is created before the slice's first attempt)", cmp.Or(slice, "(unknown)")),
		})
	}
	out = append(out, RecoveryOption{
		ID: "guidance", Available: true,
		Label:   "Answer the question above and reset the counters; the agent retries with your guidance",
		Command: prog + " reset" + session + ` --guidance "<your answer>"`,
		Note:    "resets the per-test and slice counters; the guidance is given to the next iteration",
	})
	if r.Tripped {
		out = append(out, RecoveryOption{
			ID: "probe_first", Available: true,
			Label:   "Let one probe iteration through with your guidance; progress closes the breaker, stagnation opens it again",
			Command: prog + " reset" + session + ` --probe-first --guidance "<your answer>"`,
		})
	}
	rescope := RecoveryOption{
		ID: "rescope", Available: true,
		Label: "Re-scope this slice (the contract or the scope may need adjustment)",
		Note:  "widen scope.allow (or scope.justify) in loopbreaker.yaml, or the files_in_scope JSON file it names, then reset",
	}
	if v := unjustified(r.ScopeViolations); len(v) > 0 {
		rescope.Note = fmt.Sprintf("add the files you accept to scope.allow in loopbreaker.yaml (or to the files_in_scope JSON file), then reset; refused so far: %s", violationFiles(v))
	}
	out = append(out, rescope)
	if r.Test != "" {
		out = append(out, RecoveryOption{
			ID: "skip_test", Available: true,
			Label: "Skip " + r.Test + " and continue with the remaining tests",
			Command: prog + " reset" + session + " --reason " + shell.Quote("skip "+r.Test) +
				" --guidance " + shell.Quote(fmt.Sprintf("Skip %s for now: make no more changes for it and continue with the remaining tests of slice %s.", r.Test, cmp.Or(slice, "(unknown)"))),
		})
	}
	out = append(out, RecoveryOption{
		ID: "abort", Available: true,
		Label: "Abort: stop the agent's loop",
		Note:  "stop the loop process yourself; an OPEN breaker halts the agent only until its cooldown ends, then lets one probe through",
	})

	pick := func(id string) bool {
		for i := range out {
			if out[i].ID == id && out[i].Available {
				out[i].Recommended = true
				return true
			}
		}
		return false
	}
	if !pick(recommend) {
		pick("guidance")
	}
	return out
}

func violationFiles(vs []ViolationRow) string {
	var files []string
	for _, v := range vs {
		if !containsPath(files, v.File) {
			files = append(files, v.File)
		}
	}
	return listOr(files, "none")
}

// nextCommand is the one command to run next: the recommended option's,
// else the guidance reset.
func (r Report) nextCommand() string {
	for _, o := range r.Recovery {
		if o.Recommended && o.Command != "" {
			return o.Command
		}
	}
	for _, o := range r.Recovery {
		if o.ID == "guidance" {
			return o.Command
		}
	}
	return ""
}
