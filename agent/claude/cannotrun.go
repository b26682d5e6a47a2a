package claude

import (
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// CannotRun are Claude Code's words when its model API refuses it or
// cannot be reached (hook/PROTOCOLS.md, "When the model API refuses"); its
// JSON result names the API's HTTP status too.
func (Agent) CannotRun() cannotrun.Words {
	return cannotrun.Words{
		Agent: "claude", Login: "run `claude /login` (or set ANTHROPIC_API_KEY)", APIStatus: true,
		Rules: []cannotrun.Rule{
			{Kind: cannotrun.Limit, RE: lazyre.New(`Claude AI usage limit reached\|\d+`)},
			{Kind: cannotrun.Limit, RE: lazyre.New(`Claude usage limit reached\. Your limit will reset at .*`)},
			{Kind: cannotrun.Limit, RE: lazyre.New(`You(?:'|’)ve hit your (?:5-hour |weekly |Opus |session |usage )?limit\b.*`)},
			{Kind: cannotrun.Limit, RE: lazyre.New(`^API Error: (?:Request rejected \(429\)|Server is temporarily limiting requests|429\b).*`)},
			{Kind: cannotrun.Overloaded, RE: lazyre.New(`^API Error: (?:529|503)\b.*|^API Error: .*[Oo]verloaded.*`)},
			{Kind: cannotrun.Auth, RE: lazyre.New(`(?:Not logged in|Invalid API key|OAuth token revoked|Login expired|OAuth token has expired) · .*|^API Error: 401\b.*|Please run /login.*`)},
			{Kind: cannotrun.Network, RE: lazyre.New(`^API Error: (?:Connection (?:error|refused)|Request timed out|fetch failed).*`)},
		},
		Reset: resetAt,
	}
}

// resetAt reads when Claude Code's limit resets: before 1.0 "Claude AI
// usage limit reached|1767225600"; then "resets Jan 15, 2027, 8am (UTC)",
// "resets 8:30pm (Europe/Paris)", "Your limit will reset at 9am
// (America/Chicago)".
func resetAt(s string, now time.Time) (time.Time, bool) {
	if m := lazyre.New(`usage limit reached\|(\d{9,11})`).FindStringSubmatch(s); m != nil {
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		return time.Unix(sec, 0).UTC(), true
	}
	m := lazyre.New(`(?:resets|will reset at) (?:([A-Z][a-z]{2} \d{1,2}(?:, \d{4})?), )?(\d{1,2}(?::\d{2})?[ap]m) \(([^)]+)\)`).FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	loc, err := time.LoadLocation(m[3])
	if err != nil {
		return time.Time{}, false
	}
	clock := m[2]
	if !strings.Contains(clock, ":") {
		clock = strings.TrimSuffix(strings.TrimSuffix(clock, "am"), "pm") + ":00" + clock[len(clock)-2:]
	}
	return cannotrun.DayAndClock(m[1], "Jan 2", "Jan 2, 2006", clock, "3:04pm", loc, now)
}
