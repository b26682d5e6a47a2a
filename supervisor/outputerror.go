package supervisor

import "strings"

// iterationError is the error one iteration's output shows, or "": the
// error lines found in stdout and stderr (in that order); when there are
// none and the command failed, the last lines of stderr, or of stdout when
// stderr is empty, which are the best account of why. `run` (measure)
// and `record` (OutputError) decide with it.
func iterationError(outErrors, errErrors []string, stdoutTail, stderrTail []byte, failed bool) string {
	lines := append(append([]string{}, outErrors...), errErrors...)
	if len(lines) == 0 && failed {
		src := stderrTail
		if len(src) == 0 {
			src = stdoutTail
		}
		lines = lastLines(src, stderrTailLines)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// OutputError is the error of a command's whole stdout and stderr, read
// after it ended, as `run` reads them while it runs: for `record
// --output-file` and `--error-file`. exitCode nil is unknown, read as a
// success.
func OutputError(stdout, stderr []byte, exitCode *int) string {
	out, errs := newScanner(nil), newScanner(nil)
	for l := range strings.SplitSeq(string(stdout), "\n") {
		out.line(l)
	}
	for l := range strings.SplitSeq(string(stderr), "\n") {
		errs.line(l)
	}
	return iterationError(out.errors(), errs.errors(), stdout, stderr, exitCode != nil && *exitCode != 0)
}
