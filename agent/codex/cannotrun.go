package codex

import (
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// CannotRun are Codex CLI's words when its model API refuses it or cannot
// be reached (hook/PROTOCOLS.md, "When the model API refuses").
func (Agent) CannotRun() cannotrun.Words {
	return cannotrun.Words{
		Agent: "codex", Login: "run `codex login` (or set the provider's API key)",
		Rules: []cannotrun.Rule{
			{Kind: cannotrun.Limit, RE: lazyre.New(`(?:^ERROR: )?You(?:'|’)ve hit your usage limit.*`)},
			{Kind: cannotrun.Limit, RE: lazyre.New(`exceeded retry limit, last status: 429.*|unexpected status 429\b.*`)},
			{Kind: cannotrun.Overloaded, RE: lazyre.New(`Selected model is at capacity.*|unexpected status (?:503|529)\b.*|exceeded retry limit, last status: (?:503|529).*`)},
			{Kind: cannotrun.Auth, RE: lazyre.New(`unexpected status 401\b.*|Missing environment variable: .*API_KEY.*|Not logged in.*codex login.*`)},
			{Kind: cannotrun.Network, RE: lazyre.New(`Reconnecting\.\.\. waiting for network.*|stream disconnected before completion.*|error sending request for url.*`)},
		},
		Reset: resetAt,
	}
}

// resetAt reads when Codex's limit resets: "try again at Jan 15th, 2027
// 8:00 AM", "try again at 8:00 AM" (in the machine's zone: now's), "try
// again in 2 hours 5 minutes".
func resetAt(s string, now time.Time) (time.Time, bool) {
	if m := lazyre.New(`(?i:try again at) (?:([A-Z][a-z]{2} \d{1,2})(?:st|nd|rd|th)?(?:, (\d{4}))? )?(\d{1,2}:\d{2} [AP]M)`).FindStringSubmatch(s); m != nil {
		day := m[1]
		if day != "" && m[2] != "" {
			day += ", " + m[2]
		}
		return cannotrun.DayAndClock(day, "Jan 2", "Jan 2, 2006", m[3], "3:04 PM", now.Location(), now)
	}
	if m := lazyre.New(`(?i:try again in) ((?:\d+ (?:days?|hours?|minutes?|seconds?)[ ,]*(?:and )?)+)`).FindStringSubmatch(s); m != nil {
		if d, ok := cannotrun.SpelledDuration(m[1]); ok {
			return now.Add(d), true
		}
	}
	return time.Time{}, false
}
