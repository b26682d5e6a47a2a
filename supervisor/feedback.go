package supervisor

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/atomicfile"
)

// Environment variables the agent command receives.
const (
	EnvIteration    = "LOOPBREAKER_ITERATION"
	EnvSession      = "LOOPBREAKER_SESSION"
	EnvWarning      = "LOOPBREAKER_WARNING"
	EnvWarningFile  = "LOOPBREAKER_WARNING_FILE"
	EnvGuidance     = "LOOPBREAKER_GUIDANCE"
	EnvGuidanceFile = "LOOPBREAKER_GUIDANCE_FILE"
)

// Placeholders in the command's arguments.
const (
	placeholderPrompt     = "{prompt}"
	placeholderPromptFile = "{prompt_file}"
)

// maxPromptFile bounds a prompt file: a prompt is read every iteration.
const maxPromptFile = 4 << 20

// maxTried is how many earlier attempts are listed with guidance.
const maxTried = 10

// feedback is what the breaker and people tell the agent before one
// iteration.
type feedback struct {
	// warning is the breaker's warning ("" when there is none).
	warning string
	// guidance is what people said with a reset, oldest first.
	guidance []lb.Guidance
	// tried are the attempts made before the latest reset, oldest first.
	tried []lb.Attempt
}

// feedback prepares the warning and guidance for iteration n from the
// decision of the check before it, and writes the files the agent may read.
// The files always exist; they are empty when there is nothing to say.
func (l *loop) feedback(d lb.Decision, st *lb.BreakerState, n int) feedback {
	var f feedback
	switch {
	case d.Probe:
		f.warning = "This iteration is a probe: loopbreaker stopped this loop"
		if why := lastOpenReason(st); why != "" {
			f.warning += " because " + why
		}
		f.warning += ". Make real, measurable progress this time (change files, make a failing test pass) or the loop stops again."
	case d.Warning:
		f.warning = d.Reason
	}
	if st != nil {
		for _, g := range st.Guidance {
			if !g.Delivered && !l.knowsGuidance(g) {
				l.guidance = append(l.guidance, g)
			}
		}
		if len(l.guidance) > 0 {
			for _, a := range st.Attempts {
				if a.Epoch < st.Resets {
					f.tried = append(f.tried, a)
				}
			}
			if len(f.tried) > maxTried {
				f.tried = f.tried[len(f.tried)-maxTried:]
			}
		}
	}
	f.guidance = l.guidance
	l.writeFeedbackFile(l.cfg.WarningFile, f.warningMarkdown(n))
	l.writeFeedbackFile(l.cfg.GuidanceFile, f.guidanceMarkdown())
	return f
}

func (l *loop) knowsGuidance(g lb.Guidance) bool {
	for _, k := range l.guidance {
		if k.Time.Equal(g.Time) && k.Text == g.Text {
			return true
		}
	}
	return false
}

// writeFeedbackFile replaces a feedback file atomically, so an agent never
// reads half of one. A failure is reported, not fatal: the environment
// variables still carry the message.
func (l *loop) writeFeedbackFile(path, content string) {
	if err := atomicfile.Write(path, []byte(content), 0o600); err != nil {
		l.con.line("loopbreaker: cannot write %s (%v); the agent still gets it in its environment", path, err)
	}
}

func lastOpenReason(st *lb.BreakerState) string {
	if st == nil {
		return ""
	}
	for i := len(st.Transitions) - 1; i >= 0; i-- {
		if st.Transitions[i].To == lb.Open {
			return st.Transitions[i].Reason
		}
	}
	return ""
}

func (f feedback) warningMarkdown(n int) string {
	if f.warning == "" {
		return ""
	}
	return fmt.Sprintf("# loopbreaker: warning for iteration %d\n\n%s\n\nIf this goes on, loopbreaker stops the loop and asks a person.\n", n, f.warning)
}

// guidanceText is the people's words alone, for the environment.
func (f feedback) guidanceText() string {
	texts := make([]string, len(f.guidance))
	for i, g := range f.guidance {
		texts[i] = g.Text
	}
	return strings.Join(texts, "\n\n")
}

// guidanceMarkdown is the guidance with what was already tried (the agent
// retries with the person's input and knows which
// approaches not to repeat).
func (f feedback) guidanceMarkdown() string {
	if len(f.guidance) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Guidance from a person (loopbreaker reset --guidance)\n\n")
	b.WriteString("Follow it: the loop was stopped because earlier attempts did not work.\n\n")
	for _, g := range f.guidance {
		fmt.Fprintf(&b, "- %s", oneParagraph(g.Text))
		var by []string
		if g.By != "" {
			by = append(by, "by "+g.By)
		}
		if !g.Time.IsZero() {
			by = append(by, g.Time.UTC().Format(time.RFC3339))
		}
		if len(by) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(by, ", "))
		}
		b.WriteString("\n")
	}
	if len(f.tried) > 0 {
		b.WriteString("\n## Already tried before this guidance (do not repeat these approaches)\n\n")
		for i, a := range f.tried {
			fmt.Fprintf(&b, "%d. iteration %d: %s\n", i+1, a.Iteration, describeAttempt(a))
		}
	}
	return b.String()
}

func describeAttempt(a lb.Attempt) string {
	var parts []string
	if a.Summary != "" {
		parts = append(parts, oneLine(a.Summary, 160))
	}
	switch {
	case len(a.Files) == 0:
		parts = append(parts, "no file changes")
	case len(a.Files) <= 5:
		parts = append(parts, "files: "+strings.Join(a.Files, ", "))
	default:
		parts = append(parts, fmt.Sprintf("files: %s and %d more", strings.Join(a.Files[:5], ", "), len(a.Files)-5))
	}
	if len(a.Failed) > 0 {
		parts = append(parts, "failed: "+strings.Join(a.Failed, ", "))
	}
	if a.Error != "" {
		parts = append(parts, "error: "+headline(a.Error, 200))
	} else if !a.Progress {
		parts = append(parts, "no progress")
	}
	return strings.Join(parts, " -> ")
}

// headline is the most telling line of an error: the first that is not a
// runner's header ("--- FAIL: TestX", "FAIL", "Traceback ..."), cut to max.
func headline(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "FAIL") ||
			strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "Traceback") {
			continue
		}
		return oneLine(t, max)
	}
	return oneLine(s, max)
}

func oneParagraph(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// oneLine is the first non-empty line of s, cut to max bytes.
func oneLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s = l
			break
		}
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// environ is the command's environment: the loop's, without stale
// loopbreaker variables, plus this iteration's.
func (l *loop) environ(n int, f feedback) []string {
	drop := map[string]bool{EnvIteration: true, EnvSession: true, EnvWarning: true, EnvWarningFile: true, EnvGuidance: true, EnvGuidanceFile: true}
	env := make([]string, 0, len(l.cfg.Environ)+6)
	for _, kv := range l.cfg.Environ {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	env = append(env,
		EnvIteration+"="+strconv.Itoa(n),
		EnvSession+"="+l.cfg.Session,
		EnvWarningFile+"="+l.cfg.WarningFile,
		EnvGuidanceFile+"="+l.cfg.GuidanceFile,
	)
	if f.warning != "" {
		env = append(env, EnvWarning+"="+f.warning)
	}
	if g := f.guidanceText(); g != "" {
		env = append(env, EnvGuidance+"="+g)
	}
	return env
}

// prompt is this iteration's prompt text and whether there is one: the
// prompt file (read again each time) or text, with the warning and the
// guidance appended when AppendWarning is set.
func (l *loop) prompt(f feedback, n int) (string, bool, error) {
	text, has := l.cfg.Prompt, l.cfg.Prompt != ""
	if l.cfg.PromptFile != "" {
		b, err := readBounded(l.cfg.PromptFile, maxPromptFile)
		if err != nil {
			return "", false, fmt.Errorf("read the prompt file: %w", err)
		}
		text, has = string(b), true
	}
	if l.cfg.AppendWarning {
		var extra []string
		if w := f.warningMarkdown(n); w != "" {
			extra = append(extra, w)
		}
		if g := f.guidanceMarkdown(); g != "" {
			extra = append(extra, g)
		}
		if len(extra) > 0 {
			if text != "" {
				text = strings.TrimRight(text, "\n") + "\n\n---\n\n"
			}
			text += strings.Join(extra, "\n")
			has = true
		}
	}
	return text, has, nil
}

func readBounded(path string, max int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}

func usesPlaceholder(argv []string, ph string) bool {
	for _, a := range argv {
		if strings.Contains(a, ph) {
			return true
		}
	}
	return false
}

// commandLine puts the prompt where the command wants it: into arguments
// holding {prompt} or {prompt_file}, else on its standard input. Without a
// prompt the command reads nothing (its input is empty): an unattended
// agent must not wait for a person.
func (l *loop) commandLine(prompt string, has bool, promptFile string) ([]string, io.Reader) {
	argv := make([]string, len(l.cfg.Command))
	placed := false
	for i, a := range l.cfg.Command {
		if strings.Contains(a, placeholderPrompt) || strings.Contains(a, placeholderPromptFile) {
			placed = true
			a = strings.ReplaceAll(a, placeholderPrompt, prompt)
			a = strings.ReplaceAll(a, placeholderPromptFile, promptFile)
		}
		argv[i] = a
	}
	if has && !placed {
		return argv, strings.NewReader(prompt)
	}
	return argv, nil
}
