package replay_test

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// A Claude Code transcript records each message's usage: replay spends it
// against the budgets (each message once, with the call that follows it)
// and says what was spent; the hourly budget, meaningless on replay's
// clock of one event a second, is left out.
func TestReplaySpendsTheTranscriptsUsage(t *testing.T) {
	s, err := transcript.Read("../transcript/testdata/claude-transcript-productive.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	cfg := lb.Defaults()
	cfg.Budget.CallsPerHour = 1
	r := replay.Run(s, cfg)
	if r.Halt != nil || r.Spend == nil || r.Spend.Calls != 11 || r.Spend.Tokens != 11*120 {
		t.Fatalf("halt %+v, spend %+v; want no halt and 11 calls of 120 tokens", r.Halt, r.Spend)
	}
	cfg.Budget.SessionTokens = 1000
	r = replay.Run(s, cfg)
	if r.Halt == nil || r.Halt.Detector != lb.DetectorSessionTokens || r.Halt.Step != 9 || r.Spend.Tokens != 1080 {
		t.Fatalf("halt %+v, spend %+v; want budget_session_tokens at step 9 with 1,080 tokens", r.Halt, r.Spend)
	}
}
