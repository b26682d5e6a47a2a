// Package cannotrun recognises an agent CLI that could not work at all:
// its model API refused it (a usage or rate limit, an overloaded API, a
// credential that is missing or rejected) or could not be reached. Such an
// iteration or turn says nothing about whether the agent is stuck: the
// loop supervisor waits for the limit to reset or stops with the command
// that fixes it, and the hooks do not count the turn as one without
// progress. One classifier serves both, so that they agree.
//
// The patterns are the words the pinned Claude Code, Codex CLI and Gemini
// CLI print (hook/PROTOCOLS.md, "When the model API refuses"); they are
// read only from an agent run that failed, so an agent that merely talks
// about rate limits is not taken for one that hit one.
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
	// Agent names the CLI whose words matched: claude, codex or gemini
	// (empty when the words are not one CLI's).
	Agent string
	// Line is the line that matched, cut to a readable length.
	Line string
	// ResetAt is when the limit resets, when the CLI said so.
	ResetAt *time.Time
}

// Fix is what a person does about an auth failure: the command that logs
// the agent's CLI in.
func (f Finding) Fix() string {
	switch f.Agent {
	case "claude":
		return "run `claude /login` (or set ANTHROPIC_API_KEY)"
	case "codex":
		return "run `codex login` (or set the provider's API key)"
	case "gemini":
		return "run `gemini` and choose an auth method (or set GEMINI_API_KEY)"
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

// rule is one CLI's words for one kind of refusal.
type rule struct {
	agent string
	kind  Kind
	re    *lazyre.RE
}

// The rules, most specific first: a CLI's own words before a generic
// status line.
var rules = []rule{
	// Claude Code.
	{"claude", Limit, lazyre.New(`Claude AI usage limit reached\|\d+`)},
	{"claude", Limit, lazyre.New(`Claude usage limit reached\. Your limit will reset at .*`)},
	{"claude", Limit, lazyre.New(`You(?:'|’)ve hit your (?:5-hour |weekly |Opus |session |usage )?limit\b.*`)},
	{"claude", Limit, lazyre.New(`^API Error: (?:Request rejected \(429\)|Server is temporarily limiting requests|429\b).*`)},
	{"claude", Overloaded, lazyre.New(`^API Error: (?:529|503)\b.*|^API Error: .*[Oo]verloaded.*`)},
	{"claude", Auth, lazyre.New(`(?:Not logged in|Invalid API key|OAuth token revoked|Login expired|OAuth token has expired) · .*|^API Error: 401\b.*|Please run /login.*`)},
	{"claude", Network, lazyre.New(`^API Error: (?:Connection (?:error|refused)|Request timed out|fetch failed).*`)},
	// Codex CLI.
	{"codex", Limit, lazyre.New(`(?:^ERROR: )?You(?:'|’)ve hit your usage limit.*`)},
	{"codex", Limit, lazyre.New(`exceeded retry limit, last status: 429.*|unexpected status 429\b.*`)},
	{"codex", Overloaded, lazyre.New(`Selected model is at capacity.*|unexpected status (?:503|529)\b.*|exceeded retry limit, last status: (?:503|529).*`)},
	{"codex", Auth, lazyre.New(`unexpected status 401\b.*|Missing environment variable: .*API_KEY.*|Not logged in.*codex login.*`)},
	{"codex", Network, lazyre.New(`Reconnecting\.\.\. waiting for network.*|stream disconnected before completion.*|error sending request for url.*`)},
	// Gemini CLI.
	{"gemini", Limit, lazyre.New(`TerminalQuotaError: .*|RetryableQuotaError: .*|"status":\s*"RESOURCE_EXHAUSTED".*|Attempt \d+ failed with status 429\b.*`)},
	// Gemini CLI names a 503 a RetryableQuotaError too (classifyGoogleError):
	// its message ("The model is overloaded", "high demand") or the
	// status field it prints after says which. On the same line as the
	// quota rule above, this later rule wins.
	{"gemini", Overloaded, lazyre.New(`Attempt \d+ failed with status (?:503|529)\b.*|"status":\s*"UNAVAILABLE".*|RetryableQuotaError: .*(?:[Oo]verloaded|[Hh]igh demand|[Uu]navailable|at capacity).*|^\s*(?:status|code):\s*(?:503|529)\b.*`)},
	{"gemini", Auth, lazyre.New(`When using Gemini API, you must specify the GEMINI_API_KEY.*|Invalid auth method selected.*|"status":\s*"UNAUTHENTICATED".*|API key not valid.*|Please set an Auth method.*`)},
	{"gemini", Network, lazyre.New(`fetch failed sending request.*`)},
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

// geminiAuthExit is the exit code of Gemini CLI without a usable auth
// method (FatalAuthenticationError).
const geminiAuthExit = 41

// Classify says whether a failed agent run could not work at all, and
// why. A run that exited 0 is never one: an agent that finished its turn
// worked.
func Classify(r Run, now time.Time) (Finding, bool) {
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
	for _, ru := range rules {
		for _, loc := range allLineMatches(ru.re, text) {
			if loc.at < bestAt {
				continue
			}
			f := Finding{Kind: ru.kind, Agent: ru.agent, Line: cut(loc.line)}
			if ru.kind == Limit {
				f.ResetAt = resetTime(loc.line, text, now)
			}
			best, bestAt = &f, loc.at
		}
	}
	if best == nil {
		switch {
		case r.ExitCode == geminiAuthExit && strings.Contains(text, "uth"):
			best = &Finding{Kind: Auth, Agent: "gemini", Line: cut(lastLine(text))}
		case r.APIErrorStatus == 429:
			best = &Finding{Kind: Limit, Agent: "claude", Line: cut(lastLine(text))}
		case r.APIErrorStatus == 529 || r.APIErrorStatus == 503:
			best = &Finding{Kind: Overloaded, Agent: "claude", Line: cut(lastLine(text))}
		case r.APIErrorStatus == 401 || r.APIErrorStatus == 403:
			best = &Finding{Kind: Auth, Agent: "claude", Line: cut(lastLine(text))}
		default:
			return Finding{}, false
		}
	}
	return *best, true
}

// maxTurnMessage bounds the agent's last message that ClassifyTurn reads:
// a CLI's refusal is one short line, an agent's prose is longer.
const maxTurnMessage = 600

// ClassifyTurn says whether an agent turn ended on its model API's refusal,
// from the turn's last message as a hook receives it (Claude Code's
// last_assistant_message is then the CLI's error line itself). Only a
// short message that is the refusal counts: an agent that writes about a
// rate limit is working.
func ClassifyTurn(message string, now time.Time) (Finding, bool) {
	msg := strings.TrimSpace(message)
	if msg == "" || len(msg) > maxTurnMessage || strings.Count(msg, "\n") > 2 {
		return Finding{}, false
	}
	return Classify(Run{Stdout: []byte(msg), ExitCode: 1}, now)
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

// Reset times, in each CLI's words.
var (
	// Claude Code before 1.0: "Claude AI usage limit reached|1767225600".
	claudeEpoch = lazyre.New(`usage limit reached\|(\d{9,11})`)
	// Claude Code: "resets Jan 15, 2027, 8am (UTC)", "resets 8:30pm
	// (Europe/Paris)"; 1.0: "Your limit will reset at 9am (America/Chicago)".
	claudeResets = lazyre.New(`(?:resets|will reset at) (?:([A-Z][a-z]{2} \d{1,2}(?:, \d{4})?), )?(\d{1,2}(?::\d{2})?[ap]m) \(([^)]+)\)`)
	// Codex: "try again at Jan 15th, 2027 8:00 AM", "try again at 8:00 AM",
	// in the machine's zone (the zone of the now Classify is given).
	codexAt = lazyre.New(`(?i:try again at) (?:([A-Z][a-z]{2} \d{1,2})(?:st|nd|rd|th)?(?:, (\d{4}))? )?(\d{1,2}:\d{2} [AP]M)`)
	// Codex: "try again in 2 hours 5 minutes" / "in 3 days 1 hour".
	codexIn = lazyre.New(`(?i:try again in) ((?:\d+ (?:days?|hours?|minutes?|seconds?)[ ,]*(?:and )?)+)`)
	// Gemini: "Please retry in 26.47s." and its error's retryDelayMs.
	geminiIn = lazyre.New(`[Pp]lease retry in (\d+(?:\.\d+)?)(ms|s)\b`)
	geminiMs = lazyre.New(`retryDelayMs: (\d+)`)
)

// resetTime reads when a limit resets from the matched line, else from the
// rest of the output (Gemini prints the delay a few lines further down).
func resetTime(line, text string, now time.Time) *time.Time {
	for _, s := range []string{line, text} {
		if t, ok := parseReset(s, now); ok {
			return &t
		}
	}
	return nil
}

func parseReset(s string, now time.Time) (time.Time, bool) {
	if m := claudeEpoch.FindStringSubmatch(s); m != nil {
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		return time.Unix(sec, 0).UTC(), true
	}
	if m := claudeResets.FindStringSubmatch(s); m != nil {
		loc, err := time.LoadLocation(m[3])
		if err != nil {
			return time.Time{}, false
		}
		clock := m[2]
		if !strings.Contains(clock, ":") {
			clock = strings.TrimSuffix(strings.TrimSuffix(clock, "am"), "pm") + ":00" + clock[len(clock)-2:]
		}
		return dayAndClock(m[1], "Jan 2", "Jan 2, 2006", clock, "3:04pm", loc, now)
	}
	if m := codexAt.FindStringSubmatch(s); m != nil {
		day := m[1]
		if day != "" && m[2] != "" {
			day += ", " + m[2]
		}
		return dayAndClock(day, "Jan 2", "Jan 2, 2006", m[3], "3:04 PM", now.Location(), now)
	}
	if m := codexIn.FindStringSubmatch(s); m != nil {
		if d, ok := spelledDuration(m[1]); ok {
			return now.Add(d), true
		}
	}
	if m := geminiIn.FindStringSubmatch(s); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			unit := time.Second
			if m[2] == "ms" {
				unit = time.Millisecond
			}
			return now.Add(time.Duration(v * float64(unit))).Truncate(time.Second), true
		}
	}
	if m := geminiMs.FindStringSubmatch(s); m != nil {
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		return now.Add(time.Duration(ms) * time.Millisecond).Truncate(time.Second), true
	}
	return time.Time{}, false
}

// dayAndClock reads a wall-clock time with an optional day ("Jan 15" or
// "Jan 15, 2027"); without a year it is the next such day, without a day
// the next such time after now.
func dayAndClock(day, dayLayout, yearLayout, clock, clockLayout string, loc *time.Location, now time.Time) (time.Time, bool) {
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

// spelledDuration reads "2 hours 5 minutes", "3 days, 1 hour and 4 minutes".
func spelledDuration(s string) (time.Duration, bool) {
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
