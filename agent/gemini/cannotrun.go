package gemini

import (
	"strconv"
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// CannotRun are Gemini CLI's words when its model API refuses it or cannot
// be reached (hook/PROTOCOLS.md, "When the model API refuses"); it exits
// 41 without a usable auth method (FatalAuthenticationError).
func (Agent) CannotRun() cannotrun.Words {
	return cannotrun.Words{
		Agent: "gemini", Login: "run `gemini` and choose an auth method (or set GEMINI_API_KEY)", AuthExit: 41,
		Rules: []cannotrun.Rule{
			{Kind: cannotrun.Limit, RE: lazyre.New(`TerminalQuotaError: .*|RetryableQuotaError: .*|"status":\s*"RESOURCE_EXHAUSTED".*|Attempt \d+ failed with status 429\b.*`)},
			// Gemini CLI names a 503 a RetryableQuotaError too
			// (classifyGoogleError): its message ("The model is
			// overloaded", "high demand") or the status field it prints
			// after says which. On the same line as the quota rule above,
			// this later rule wins.
			{Kind: cannotrun.Overloaded, RE: lazyre.New(`Attempt \d+ failed with status (?:503|529)\b.*|"status":\s*"UNAVAILABLE".*|RetryableQuotaError: .*(?:[Oo]verloaded|[Hh]igh demand|[Uu]navailable|at capacity).*|^\s*(?:status|code):\s*(?:503|529)\b.*`)},
			{Kind: cannotrun.Auth, RE: lazyre.New(`When using Gemini API, you must specify the GEMINI_API_KEY.*|Invalid auth method selected.*|"status":\s*"UNAUTHENTICATED".*|API key not valid.*|Please set an Auth method.*`)},
			{Kind: cannotrun.Network, RE: lazyre.New(`fetch failed sending request.*`)},
		},
		Reset: resetAt,
	}
}

// resetAt reads when Gemini's limit resets: "Please retry in 26.47s.", and
// its error's retryDelayMs.
func resetAt(s string, now time.Time) (time.Time, bool) {
	if m := lazyre.New(`[Pp]lease retry in (\d+(?:\.\d+)?)(ms|s)\b`).FindStringSubmatch(s); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil {
			unit := time.Second
			if m[2] == "ms" {
				unit = time.Millisecond
			}
			return now.Add(time.Duration(v * float64(unit))).Truncate(time.Second), true
		}
	}
	if m := lazyre.New(`retryDelayMs: (\d+)`).FindStringSubmatch(s); m != nil {
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		return now.Add(time.Duration(ms) * time.Millisecond).Truncate(time.Second), true
	}
	return time.Time{}, false
}
