package cannotrun_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/cannotrun"
)

// The outputs below are what the pinned CLIs printed against a model API
// answering 429, 529 (503 for Gemini), 401 or refusing the connection
// (hook/PROTOCOLS.md records them whole).
func TestClassifyRealOutputs(t *testing.T) {
	now := time.Date(2027, 1, 15, 6, 30, 0, 0, time.UTC)
	at := func(s string) *time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &tm
	}
	tests := []struct {
		name   string
		run    cannotrun.Run
		kind   cannotrun.Kind
		agent  string
		reset  *time.Time
		notOne bool
	}{
		{name: "claude 5-hour limit", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("You've hit your 5-hour limit · resets Jan 15, 2027, 8am (UTC)\n")},
			kind: cannotrun.Limit, agent: "claude", reset: at("2027-01-15T08:00:00Z")},
		{name: "claude limit later today, other zone", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("You've hit your 5-hour limit · resets 9:30am (Europe/Paris)\n")},
			kind: cannotrun.Limit, agent: "claude", reset: at("2027-01-15T08:30:00Z")},
		{name: "claude 1.0 reset time", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("Claude usage limit reached. Your limit will reset at 9am (Europe/Paris).\n")},
			kind: cannotrun.Limit, agent: "claude", reset: at("2027-01-15T08:00:00Z")},
		{name: "claude session limit past midnight", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("You've hit your session limit · resets 12:50am (America/Los_Angeles)\n")},
			kind: cannotrun.Limit, agent: "claude", reset: at("2027-01-15T08:50:00Z")},
		{name: "codex days and hours", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.\n")},
			kind: cannotrun.Limit, agent: "codex", reset: at("2027-01-17T23:44:00Z")},
		{name: "claude old epoch form", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("Claude AI usage limit reached|1800000000\n")},
			kind: cannotrun.Limit, agent: "claude", reset: at("2027-01-15T08:00:00Z")},
		{name: "claude API key rate limit", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit\n")},
			kind: cannotrun.Limit, agent: "claude"},
		{name: "claude overloaded", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.\n")},
			kind: cannotrun.Overloaded, agent: "claude"},
		{name: "claude not logged in", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("Not logged in · Please run /login\n")},
			kind: cannotrun.Auth, agent: "claude"},
		{name: "claude bad key", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("Invalid API key · Fix external API key\n")},
			kind: cannotrun.Auth, agent: "claude"},
		{name: "claude refused connection", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)\n")},
			kind: cannotrun.Network, agent: "claude"},
		{name: "claude json result", run: cannotrun.Run{ExitCode: 1, APIErrorStatus: 429, Stdout: []byte(`{"type":"result","is_error":true,"result":"API Error: Server is temporarily limiting requests (not your usage limit) · x","api_error_status":429}` + "\n")},
			kind: cannotrun.Limit, agent: "claude"},
		{name: "codex usage limit", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("user\nhello\nERROR: You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Jan 15th, 2027 8:00 AM.\n")},
			kind: cannotrun.Limit, agent: "codex", reset: at("2027-01-15T08:00:00Z")},
		{name: "codex usage limit in", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("ERROR: You've hit your usage limit. Try again in 1 hour 30 minutes.\n")},
			kind: cannotrun.Limit, agent: "codex", reset: at("2027-01-15T08:00:00Z")},
		{name: "codex no reset", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("ERROR: You’ve hit your usage limit. Try again later.\n")},
			kind: cannotrun.Limit, agent: "codex"},
		{name: "codex capacity", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("ERROR: Selected model is at capacity. Please try a different model.\n")},
			kind: cannotrun.Overloaded, agent: "codex"},
		{name: "codex 401", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("ERROR: unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses\n")},
			kind: cannotrun.Auth, agent: "codex"},
		{name: "codex no network, killed", run: cannotrun.Run{ExitCode: 124, Stderr: []byte("ERROR: Reconnecting... waiting for network\nERROR: Reconnecting... waiting for network\n")},
			kind: cannotrun.Network, agent: "codex"},
		{name: "gemini quota", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("Error when talking to Gemini API Full report available at: /tmp/x.json TerminalQuotaError: Quota exceeded for quota metric. Please retry in 3600s.\n    at classifyGoogleError (file:///x.js:1:1)\n  retryDelayMs: 3600000,\n  status: 429\n}\n")},
			kind: cannotrun.Limit, agent: "gemini", reset: at("2027-01-15T07:30:00Z")},
		{name: "gemini overloaded", run: cannotrun.Run{ExitCode: 124, Stderr: []byte(`Attempt 1 failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}` + "\n")},
			kind: cannotrun.Overloaded, agent: "gemini"},
		{name: "gemini overloaded, named a retryable quota error", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("Error when talking to Gemini API Full report available at: /tmp/x.json RetryableQuotaError: The model is overloaded. Please try again later.\n    at classifyGoogleError (file:///x.js:1:1)\n  retryDelayMs: undefined,\n  cause: {\n    code: 503,\n    message: 'The model is overloaded. Please try again later.',\n    details: []\n  }\n}\n")},
			kind: cannotrun.Overloaded, agent: "gemini"},
		{name: "gemini high demand, named a retryable quota error", run: cannotrun.Run{ExitCode: 1, Stderr: []byte("RetryableQuotaError: This model is currently experiencing high demand. Spikes in demand are usually temporary. Please try again later.\n")},
			kind: cannotrun.Overloaded, agent: "gemini"},
		{name: "gemini bad key", run: cannotrun.Run{ExitCode: 1, Stderr: []byte(`Error when talking to Gemini API _ApiError: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}` + "\n")},
			kind: cannotrun.Auth, agent: "gemini"},
		{name: "gemini no key", run: cannotrun.Run{ExitCode: 41, Stderr: []byte("When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\nUpdate your environment and try again (no reload needed if using .env)!\n")},
			kind: cannotrun.Auth, agent: "gemini"},
		{name: "gemini no network", run: cannotrun.Run{ExitCode: 124, Stderr: []byte("Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request\n    at file:///x.js:1:1\n")},
			kind: cannotrun.Network, agent: "gemini"},
		{name: "a successful run talking about limits", run: cannotrun.Run{ExitCode: 0, Stdout: []byte("You've hit your 5-hour limit · resets 8am (UTC)\n")}, notOne: true},
		{name: "a failing test", run: cannotrun.Run{ExitCode: 1, Stdout: []byte("--- FAIL: TestRateLimit (0.00s)\n    limiter_test.go:12: want 429, got 200\n")}, notOne: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := cannotrun.Classify(tt.run, now, all.CannotRun())
			if tt.notOne {
				if ok {
					t.Fatalf("classified as %+v, want nothing", f)
				}
				return
			}
			if !ok {
				t.Fatal("not recognised")
			}
			if f.Kind != tt.kind || f.Agent != tt.agent {
				t.Fatalf("got %s/%s (%q), want %s/%s", f.Kind, f.Agent, f.Line, tt.kind, tt.agent)
			}
			switch {
			case tt.reset == nil && f.ResetAt != nil:
				t.Fatalf("reset %s, want none", f.ResetAt)
			case tt.reset != nil && (f.ResetAt == nil || !f.ResetAt.Equal(*tt.reset)):
				t.Fatalf("reset %v, want %s", f.ResetAt, tt.reset)
			}
		})
	}
}

func TestFixNamesTheLoginCommand(t *testing.T) {
	words := map[string]string{}
	for _, w := range all.CannotRun() {
		words[w.Agent] = w.Login
	}
	for agent, want := range map[string]string{"claude": "claude /login", "codex": "codex login", "gemini": "gemini"} {
		if got := (cannotrun.Finding{Kind: cannotrun.Auth, Agent: agent, Login: words[agent]}).Fix(); !strings.Contains(got, want) {
			t.Errorf("%s: %q does not name %q", agent, got, want)
		}
	}
}

// A hook sees the turn's last message: the CLI's refusal line itself, or
// the agent's prose.
func TestClassifyTurn(t *testing.T) {
	now := time.Date(2027, 1, 15, 6, 30, 0, 0, time.UTC)
	for msg, want := range map[string]bool{
		"API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit": true,
		"Invalid API key · Fix external API key":                                                             true,
		"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.": true,
		"I fixed the limiter: it now answers 429 when the rate limit is reached.":                            false,
		"": false,
		strings.Repeat("I looked at the code. ", 40) + "\nAPI Error: 429": false,
	} {
		if _, got := cannotrun.ClassifyTurn(msg, now, all.CannotRun()); got != want {
			t.Errorf("cannotrun.ClassifyTurn(%.60q, all.CannotRun()) = %v, want %v", msg, got, want)
		}
	}
}

// A refusal the agent got past, early in a long run, is not why the run
// failed: only the end of the output counts.
func TestClassifyReadsTheEnd(t *testing.T) {
	now := time.Date(2027, 1, 15, 6, 30, 0, 0, time.UTC)
	out := "ERROR: Reconnecting... waiting for network\n" + strings.Repeat("working on calc.go\n", 60) + "--- FAIL: TestAdd (0.00s)\n"
	if f, ok := cannotrun.Classify(cannotrun.Run{ExitCode: 124, Stderr: []byte(out)}, now, all.CannotRun()); ok {
		t.Fatalf("classified as %+v; the network came back and the agent worked on", f)
	}
	if f, ok := cannotrun.Classify(cannotrun.Run{ExitCode: 124, Stderr: []byte(strings.Repeat("working\n", 60) + "ERROR: Reconnecting... waiting for network\n")}, now, all.CannotRun()); !ok || f.Kind != cannotrun.Network {
		t.Fatalf("got %+v, %v: want network", f, ok)
	}
}
