package loopbreaker

import (
	"slices"
	"time"
)

// SessionMemory is what an agent session's hook calls remember between
// two hook processes: the calls announced and not yet reported, the calls
// already counted, the batch the calls belong to, and what was already
// told to the model. It lives in the breaker state, so that it changes in
// the same atomic update as the counters it feeds: hook processes of one
// batch running at once see one truth, a Redis store shares it across
// machines, and nothing of it lies in the agent's work tree.
type SessionMemory struct {
	// Pending are the calls announced (PreToolUse) whose result has not
	// come yet, oldest first, bounded by MaxPendingCalls.
	Pending []PendingCall `json:"pending,omitempty"`
	// Counted are the ids of the calls whose outcome was recorded ("D"
	// and the id: from its result; "F": as failed without one), newest
	// last, bounded by MaxCountedCalls: a late result, or a batch event
	// that lists the call again, does not count it twice.
	Counted []string `json:"counted,omitempty"`
	// Batch numbers the batches of calls; Results counts the results
	// recorded. A batch is the calls announced while an earlier call of
	// it still waits for its result and no result has come since it
	// opened (BatchResults): the calls of one model message, whose hooks
	// the CLI runs at once.
	Batch        int `json:"batch,omitempty"`
	Results      int `json:"results,omitempty"`
	BatchResults int `json:"batch_results,omitempty"`
	// BatchMessage names the model message whose calls the current batch
	// is (PendingCall.Message), where the CLI names no call: a result of
	// that message whose call was never announced is of the batch.
	BatchMessage string `json:"batch_message,omitempty"`

	// ConfigOnDisk is the hash of the configuration on disk that differs
	// from the one in force (BreakerState.ConfigInForce) and was said on
	// the hook's stderr: each changed file is said once.
	ConfigOnDisk string `json:"config_on_disk,omitempty"`

	// Nudged names the warning episode whose warning reached the model.
	Nudged string `json:"nudged,omitempty"`
	// Halted names, per agent session, the OPEN episode whose full halt
	// message reached it (bounded by MaxAgentSessions).
	Halted []string `json:"halted,omitempty"`
	// FailingTest is the test that failed most recently; scope
	// violations count against it.
	FailingTest string `json:"failing_test,omitempty"`
	// Notification is the agent session whose current turn answers a
	// background task's notification, not a person.
	Notification string `json:"notification,omitempty"`
	// Answer is what the agent had answered by its previous turn end,
	// for CLIs that send every answer so far (its length and hash).
	Answer *TextMark `json:"answer,omitempty"`
	// Transcripts are, per agent session, where its transcript had been
	// read up to.
	Transcripts []TranscriptMark `json:"transcripts,omitempty"`
	// Seen are the agent sessions hook calls came from, newest last,
	// bounded by MaxAgentSessions (what `hook status` shows).
	Seen []SeenSession `json:"seen,omitempty"`
}

// Bounds on what a session remembers.
const (
	MaxPendingCalls  = 64
	MaxCountedCalls  = 64
	MaxAgentSessions = 32
)

// PendingCall is a call announced and not yet reported: the call as it is
// recorded if it turns out to have failed without a result.
type PendingCall struct {
	// ID names the call across its events (the agent's tool_use_id with
	// its session); empty when the CLI sends none, then the call is known
	// by its identity (Call.Tool and Call.ArgsHash) only.
	ID   string    `json:"id,omitempty"`
	Call ToolCall  `json:"call"`
	Time time.Time `json:"time"`
	// Batch is the batch it was announced in; Results the results
	// recorded by then.
	Batch   int `json:"batch"`
	Results int `json:"results"`
	// Shell marks a shell command: it may still run in the background
	// when the turn ends, so it is then forgotten rather than failed.
	Shell bool `json:"shell,omitempty"`
	// Cut marks a call announced before the breaker opened: the halt may
	// have cut its batch short (the CLI stops, a hook still running is
	// killed), so a result that never comes says nothing of whether it
	// failed, and it is forgotten uncounted.
	Cut bool `json:"cut,omitempty"`
	// Message names the model message that asked for it, where the CLI
	// sends no call id but its transcript tells (agent.MessageNamer): the
	// same call announced again in the same message is another call, not
	// its failed repeat. Transcript names the agent session and the
	// transcript the name was read from: another message read from the
	// same transcript is a later one.
	Message    string `json:"message,omitempty"`
	Transcript string `json:"transcript,omitempty"`
}

// TextMark stands for a text by its length and hash.
type TextMark struct {
	Len  int    `json:"len"`
	Hash string `json:"hash"`
}

// TranscriptMark is how far an agent session's transcript was read.
type TranscriptMark struct {
	Session string `json:"session"`
	Offset  int64  `json:"offset"`
	// UsageOffset is where its model usage was read up to, UsageLast the
	// message counted last (agents repeat a message's usage); UsageRead
	// marks that the usage was read at all.
	UsageOffset int64  `json:"usage_offset,omitempty"`
	UsageLast   string `json:"usage_last,omitempty"`
	UsageRead   bool   `json:"usage_read,omitempty"`
	// UsageModel is the model in use, for a transcript that names it
	// once per turn (Codex).
	UsageModel string `json:"usage_model,omitempty"`
}

// SeenSession is the mark of one agent session's hook calls.
type SeenSession struct {
	Tool      string    `json:"tool"`
	SessionID string    `json:"session_id"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	LastEvent string    `json:"last_event"`
	Calls     int       `json:"calls"`
}

// IsCounted reports whether the call id's outcome was recorded.
func (m *SessionMemory) IsCounted(id string) bool {
	return id != "" && (slices.Contains(m.Counted, "D"+id) || slices.Contains(m.Counted, "F"+id))
}

// CountedAsFailed reports whether the call id was counted as failed
// before any result of it came.
func (m *SessionMemory) CountedAsFailed(id string) bool {
	return id != "" && slices.Contains(m.Counted, "F"+id)
}

// MarkCounted remembers that the call id's outcome was recorded: from its
// result, or as failed without one.
func (m *SessionMemory) MarkCounted(id string, failed bool) {
	if id == "" || m.IsCounted(id) {
		return
	}
	mark := "D" + id
	if failed {
		mark = "F" + id
	}
	m.Counted = append(m.Counted, mark)
	if n := len(m.Counted) - MaxCountedCalls; n > 0 {
		m.Counted = slices.Delete(m.Counted, 0, n)
	}
}

// FindPending is the index of the pending call id, or -1.
func (m *SessionMemory) FindPending(id string) int {
	if id == "" {
		return -1
	}
	for i := range m.Pending {
		if m.Pending[i].ID == id {
			return i
		}
	}
	return -1
}

// Clone is a deep copy.
func (m *SessionMemory) Clone() *SessionMemory {
	if m == nil {
		return nil
	}
	out := *m
	out.Pending = slices.Clone(m.Pending)
	for i := range out.Pending {
		out.Pending[i].Call = *cloneToolCall(&m.Pending[i].Call)
	}
	out.Counted = slices.Clone(m.Counted)
	out.Halted = slices.Clone(m.Halted)
	out.Transcripts = slices.Clone(m.Transcripts)
	out.Seen = slices.Clone(m.Seen)
	if m.Answer != nil {
		a := *m.Answer
		out.Answer = &a
	}
	return &out
}

func cloneToolCall(tc *ToolCall) *ToolCall {
	out := *tc
	out.Args = slices.Clone(tc.Args)
	if tc.Error != nil {
		e := *tc.Error
		out.Error = &e
	}
	out.Files = slices.Clone(tc.Files)
	out.Tests = slices.Clone(tc.Tests)
	if tc.Usage != nil {
		u := *tc.Usage
		if u.CostUSD != nil {
			c := *u.CostUSD
			u.CostUSD = &c
		}
		u.Refused = slices.Clone(u.Refused)
		out.Usage = &u
	}
	if tc.TestsPassing != nil {
		n := *tc.TestsPassing
		out.TestsPassing = &n
	}
	if tc.TestsFailing != nil {
		n := *tc.TestsFailing
		out.TestsFailing = &n
	}
	return &out
}
