package jsonenc

import (
	"encoding/json"
	"strconv"

	lb "github.com/loopbreaker/loopbreaker"
)

// State appends st as encoding/json's Marshal(st) would. The file store
// writes the whole state (some kilobytes) on every hook call, and
// encoding/json's reflection over it was a fifth of the resident
// breaker's time. A state holding a value encoding/json refuses (a
// number that is not finite, a time outside its years, arguments that are
// not JSON) is handed to encoding/json whole, whose bytes or error State
// returns. TestStateMatchesEncodingJSON fills every field the state has,
// or gains, and fails when one is not written here.
func State(b []byte, st *lb.BreakerState) ([]byte, error) {
	if st == nil {
		return append(b, "null"...), nil
	}
	e := stateEncoder{b: b}
	e.state(st)
	if !e.bad {
		return e.b, nil
	}
	data, err := json.Marshal(st)
	if err != nil {
		return b, err
	}
	return append(e.b[:len(b)], data...), nil
}

func (e *stateEncoder) state(st *lb.BreakerState) {
	start := e.open()
	e.str(`,"scope":`, st.Scope)
	e.str(`,"state":`, string(st.State))
	e.strOmit(`,"mode":`, string(st.Mode))
	e.strOmit(`,"reason":`, st.Reason)
	e.strOmit(`,"detector":`, st.Detector)
	if st.OpenedAt != nil {
		e.time(`,"opened_at":`, *st.OpenedAt)
	}
	if p := st.Probe; p != nil {
		e.key(`,"probe":`)
		o := e.open()
		e.str(`,"caller":`, p.Caller)
		e.time(`,"taken_at":`, p.TakenAt)
		e.time(`,"expires_at":`, p.ExpiresAt)
		e.close(o)
	}
	e.key(`,"seq":`)
	e.b = strconv.AppendUint(e.b, st.Seq, 10)
	e.time(`,"updated_at":`, st.UpdatedAt)
	e.int(`,"iterations":`, int64(st.Iterations))
	e.timeOmitZero(`,"last_progress_at":`, st.LastProgressAt)
	e.reasonOmit(`,"last_progress_reason":`, st.LastProgressReason)
	e.intOmit(`,"unmeasured":`, int64(st.Unmeasured))
	e.int(`,"total_opens":`, int64(st.TotalOpens))
	e.int(`,"resets":`, int64(st.Resets))
	e.key(`,"counters":`)
	e.counters(&st.Counters)
	e.intPtrOmit(`,"last_tests_passing":`, st.LastTestsPassing)
	e.intPtrOmit(`,"last_tests_failing":`, st.LastTestsFailing)
	e.floatMapOmit(`,"last_metrics":`, st.LastMetrics)
	ints(e, `,"output_sizes":`, st.OutputSizes)
	e.strOmit(`,"last_error_sig":`, st.LastErrorSig)
	list(e, `,"error_counts":`, st.ErrorCounts, (*stateEncoder).errorCount)
	e.strOmit(`,"last_failed_phase":`, string(st.LastFailedPhase))
	e.strOmit(`,"slice":`, st.Slice)
	list(e, `,"tests":`, st.Tests, (*stateEncoder).testAttempts)
	list(e, `,"slice_failures":`, st.SliceFailures, (*stateEncoder).sliceCount)
	list(e, `,"violations":`, st.Violations, (*stateEncoder).violation)
	list(e, `,"tampers":`, st.Tampers, (*stateEncoder).tamper)
	e.strOmit(`,"fingerprint":`, st.Fingerprint)
	e.strOmit(`,"config_in_force":`, st.ConfigInForce)
	list(e, `,"attempts":`, st.Attempts, (*stateEncoder).attempt)
	list(e, `,"guidance":`, st.Guidance, (*stateEncoder).guidance)
	list(e, `,"transitions":`, st.Transitions, (*stateEncoder).transition)
	list(e, `,"failures":`, st.Failures, (*stateEncoder).failure)
	list(e, `,"tools":`, st.Tools, (*stateEncoder).toolMark)
	e.intOmit(`,"tool_calls":`, int64(st.ToolCalls))
	e.intOmit(`,"edits":`, int64(st.Edits))
	e.intOmit(`,"run_edits":`, int64(st.RunEdits))
	e.intOmit(`,"turn_tool_calls":`, int64(st.TurnToolCalls))
	e.intOmit(`,"turn_edits":`, int64(st.TurnEdits))
	e.intOmit(`,"test_runs":`, int64(st.TestRuns))
	e.strsOmit(`,"edited_files":`, st.EditedFiles)
	if ee := st.EditError; ee != nil {
		e.key(`,"edit_error":`)
		o := e.open()
		e.str(`,"signature":`, ee.Signature)
		e.strOmit(`,"key":`, ee.Key)
		e.int(`,"edits":`, int64(ee.Edits))
		e.strOmit(`,"example":`, ee.Example)
		e.close(o)
	}
	ints(e, `,"last_args":`, st.LastArgs)
	e.intOmit(`,"near_arg":`, int64(st.NearArg))
	if st.Session != nil {
		e.key(`,"session":`)
		e.session(st.Session)
	}
	if st.Spend != nil {
		e.key(`,"spend":`)
		e.spend(st.Spend)
	}
	e.close(start)
}

func (e *stateEncoder) counters(c *lb.Counters) {
	start := e.open()
	e.int(`,"no_progress":`, int64(c.NoProgress))
	e.int(`,"same_error":`, int64(c.SameError))
	e.int(`,"output_decline":`, int64(c.OutputDecline))
	e.int(`,"phase_failure":`, int64(c.PhaseFailure))
	e.int(`,"permission_denials":`, int64(c.PermissionDenials))
	e.intOmit(`,"tool_repeat":`, int64(c.ToolRepeat))
	e.intOmit(`,"tool_cycle":`, int64(c.ToolCycle))
	e.intOmit(`,"tool_error":`, int64(c.ToolError))
	e.intOmit(`,"error_after_edit":`, int64(c.ErrorAfterEdit))
	e.intOmit(`,"no_new_info":`, int64(c.NoNewInfo))
	e.intOmit(`,"near_duplicate":`, int64(c.NearDuplicate))
	e.intOmit(`,"no_effect":`, int64(c.NoEffect))
	e.intOmit(`,"tamper":`, int64(c.Tamper))
	e.close(start)
}

func (e *stateEncoder) errorCount(c *lb.ErrorCount) {
	start := e.open()
	e.str(`,"signature":`, c.Signature)
	e.int(`,"count":`, int64(c.Count))
	e.str(`,"example":`, c.Example)
	e.time(`,"last_seen":`, c.LastSeen)
	e.close(start)
}

func (e *stateEncoder) testAttempts(t *lb.TestAttempts) {
	start := e.open()
	e.str(`,"name":`, t.Name)
	e.str(`,"slice":`, t.Slice)
	e.int(`,"failed":`, int64(t.Failed))
	e.boolean(`,"passed":`, t.Passed)
	e.strOmit(`,"last_error":`, t.LastError)
	e.strOmit(`,"unit":`, t.Unit)
	e.intOmit(`,"edits":`, int64(t.Edits))
	e.intOmit(`,"run":`, int64(t.Run))
	e.intOmit(`,"epoch":`, int64(t.Epoch))
	e.close(start)
}

func (e *stateEncoder) sliceCount(c *lb.SliceCount) {
	start := e.open()
	e.str(`,"slice":`, c.Slice)
	e.int(`,"failed":`, int64(c.Failed))
	e.close(start)
}

func (e *stateEncoder) violation(v *lb.ScopeViolation) {
	start := e.open()
	e.str(`,"file":`, v.File)
	e.strOmit(`,"test":`, v.Test)
	e.strOmit(`,"slice":`, v.Slice)
	e.strOmit(`,"justification":`, v.Justification)
	e.str(`,"verdict":`, v.Verdict)
	e.close(start)
}

func (e *stateEncoder) tamper(t *lb.Tamper) {
	start := e.open()
	e.strOmit(`,"tool":`, t.Tool)
	e.strs(`,"what":`, t.What)
	e.strOmit(`,"command":`, t.Command)
	e.trueOmit(`,"detected":`, t.Detected)
	e.timeOmitZero(`,"time":`, t.Time)
	e.intOmit(`,"epoch":`, int64(t.Epoch))
	e.close(start)
}

func (e *stateEncoder) attempt(a *lb.Attempt) {
	start := e.open()
	e.int(`,"iteration":`, int64(a.Iteration))
	e.time(`,"time":`, a.Time)
	e.strOmit(`,"phase":`, string(a.Phase))
	e.strOmit(`,"slice":`, a.Slice)
	e.strOmit(`,"summary":`, a.Summary)
	e.strsOmit(`,"files":`, a.Files)
	e.strsOmit(`,"failed_tests":`, a.Failed)
	e.strOmit(`,"error":`, a.Error)
	e.strOmit(`,"signature":`, a.Signature)
	e.boolean(`,"progress":`, a.Progress)
	e.reasonOmit(`,"progress_reason":`, a.ProgressReason)
	e.int(`,"epoch":`, int64(a.Epoch))
	e.intOmit(`,"tool_call":`, int64(a.ToolCall))
	e.intPtrOmit(`,"exit_code":`, a.ExitCode)
	e.close(start)
}

func (e *stateEncoder) guidance(g *lb.Guidance) {
	start := e.open()
	e.time(`,"time":`, g.Time)
	e.str(`,"text":`, g.Text)
	e.strOmit(`,"by":`, g.By)
	e.trueOmit(`,"delivered":`, g.Delivered)
	e.close(start)
}

// transition writes t with Transition, which the journal shares.
func (e *stateEncoder) transition(t *lb.Transition) {
	if !TimeOK(t.Time) {
		e.bad = true
		return
	}
	e.b = Transition(e.b, t)
}

func (e *stateEncoder) failure(f *lb.Failure) {
	start := e.open()
	e.time(`,"time":`, f.Time)
	e.strOmit(`,"decision_id":`, f.DecisionID)
	e.close(start)
}

func (e *stateEncoder) toolMark(m *lb.ToolMark) {
	start := e.open()
	e.str(`,"key":`, m.Key)
	e.strOmit(`,"result":`, m.Result)
	e.strOmit(`,"error_sig":`, m.ErrorSig)
	e.trueOmit(`,"edit":`, m.Edit)
	e.trueOmit(`,"rewrite":`, m.Rewrite)
	e.trueOmit(`,"setup":`, m.Setup)
	e.trueOmit(`,"turn_end":`, m.TurnEnd)
	e.trueOmit(`,"tested":`, m.Tested)
	e.intOmit(`,"passing":`, int64(m.Passing))
	e.intOmit(`,"failing":`, int64(m.Failing))
	e.intOmit(`,"run":`, int64(m.Run))
	e.strOmit(`,"info":`, m.Info)
	e.intOmit(`,"batch":`, int64(m.Batch))
	e.intOmit(`,"no_effect":`, int64(m.NoEffect))
	e.close(start)
}
