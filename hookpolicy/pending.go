package hookpolicy

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Pending calls. A pre-tool event announces a call; its post-tool event
// reports the result. Some failing calls never report one (Codex 0.169: an
// apply_patch that does not apply fires PreToolUse only), so the announced
// call is remembered as pending until its result comes; a pending call
// that failed is recorded as a failed call exactly once.
//
// When a pending call failed depends on how the CLI runs calls. Claude
// Code, Gemini CLI, Codex (parallel_tool_calls) and Copilot CLI run the
// calls of one model message at once (a batch): their pre-tool hooks all
// come before any result, and the results come in any order. A call still
// pending while its batch is open has not failed, and two identical calls
// in one batch are two calls. So a pending call failed when the agent
// repeats it after a result came since it was announced (a later batch),
// when the turn ends, when a new prompt comes, or when a PostToolBatch
// lists it. Codex and Copilot CLI fire nothing for a file call that
// failed before it ran (a patch that does not apply, an edit whose old
// text is not there): an edit announced again while the first waits is
// its failed repeat, since the same edit twice in one batch fails the
// second time anyway. A read announced again is not: identical reads of
// one batch all run, and one that failed is counted at the turn end.
// What never reports is unknown, not failed, where the CLI says when a
// call failed and may stop before the rest report: the calls a halt cuts
// short (cutPending) and, on a CLI with LateResults (OpenCode, whose own
// guard ends a turn while its batch runs), those pending at a turn end.
//
// Which batch a call is of is told by the order of the hooks: announced
// while a call of the batch waits and no result came since, it is of the
// batch. Hook processes the CLI starts at once may run in any order on a
// busy machine, so a call may be announced after another call of its
// batch reported; where the CLI's transcript says which calls one model
// message asked for (agent.MessageReader: Claude Code, Codex), such a
// call is placed in its message's batch (joinsBatch).
//
// A CLI that sends no call ids and fires nothing for a call that failed
// (SilentFailures: Droid) makes the same call announced again while the
// first waits look like its failed repeat, but the same read twice in one
// message is two reads. Where its transcript names the message that asked
// for a call (agent.MessageNamer), each pending call keeps that name, and
// a call of the same message is not the repeat of one that failed. Droid
// runs no call before every pre-tool hook of its message answered, so its
// calls are never announced late (hook/PROTOCOLS.md §0.10), and asks the
// model for its next message only once every call of this one has ended:
// a call still pending when a call of a later message of its transcript
// is announced failed (laterMessage).
//
// All of this is the session memory in the breaker state (SessionMemory),
// changed in the same atomic update as the counters: hook processes of one
// batch that run at once see one truth.

// maxPendingArgs bounds the arguments a pending call keeps.
const maxPendingArgs = 4 << 10

// callID names a call across its events: the agent session with the
// tool's call id, empty when the tool sends none (Gemini).
func callID(p *hook.Payload) string { return inSession(p.SessionID, p.ToolUseID) }

// inSession names id of the agent session, short; "" when id is.
func inSession(session, id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(session + "\x00" + id))
	return hex.EncodeToString(sum[:8])
}

// callKey is a call's identity: the tool and its canonical arguments.
func callKey(tc *lb.ToolCall) string { return tc.Tool + "\x00" + tc.ArgsHash }

// batchOpen reports whether the current batch still takes calls: a call
// of it waits for its result and no result came since it opened.
func batchOpen(m *lb.SessionMemory) bool {
	if m.Results != m.BatchResults {
		return false
	}
	for i := range m.Pending {
		if m.Pending[i].Batch == m.Batch {
			return true
		}
	}
	return false
}

// inMessage reports whether the pending call pc was asked for in the
// same model message as the call being announced, as the CLI's transcript
// says (agent.MessageReader by call id, agent.MessageNamer by the message
// pc was announced in): a call whose hook comes after another call of its
// batch reported is still of that batch, and the same call twice in one
// message is two calls. It reads the transcript at most once a hook call:
// by call id only when the order of the hooks left the question open; the
// message's name is read at every pre-tool hook of a CLI that names no
// call (remember keeps it, for a later hook that asks).
func (c *call) inMessage(pc *lb.PendingCall) bool {
	if pc.ID != "" {
		return slices.Contains(c.messageCalls(), pc.ID)
	}
	return pc.Message != "" && pc.Message == c.messageName()
}

// messageName names the model message that asked for the call of this
// hook, for a CLI that sends no call id but whose transcript says
// (agent.MessageNamer); "" otherwise. Read once a hook call.
func (c *call) messageName() string {
	if !c.namedRead {
		c.namedRead = true
		if r, ok := c.Agent.(agent.MessageNamer); ok && c.p.ToolUseID == "" {
			c.named = inSession(c.p.SessionID, r.MessageOf(c.p))
		}
	}
	return c.named
}

// laterMessage reports whether the call of this hook was asked for in a
// later model message of the transcript the pending call pc was asked for
// in, as the CLI that names no call says (agent.MessageNamer): both
// messages are named, read from one transcript, and differ. The
// transcript names the message being run by its last line, so another
// one is a later one.
func (c *call) laterMessage(pc *lb.PendingCall) bool {
	return pc.Message != "" && c.messageName() != "" && pc.Message != c.messageName() &&
		pc.Transcript == c.transcriptName()
}

// transcriptName names the agent session and transcript of this hook call.
func (c *call) transcriptName() string {
	return inSession(c.p.SessionID, c.p.TranscriptPath)
}

// messageCalls are the ids (callID) of the calls of the model message
// that asked for the call of this hook, as the CLI's transcript says; read
// once a hook call.
func (c *call) messageCalls() []string {
	if !c.messageRead {
		c.messageRead = true
		if r, ok := c.Agent.(agent.MessageReader); ok {
			for _, use := range r.MessageCalls(c.p) {
				c.message = append(c.message, callID(&hook.Payload{SessionID: c.p.SessionID, ToolUseID: use}))
			}
		}
	}
	return c.message
}

// joinsBatch reports whether the call being announced is of the current
// batch: the batch still takes calls, or a call of it was asked for in the
// same model message: still pending, or, in warning mode, reported
// already (the CLI sends the next message only when every call of this
// one has reported, so a reported call of the announced call's message is
// of the current batch). The transcript is read only when a call of the
// batch waits, or in warning mode, where a batch split in two may read as
// a broken cycle and close the breaker (see unannouncedInMessage).
func (c *call) joinsBatch(m *lb.SessionMemory) bool {
	if batchOpen(m) {
		return true
	}
	if m.Batch == 0 {
		return false
	}
	for i := range m.Pending {
		if m.Pending[i].Batch == m.Batch && c.inMessage(&m.Pending[i]) {
			return true
		}
	}
	if c.tx.State().State != lb.HalfOpen {
		return false
	}
	self := callID(c.p)
	for _, id := range c.messageCalls() {
		if id != self && m.IsCounted(id) {
			return true
		}
	}
	return false
}

// unannouncedInMessage reports whether a call of the reporting call's
// model message has been neither announced nor reported yet: its hook
// comes late, and the batch has not fully reported. It is asked in
// warning mode only, where judging a batch seen in part may close the
// breaker (breaker.Engine holds its judgement while lb.ToolCall.BatchOpen).
func (c *call) unannouncedInMessage() bool {
	if c.tx.State().State != lb.HalfOpen {
		return false
	}
	m := c.tx.Peek()
	self := callID(c.p)
	for _, id := range c.messageCalls() {
		if id != self && (m == nil || (!m.IsCounted(id) && m.FindPending(id) < 0)) {
			return true
		}
	}
	return false
}

// reportsToCome reports whether calls of batch b have still to report:
// some wait in the pending calls, or come in later (the failed calls
// recorded after this one). The engine holds its judgement of a batch
// seen in part (lb.ToolCall.BatchOpen).
func reportsToCome(m *lb.SessionMemory, b int, later []lb.ToolCall) bool {
	if b == 0 {
		return false
	}
	for i := range later {
		if later[i].Batch == b {
			return true
		}
	}
	if m == nil {
		return false
	}
	for i := range m.Pending {
		if m.Pending[i].Batch == b {
			return true
		}
	}
	return false
}

// remember marks the call of a pre-tool payload pending, in the open
// batch or a new one.
func (c *call) remember() {
	id := callID(c.p)
	m := c.tx.Memory()
	if m.FindPending(id) >= 0 {
		return
	}
	if !c.joinsBatch(m) {
		c.openBatch(m)
	}
	tc := hook.AnnouncedCall(c.p, c.Project, c.baseDir())
	tc.Batch = m.Batch
	if len(tc.Args) > maxPendingArgs {
		// The state is written on every call: a long input (a file's
		// whole content) is kept by its hash alone.
		tc.Args = nil
	}
	pc := lb.PendingCall{
		ID: id, Call: tc, Time: c.now().UTC(), Batch: m.Batch, Results: m.Results,
		Shell: c.p.Class() == hook.ClassShell, Message: c.messageName(),
	}
	if pc.Message != "" {
		pc.Transcript = c.transcriptName()
	}
	m.Pending = append(m.Pending, pc)
	if n := len(m.Pending) - lb.MaxPendingCalls; n > 0 {
		c.logf("loopbreaker: %d calls announced long ago never reported a result; forgetting the oldest\n", n)
		m.Pending = m.Pending[n:]
	}
}

// openBatch starts a batch in m: the calls of the model message that
// asked for the call of this hook, where the CLI names it.
func (c *call) openBatch(m *lb.SessionMemory) {
	m.Batch++
	m.BatchResults = m.Results
	m.BatchMessage = c.messageName()
}

// takePending removes the pending call named id (or, without an id, the
// oldest pending call with the identity key) and returns its batch.
func (c *call) takePending(id, key string) (int, bool) {
	m := c.tx.Peek()
	if m == nil {
		return 0, false
	}
	for i := range m.Pending {
		pc := &m.Pending[i]
		if (id != "" && pc.ID == id) || (id == "" && pc.ID == "" && callKey(&pc.Call) == key) {
			batch := pc.Batch
			m = c.tx.Memory()
			m.Pending = append(m.Pending[:i:i], m.Pending[i+1:]...)
			return batch, true
		}
	}
	return 0, false
}

// resolve takes the call a post-tool payload reports out of the pending
// calls and returns the batch it ran in; counted is true when its outcome
// was recorded already (it was counted as failed before its result came).
func (c *call) resolve(tc *lb.ToolCall) (batch int, counted bool) {
	id := callID(c.p)
	if m := c.tx.Peek(); m != nil && m.CountedAsFailed(id) {
		c.takePending(id, "")
		return 0, true
	}
	batch, found := c.takePending(id, callKey(tc))
	m := c.tx.Memory()
	if !found {
		// Never announced: no pre-tool hook for it, or one the CLI killed
		// (Droid's hook timeout; the call runs all the same). Of the
		// current batch when the transcript names its message as the
		// batch's (the CLI sends no later message before this call
		// ended); else a batch of its own.
		if name := c.messageName(); name == "" || name != m.BatchMessage {
			c.openBatch(m)
		}
		batch = m.Batch
	}
	m.MarkCounted(id, false)
	m.Results++
	return batch, false
}

// failedPending takes the pending calls that failed out of the memory:
// all of them when every is set (a turn end, a prompt), else those the
// call being announced repeats. It returns them as the failed calls to
// record, oldest first.
func (c *call) failedPending(every bool) []lb.ToolCall {
	m := c.tx.Peek()
	if m == nil || len(m.Pending) == 0 {
		return nil
	}
	var key, id string
	if !every {
		cur := hook.AnnouncedCall(c.p, c.Project, c.baseDir())
		key, id = callKey(&cur), callID(c.p)
	}
	var failed []lb.ToolCall
	var ids []string
	var keep []lb.PendingCall
	changed := false
	silent, late := c.Agent.Traits().SilentFailures, c.Agent.Traits().LateResults
	// A call is remembered only while the breaker lets calls run, so a
	// call still pending at a turn end while the breaker is OPEN was cut
	// short by the halt (see cutPending), as is one marked Cut.
	halted := every && c.tx.State().State == lb.Open
	for _, pc := range m.Pending {
		switch {
		case halted, pc.Cut && (every || callKey(&pc.Call) == key || (id != "" && pc.ID == id) || c.laterMessage(&pc)):
			changed = true
			continue
		case every && (pc.Shell || late) && !silent:
			// A command may still be running in the background (Codex
			// reports a yielded exec_command when it exits), and a CLI
			// with LateResults may end the turn before its batch reports:
			// forget it uncounted; its result, if it comes, is recorded
			// then.
			changed = true
			continue
		case every:
		case id != "" && pc.ID == id:
			// Announced again: the first announcement never ran.
		case callKey(&pc.Call) == key && pc.Results < m.Results && !c.inMessage(&pc):
			// Repeated after its batch saw results: it failed. Not when
			// both were asked for in one message: the same read twice in
			// one batch runs twice, whatever order their hooks came in.
		case callKey(&pc.Call) == key && silent && !c.inMessage(&pc):
			// The CLI reports every call that ran and none that failed:
			// the same call announced again is its failed repeat. Not
			// when the transcript says both were asked for in one
			// message: the same read twice in one message runs twice.
		case silent && c.laterMessage(&pc):
			// The CLI reports every call that ran, and asks the model
			// for a later message only once every call of this one has
			// ended: it failed. Counted now, it ends its batch, and the
			// later message's calls open one of their own.
		case callKey(&pc.Call) == key && c.Agent.Traits().SilentFileFailures && c.p.Class() == hook.ClassEdit:
			// The CLI reports every call that ran, and fires nothing for a
			// file tool that failed before it ran; its pre-tool hooks of
			// one response come before any call runs, like those of the
			// next response when every call failed. An edit announced
			// again is taken for its failed repeat: the same edit twice in
			// one response fails the second time anyway. A read is not:
			// the same read twice in one response runs twice.
		default:
			keep = append(keep, pc)
			continue
		}
		changed = true
		tc := pc.Call
		tc.Batch = pc.Batch
		hook.Unreported(&tc)
		failed = append(failed, tc)
		ids = append(ids, pc.ID)
	}
	if !changed {
		return nil
	}
	m = c.tx.Memory()
	m.Pending = keep
	for _, id := range ids {
		// A result that comes after all is not counted again.
		m.MarkCounted(id, true)
		m.Results++
	}
	return failed
}

// cutPending marks the calls pending when the breaker opens: the CLI stops
// at the halt, before some calls of the batch report (a hook still running
// is killed), so whether they failed is unknown. They are taken out of
// the pending calls uncounted at the turn end, the next prompt or their
// repeat, also after a person reset the breaker; a result that still
// comes is recorded as any.
func (c *call) cutPending() {
	m := c.tx.Peek()
	if m == nil {
		return
	}
	for i := range m.Pending {
		if !m.Pending[i].Cut {
			m = c.tx.Memory()
			m.Pending[i].Cut = true
		}
	}
}
