package jsonenc

import (
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// The session memory of a breaker state, with the tool calls it keeps
// pending and their usage, and the state's spend.

func (e *stateEncoder) session(m *lb.SessionMemory) {
	start := e.open()
	list(e, `,"pending":`, m.Pending, (*stateEncoder).pendingCall)
	e.strsOmit(`,"counted":`, m.Counted)
	e.intOmit(`,"batch":`, int64(m.Batch))
	e.intOmit(`,"results":`, int64(m.Results))
	e.intOmit(`,"batch_results":`, int64(m.BatchResults))
	e.strOmit(`,"batch_message":`, m.BatchMessage)
	e.strOmit(`,"config_on_disk":`, m.ConfigOnDisk)
	e.strOmit(`,"nudged":`, m.Nudged)
	e.strsOmit(`,"halted":`, m.Halted)
	e.strOmit(`,"failing_test":`, m.FailingTest)
	e.strOmit(`,"notification":`, m.Notification)
	if a := m.Answer; a != nil {
		e.key(`,"answer":`)
		o := e.open()
		e.int(`,"len":`, int64(a.Len))
		e.str(`,"hash":`, a.Hash)
		e.close(o)
	}
	list(e, `,"transcripts":`, m.Transcripts, (*stateEncoder).transcriptMark)
	list(e, `,"seen":`, m.Seen, (*stateEncoder).seenSession)
	e.close(start)
}

func (e *stateEncoder) pendingCall(p *lb.PendingCall) {
	start := e.open()
	e.strOmit(`,"id":`, p.ID)
	e.key(`,"call":`)
	e.toolCall(&p.Call)
	e.time(`,"time":`, p.Time)
	e.int(`,"batch":`, int64(p.Batch))
	e.int(`,"results":`, int64(p.Results))
	e.trueOmit(`,"shell":`, p.Shell)
	e.trueOmit(`,"cut":`, p.Cut)
	e.strOmit(`,"message":`, p.Message)
	e.strOmit(`,"transcript":`, p.Transcript)
	e.close(start)
}

func (e *stateEncoder) toolCall(c *lb.ToolCall) {
	start := e.open()
	e.str(`,"tool":`, c.Tool)
	e.rawOmit(`,"args":`, c.Args)
	e.str(`,"args_hash":`, c.ArgsHash)
	e.strOmit(`,"result_hash":`, c.ResultHash)
	e.strOmit(`,"info_hash":`, c.InfoHash)
	if t := c.Error; t != nil {
		e.key(`,"error":`)
		o := e.open()
		e.str(`,"raw":`, t.Raw)
		e.str(`,"signature":`, t.Signature)
		e.close(o)
	}
	e.strsOmit(`,"files":`, c.Files)
	e.trueOmit(`,"edit":`, c.Edit)
	e.trueOmit(`,"setup":`, c.Setup)
	list(e, `,"tests":`, c.Tests, (*stateEncoder).testResult)
	e.intPtrOmit(`,"tests_passing":`, c.TestsPassing)
	e.intPtrOmit(`,"tests_failing":`, c.TestsFailing)
	e.strOmit(`,"slice":`, c.Slice)
	e.intOmit(`,"batch":`, int64(c.Batch))
	e.trueOmit(`,"batch_open":`, c.BatchOpen)
	if c.Usage != nil {
		e.key(`,"usage":`)
		e.usage(c.Usage)
	}
	e.close(start)
}

func (e *stateEncoder) testResult(r *lb.TestResult) {
	start := e.open()
	e.str(`,"name":`, r.Name)
	e.boolean(`,"passed":`, r.Passed)
	e.trueOmit(`,"infra":`, r.Infra)
	e.strOmit(`,"message":`, r.Message)
	e.trueOmit(`,"observed":`, r.Observed)
	e.strOmit(`,"unit":`, r.Unit)
	e.close(start)
}

func (e *stateEncoder) usage(u *lb.Usage) {
	start := e.open()
	e.strOmit(`,"model":`, u.Model)
	e.intOmit(`,"calls":`, int64(u.Calls))
	e.intOmit(`,"input_tokens":`, u.InputTokens)
	e.intOmit(`,"output_tokens":`, u.OutputTokens)
	e.intOmit(`,"cache_read_tokens":`, u.CacheReadTokens)
	e.intOmit(`,"cache_write_tokens":`, u.CacheWriteTokens)
	if u.CostUSD != nil {
		e.float(`,"cost_usd":`, *u.CostUSD)
	}
	e.strsOmit(`,"refused":`, u.Refused)
	e.close(start)
}

func (e *stateEncoder) transcriptMark(t *lb.TranscriptMark) {
	start := e.open()
	e.str(`,"session":`, t.Session)
	e.int(`,"offset":`, t.Offset)
	e.intOmit(`,"usage_offset":`, t.UsageOffset)
	e.strOmit(`,"usage_last":`, t.UsageLast)
	e.trueOmit(`,"usage_read":`, t.UsageRead)
	e.strOmit(`,"usage_model":`, t.UsageModel)
	e.close(start)
}

func (e *stateEncoder) seenSession(s *lb.SeenSession) {
	start := e.open()
	e.str(`,"tool":`, s.Tool)
	e.str(`,"session_id":`, s.SessionID)
	e.time(`,"first":`, s.First)
	e.time(`,"last":`, s.Last)
	e.str(`,"last_event":`, s.LastEvent)
	e.int(`,"calls":`, int64(s.Calls))
	e.close(start)
}

func (e *stateEncoder) spend(s *lb.Spend) {
	start := e.open()
	e.int(`,"tokens":`, s.Tokens)
	e.float(`,"cost_usd":`, s.CostUSD)
	e.intOmit(`,"unpriced_tokens":`, s.UnpricedTokens)
	e.int(`,"calls":`, int64(s.Calls))
	e.intOmit(`,"unmeasured_calls":`, int64(s.UnmeasuredCalls))
	e.int(`,"since_progress":`, s.SinceProgress)
	e.strOmit(`,"slice":`, s.Slice)
	e.int(`,"slice_tokens":`, s.SliceTokens)
	e.float(`,"slice_cost_usd":`, s.SliceCostUSD)
	list(e, `,"hour_calls":`, s.HourCalls, func(e *stateEncoder, t *time.Time) { e.timeValue(*t) })
	e.close(start)
}
