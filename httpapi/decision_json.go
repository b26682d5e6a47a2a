package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// The answers to checks and outcomes are encoded by hand: they are most
// of the server's traffic, and encoding/json's reflection and its
// validation of every time value's output cost more than the decision
// itself (23 % of the CPU with every outcome a failure, whose answers
// list the breakers' recent failures). The output is byte for byte what
// encoding/json writes (TestDecisionJSONMatchesEncodingJSON checks every
// field, so a field added to these types fails it until added here).

func encodeDecision(w http.ResponseWriter, d scoped.Decision) {
	// One allocation: an answer with every breaker's recent failures is
	// 4 to 6 KB.
	buf := appendDecision(make([]byte, 0, 8192), &d)
	buf = append(buf, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf)
}

func appendDecision(b []byte, d *scoped.Decision) []byte {
	b = append(b, `{"decision_id":`...)
	b = appendString(b, d.DecisionID)
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, d.Allowed)
	b = append(b, `,"warning":`...)
	b = strconv.AppendBool(b, d.Warning)
	b = append(b, `,"state":`...)
	b = appendString(b, string(d.State))
	b = append(b, `,"scope":`...)
	b = appendString(b, d.Scope)
	b = append(b, `,"reason":`...)
	b = appendString(b, d.Reason)
	b = append(b, `,"probe":`...)
	b = strconv.AppendBool(b, d.Probe)
	if d.RetryAt != nil {
		b = append(b, `,"retry_at":`...)
		b = appendTime(b, *d.RetryAt)
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
				b = appendTransition(b, bd.Transition)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendBreakerFields writes a Breaker's object without its closing
// brace (BreakerDecision adds its own fields).
func appendBreakerFields(b []byte, br *scoped.Breaker) []byte {
	b = append(b, `{"scope":`...)
	b = appendString(b, br.Scope)
	b = append(b, `,"state":`...)
	b = appendString(b, string(br.State))
	if br.Mode != "" {
		b = append(b, `,"mode":`...)
		b = appendString(b, string(br.Mode))
	}
	if br.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, br.Reason)
	}
	if br.Detector != "" {
		b = append(b, `,"detector":`...)
		b = appendString(b, br.Detector)
	}
	b = append(b, `,"configured":`...)
	b = strconv.AppendBool(b, br.Configured)
	b = append(b, `,"kind":`...)
	b = appendString(b, br.Kind)
	if c := br.Counter; c != nil {
		b = append(b, `,"counter":{"name":`...)
		b = appendString(b, c.Name)
		b = append(b, `,"value":`...)
		b = strconv.AppendInt(b, int64(c.Value), 10)
		b = append(b, `,"threshold":`...)
		b = strconv.AppendInt(b, int64(c.Threshold), 10)
		b = append(b, `,"warn_at":`...)
		b = strconv.AppendInt(b, int64(c.WarnAt), 10)
		if c.Detail != "" {
			b = append(b, `,"detail":`...)
			b = appendString(b, c.Detail)
		}
		if c.Unit != "" {
			b = append(b, `,"unit":`...)
			b = appendString(b, c.Unit)
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
	b = appendFloat(b, br.WindowSeconds)
	b = append(b, `,"cooldown_seconds":`...)
	b = appendFloat(b, br.CooldownSeconds)
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
		b = appendTime(b, *br.OpenedAt)
	}
	if br.RetryAt != nil {
		b = append(b, `,"retry_at":`...)
		b = appendTime(b, *br.RetryAt)
	}
	if p := br.Probe; p != nil {
		b = append(b, `,"probe":{"caller":`...)
		b = appendString(b, p.Caller)
		b = append(b, `,"taken_at":`...)
		b = appendTime(b, p.TakenAt)
		b = append(b, `,"expires_at":`...)
		b = appendTime(b, p.ExpiresAt)
		b = append(b, '}')
	}
	b = append(b, `,"total_opens":`...)
	b = strconv.AppendInt(b, int64(br.TotalOpens), 10)
	if !br.UpdatedAt.IsZero() {
		b = append(b, `,"updated_at":`...)
		b = appendTime(b, br.UpdatedAt)
	}
	if !br.LastUsed.IsZero() {
		b = append(b, `,"last_used":`...)
		b = appendTime(b, br.LastUsed)
	}
	if len(br.Transitions) > 0 {
		b = append(b, `,"transitions":[`...)
		for i := range br.Transitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTransition(b, &br.Transitions[i])
		}
		b = append(b, ']')
	}
	if br.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, br.Error)
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
	b = appendFloat(b, sp.CostUSD)
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
		b = appendString(b, sp.Slice)
	}
	b = append(b, `,"slice_tokens":`...)
	b = strconv.AppendInt(b, sp.SliceTokens, 10)
	b = append(b, `,"slice_cost_usd":`...)
	b = appendFloat(b, sp.SliceCostUSD)
	if len(sp.HourCalls) > 0 {
		b = append(b, `,"hour_calls":[`...)
		for i, t := range sp.HourCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTime(b, t)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendFailure(b []byte, f lb.Failure) []byte {
	b = append(b, `{"time":`...)
	b = appendTime(b, f.Time)
	if f.DecisionID != "" {
		b = append(b, `,"decision_id":`...)
		b = appendString(b, f.DecisionID)
	}
	return append(b, '}')
}

func appendTransition(b []byte, t *lb.Transition) []byte {
	b = append(b, `{"time":`...)
	b = appendTime(b, t.Time)
	b = append(b, `,"from":`...)
	b = appendString(b, string(t.From))
	b = append(b, `,"to":`...)
	b = appendString(b, string(t.To))
	if t.Mode != "" {
		b = append(b, `,"mode":`...)
		b = appendString(b, string(t.Mode))
	}
	b = append(b, `,"reason":`...)
	b = appendString(b, t.Reason)
	if t.Detector != "" {
		b = append(b, `,"detector":`...)
		b = appendString(b, t.Detector)
	}
	b = append(b, `,"iteration":`...)
	b = strconv.AppendInt(b, int64(t.Iteration), 10)
	return append(b, '}')
}

// appendTime writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, quoted).
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendFloat writes f as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...) // encoding/json fails; never a view's value
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json's encoder
// does (HTML characters escaped, invalid UTF-8 replaced).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
