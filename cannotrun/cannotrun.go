// Package cannotrun recognises an agent CLI that could not work at all:
// its model API refused it (a usage or rate limit, an overloaded API, a
// credential that is missing or rejected) or could not be reached. Such an
// iteration or turn says nothing about whether the agent is stuck: the
// loop supervisor waits for the limit to reset or stops with the command
// that fixes it, and the hooks do not count the turn as one without
// progress. One classifier serves both, so that they agree.
//
// The words are each agent CLI's own (Words, which its package gives:
// hook/PROTOCOLS.md, "When the model API refuses"); they are read only
// from an agent run that failed, so an agent that merely talks about rate
// limits is not taken for one that hit one.
package cannotrun

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Kind is why the agent could not run.
type Kind string

const (
	// Limit: a usage quota or a rate limit. The reset time is known when
	// the CLI printed it.
	Limit Kind = "limit"
	// Overloaded: the model API is overloaded or at capacity.
	Overloaded Kind = "overloaded"
	// Auth: no credentials, or credentials the API rejects; waiting does
	// not help, a person must log in.
	Auth Kind = "auth"
	// Network: the model API could not be reached.
	Network Kind = "network"
)

// Finding is what Classify recognised.
type Finding struct {
	Kind Kind
	// Agent names the CLI whose words matched (empty when the words are
	// not one CLI's); Login is what logs it in.
	Agent, Login string
	// Line is the line that matched, cut to a readable length.
	Line string
	// ResetAt is when the limit resets, when the CLI said so.
	ResetAt *time.Time
}

// Fix is what a person does about an auth failure: the command that logs
// the agent's CLI in.
func (f Finding) Fix() string {
	if f.Login != "" {
		return f.Login
	}
	return "log the agent's CLI in again"
}

// Describe is one line for a person: what happened and, when known, until
// when.
func (f Finding) Describe() string {
	what := map[Kind]string{
		Limit:      "hit a usage or rate limit",
		Overloaded: "found the model API overloaded",
		Auth:       "is not logged in (or its credentials were rejected)",
		Network:    "could not reach the model API",
	}[f.Kind]
	who := "the agent"
	if f.Agent != "" {
		who = f.Agent
	}
	s := fmt.Sprintf("%s %s: %s", who, what, f.Line)
	if f.ResetAt != nil {
		s += fmt.Sprintf(" (resets %s)", f.ResetAt.UTC().Format(time.RFC3339))
	}
	return s
}

// Run is one failed agent run as seen from outside.
type Run struct {
	// Stdout and Stderr are the ends of the run's output (the last few
	// hundred KiB are plenty: the CLIs print these words last).
	Stdout, Stderr []byte
	// ExitCode is the run's exit code; 124 when it was killed for
	// running too long.
	ExitCode int
	// APIErrorStatus is the HTTP status of a Claude Code JSON result's
	// api_error_status (0 when none).
	APIErrorStatus int
}

// Words are one agent CLI's words when it cannot run.
type Words struct {
	Agent string
	// Rules, most specific first: the CLI's own words before a generic
	// status line. The last line of the output that one matches decides.
	Rules []Rule
	// Login is the command that logs the CLI in.
	Login string
	// AuthExit is the exit code with which the CLI says it has no usable
	// credentials (0: none).
	AuthExit int
	// APIStatus: the CLI's JSON result names the model API's HTTP status
	// (Run.APIErrorStatus).
	APIStatus bool
	// Reset reads when a limit resets from the CLI's words (nil: it does
	// not say).
	Reset func(s string, now time.Time) (time.Time, bool)
}

// Rule is a CLI's words for one kind of refusal.
type Rule struct {
	Kind Kind
	RE   *lazyre.RE
}

// tailLines is how many last lines of each stream are read: Gemini CLI
// follows its quota error with a stack trace and the error's fields.
const tailLines = 40

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	for i, at := 0, len(s); i < n; i++ {
		j := strings.LastIndexByte(s[:at], '\n')
		if j < 0 {
			return s
		}
		at = j
		if i == n-1 {
			return s[at+1:]
		}
	}
	return s
}

// Classify says whether a failed agent run could not work at all, and
// why. A run that exited 0 is never one: an agent that finished its turn
// worked.
func Classify(r Run, now time.Time, agents []Words) (Finding, bool) {
	if r.ExitCode == 0 {
		return Finding{}, false
	}
	// Only the last words count: a refusal ends the run, and an agent
	// that recovered from one and worked on is not refused.
	text := lastLines(string(r.Stdout), tailLines) + "\n" + lastLines(string(r.Stderr), tailLines)
	// The last matching line wins: retries print earlier attempts, the
	// final words are the verdict.
	var best *Finding
	bestAt := -1
	for _, w := range agents {
		for _, ru := range w.Rules {
			for _, loc := range allLineMatches(ru.RE, text) {
				if loc.at < bestAt {
					continue
				}
				f := Finding{Kind: ru.Kind, Agent: w.Agent, Login: w.Login, Line: cut(loc.line)}
				if ru.Kind == Limit {
					f.ResetAt = resetTime(w, loc.line, text, now)
				}
				best, bestAt = &f, loc.at
			}
		}
	}
	if best != nil {
		return *best, true
	}
	line := cut(lastLine(text))
	for _, w := range agents {
		if w.AuthExit != 0 && r.ExitCode == w.AuthExit && strings.Contains(text, "uth") {
			return Finding{Kind: Auth, Agent: w.Agent, Login: w.Login, Line: line}, true
		}
		if !w.APIStatus {
			continue
		}
		switch r.APIErrorStatus {
		case 429:
			return Finding{Kind: Limit, Agent: w.Agent, Login: w.Login, Line: line}, true
		case 529, 503:
			return Finding{Kind: Overloaded, Agent: w.Agent, Login: w.Login, Line: line}, true
		case 401, 403:
			return Finding{Kind: Auth, Agent: w.Agent, Login: w.Login, Line: line}, true
		}
	}
	return Finding{}, false
}

// maxTurnMessage bounds the agent's last message that ClassifyTurn reads:
// a CLI's refusal is one short line, an agent's prose is longer.
const maxTurnMessage = 600

// ClassifyTurn says whether an agent turn ended on its model API's refusal,
// from the turn's last message as a hook receives it (Claude Code's
// last_assistant_message is then the CLI's error line itself). Only a
// short message that is the refusal counts: an agent that writes about a
// rate limit is working.
func ClassifyTurn(message string, now time.Time, agents []Words) (Finding, bool) {
	msg := strings.TrimSpace(message)
	if msg == "" || len(msg) > maxTurnMessage || strings.Count(msg, "\n") > 2 {
		return Finding{}, false
	}
	return Classify(Run{Stdout: []byte(msg), ExitCode: 1}, now, agents)
}

type lineMatch struct {
	at   int
	line string
}

// allLineMatches finds re in each line of text (a JSON line holding the
// words counts), with the line's offset.
func allLineMatches(re *lazyre.RE, text string) []lineMatch {
	var out []lineMatch
	at := 0
	for _, line := range strings.Split(text, "\n") {
		if m := re.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
			out = append(out, lineMatch{at: at, line: m[0]})
		}
		at += len(line) + 1
	}
	return out
}

func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

func cut(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// resetTime reads when a limit resets, in w's words, from the matched
// line, else from the rest of the output (Gemini prints the delay a few
// lines further down).
func resetTime(w Words, line, text string, now time.Time) *time.Time {
	if w.Reset == nil {
		return nil
	}
	for _, s := range []string{line, text} {
		if t, ok := w.Reset(s, now); ok {
			return &t
		}
	}
	return nil
}

// DayAndClock reads a wall-clock time with an optional day ("Jan 15" or
// "Jan 15, 2027"); without a year it is the next such day, without a day
// the next such time after now.
func DayAndClock(day, dayLayout, yearLayout, clock, clockLayout string, loc *time.Location, now time.Time) (time.Time, bool) {
	c, err := time.ParseInLocation(clockLayout, clock, loc)
	if err != nil {
		return time.Time{}, false
	}
	local := now.In(loc)
	y, mo, d := local.Date()
	yearGiven := false
	if day != "" {
		t, err := time.ParseInLocation(yearLayout, day, loc)
		if err == nil {
			yearGiven = true
		} else if t, err = time.ParseInLocation(dayLayout, day, loc); err != nil {
			return time.Time{}, false
		}
		mo, d = t.Month(), t.Day()
		if yearGiven {
			y = t.Year()
		}
	}
	at := time.Date(y, mo, d, c.Hour(), c.Minute(), 0, 0, loc)
	switch {
	case day == "" && at.Before(local):
		at = at.AddDate(0, 0, 1)
	case day != "" && !yearGiven && at.Before(local.AddDate(0, 0, -1)):
		at = at.AddDate(1, 0, 0)
	}
	return at, true
}

// SpelledDuration reads "2 hours 5 minutes", "3 days, 1 hour and 4 minutes".
func SpelledDuration(s string) (time.Duration, bool) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	var d time.Duration
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "and" {
			continue
		}
		n, err := strconv.Atoi(f[i])
		if err != nil {
			continue
		}
		unit := map[string]time.Duration{"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second}[strings.TrimSuffix(f[i+1], "s")]
		if unit == 0 {
			return 0, false
		}
		d += time.Duration(n) * unit
		i++
	}
	return d, d > 0
}
