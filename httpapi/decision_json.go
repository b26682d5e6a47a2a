package httpapi

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/loopbreaker/loopbreaker/breakerserver"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"

	lb "github.com/loopbreaker/loopbreaker"
)

// The answers to checks and outcomes are encoded by hand: they are most
// of the server's traffic, and encoding/json's reflection and its
// validation of every time value's output cost more than the decision
// itself (23 % of the CPU with every outcome a failure, whose answers
// list the breakers' recent failures). The output is byte for byte what
// encoding/json writes (TestDecisionJSONMatchesEncodingJSON checks every
// field, so a field added to these types fails it until added here).

func encodeDecision(w http.ResponseWriter, d breakerserver.Decision, bufs *answerBuffers) {
	buf := bufs.get()
	*buf = append(appendDecision((*buf)[:0], &d), '\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(*buf)
	bufs.put(buf)
}

// answerBuffers are the buffers answers are encoded into, and request
// bodies read into, reused: a new
// 8 KB buffer for each answer (one with every breaker's recent failures
// is 4 to 6 KB) was a fifth of the server's allocations, and clearing it
// a few percent of its CPU.
type answerBuffers struct{ pool sync.Pool }

// maxKeptAnswer bounds the buffers kept for reuse: a rare huge answer's
// goes to the garbage collector.
const maxKeptAnswer = 64 << 10

// get returns an empty buffer.
func (a *answerBuffers) get() *[]byte {
	if b, ok := a.pool.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, 8192)
	return &b
}

// put returns buf once written: the ResponseWriter copies what it is
// given or has sent it when Write returns.
func (a *answerBuffers) put(buf *[]byte) {
	if cap(*buf) <= maxKeptAnswer {
		a.pool.Put(buf)
	}
}

func appendDecision(b []byte, d *breakerserver.Decision) []byte {
	b = append(b, `{"decision_id":`...)
	b = jsonenc.String(b, d.DecisionID)
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, d.Allowed)
	b = append(b, `,"warning":`...)
	b = strconv.AppendBool(b, d.Warning)
	b = append(b, `,"state":`...)
	b = jsonenc.String(b, string(d.State))
	b = append(b, `,"scope":`...)
	b = jsonenc.String(b, d.Scope)
	b = append(b, `,"reason":`...)
	b = jsonenc.String(b, d.Reason)
	b = append(b, `,"probe":`...)
	b = strconv.AppendBool(b, d.Probe)
	if d.RetryAt != nil {
		b = append(b, `,"retry_at":`...)
		b = jsonenc.Time(b, *d.RetryAt)
	}
	b = append(b, `,"breakers":`...)
	if d.Breakers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Breakers {
			if i > 0 {
				b = append(b, ',')
			}
			bd := &d.Breakers[i]
			b = appendBreakerFields(b, &bd.Breaker)
			b = append(b, `,"allowed":`...)
			b = strconv.AppendBool(b, bd.Allowed)
			if bd.HoldsProbe {
				b = append(b, `,"holds_probe":true`...)
			}
			if bd.Transition != nil {
				b = append(b, `,"transition":`...)
				b = jsonenc.Transition(b, bd.Transition)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendBreakerFields writes a Breaker's object without its closing
// brace (BreakerDecision adds its own fields).
func appendBreakerFields(b []byte, br *breakerserver.Breaker) []byte {
	b = append(b, `{"scope":`...)
	b = jsonenc.String(b, br.Scope)
	b = append(b, `,"state":`...)
	b = jsonenc.String(b, string(br.State))
	if br.Mode != "" {
		b = append(b, `,"mode":`...)
		b = jsonenc.String(b, string(br.Mode))
	}
	if br.Reason != "" {
		b = append(b, `,"reason":`...)
		b = jsonenc.String(b, br.Reason)
	}
	if br.Detector != "" {
		b = append(b, `,"detector":`...)
		b = jsonenc.String(b, br.Detector)
	}
	b = append(b, `,"configured":`...)
	b = strconv.AppendBool(b, br.Configured)
	b = append(b, `,"kind":`...)
	b = jsonenc.String(b, br.Kind)
	if c := br.Counter; c != nil {
		b = append(b, `,"counter":{"name":`...)
		b = jsonenc.String(b, c.Name)
		b = append(b, `,"value":`...)
		b = strconv.AppendInt(b, int64(c.Value), 10)
		b = append(b, `,"threshold":`...)
		b = strconv.AppendInt(b, int64(c.Threshold), 10)
		b = append(b, `,"warn_at":`...)
		b = strconv.AppendInt(b, int64(c.WarnAt), 10)
		if c.Detail != "" {
			b = append(b, `,"detail":`...)
			b = jsonenc.String(b, c.Detail)
		}
		if c.Unit != "" {
			b = append(b, `,"unit":`...)
			b = jsonenc.String(b, c.Unit)
		}
		b = append(b, '}')
	}
	b = append(b, `,"notify":`...)
	b = strconv.AppendBool(b, br.Notify)
	b = append(b, `,"failures":`...)
	b = strconv.AppendInt(b, int64(br.Failures), 10)
	b = append(b, `,"failure_threshold":`...)
	b = strconv.AppendInt(b, int64(br.FailureThreshold), 10)
	b = append(b, `,"window_seconds":`...)
	b = jsonenc.Float(b, br.WindowSeconds)
	b = append(b, `,"cooldown_seconds":`...)
	b = jsonenc.Float(b, br.CooldownSeconds)
	b = append(b, `,"recent_failures":`...)
	if br.RecentFailures == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range br.RecentFailures {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFailure(b, f)
		}
		b = append(b, ']')
	}
	if br.OpenedAt != nil {
		b = append(b, `,"opened_at":`...)
		b = jsonenc.Time(b, *br.OpenedAt)
	}
	if br.RetryAt != nil {
		b = append(b, `,"retry_at":`...)
		b = jsonenc.Time(b, *br.RetryAt)
	}
	if p := br.Probe; p != nil {
		b = append(b, `,"probe":{"caller":`...)
		b = jsonenc.String(b, p.Caller)
		b = append(b, `,"taken_at":`...)
		b = jsonenc.Time(b, p.TakenAt)
		b = append(b, `,"expires_at":`...)
		b = jsonenc.Time(b, p.ExpiresAt)
		b = append(b, '}')
	}
	b = append(b, `,"total_opens":`...)
	b = strconv.AppendInt(b, int64(br.TotalOpens), 10)
	if !br.UpdatedAt.IsZero() {
		b = append(b, `,"updated_at":`...)
		b = jsonenc.Time(b, br.UpdatedAt)
	}
	if !br.LastUsed.IsZero() {
		b = append(b, `,"last_used":`...)
		b = jsonenc.Time(b, br.LastUsed)
	}
	if len(br.Transitions) > 0 {
		b = append(b, `,"transitions":[`...)
		for i := range br.Transitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.Transition(b, &br.Transitions[i])
		}
		b = append(b, ']')
	}
	if br.Error != "" {
		b = append(b, `,"error":`...)
		b = jsonenc.String(b, br.Error)
	}
	if br.Spend != nil {
		b = append(b, `,"spend":`...)
		b = appendSpend(b, br.Spend)
	}
	return b
}

// appendSpend writes a spend as encoding/json does.
func appendSpend(b []byte, sp *lb.Spend) []byte {
	b = append(b, `{"tokens":`...)
	b = strconv.AppendInt(b, sp.Tokens, 10)
	b = append(b, `,"cost_usd":`...)
	b = jsonenc.Float(b, sp.CostUSD)
	if sp.UnpricedTokens != 0 {
		b = append(b, `,"unpriced_tokens":`...)
		b = strconv.AppendInt(b, sp.UnpricedTokens, 10)
	}
	b = append(b, `,"calls":`...)
	b = strconv.AppendInt(b, int64(sp.Calls), 10)
	if sp.UnmeasuredCalls != 0 {
		b = append(b, `,"unmeasured_calls":`...)
		b = strconv.AppendInt(b, int64(sp.UnmeasuredCalls), 10)
	}
	b = append(b, `,"since_progress":`...)
	b = strconv.AppendInt(b, sp.SinceProgress, 10)
	if sp.Slice != "" {
		b = append(b, `,"slice":`...)
		b = jsonenc.String(b, sp.Slice)
	}
	b = append(b, `,"slice_tokens":`...)
	b = strconv.AppendInt(b, sp.SliceTokens, 10)
	b = append(b, `,"slice_cost_usd":`...)
	b = jsonenc.Float(b, sp.SliceCostUSD)
	if len(sp.HourCalls) > 0 {
		b = append(b, `,"hour_calls":[`...)
		for i, t := range sp.HourCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.Time(b, t)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendFailure(b []byte, f lb.Failure) []byte {
	b = append(b, `{"time":`...)
	b = jsonenc.Time(b, f.Time)
	if f.DecisionID != "" {
		b = append(b, `,"decision_id":`...)
		b = jsonenc.String(b, f.DecisionID)
	}
	return append(b, '}')
}
