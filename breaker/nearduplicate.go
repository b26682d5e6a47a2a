package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// nearDuplicate counts the tool calls in a row that are one call with one
// changing argument (a line number, a path, a flag) and the same result
// (tool_calls.near_duplicate). The arguments are compared as tokens of
// their canonical form: the words of a command, the values of a tool's
// fields; the result as the no-new-information detector sees it.
type nearDuplicate struct{}

func (nearDuplicate) Name() string { return lb.DetectorNearDuplicate }

func (nearDuplicate) Observes() Signals { return SignalToolCall }

// maxArgTokens bounds the tokens compared: a longer call (a script, a
// patch) is no near-duplicate candidate.
const maxArgTokens = 48

func (nearDuplicate) Observe(s *lb.BreakerState, ev Evidence) {
	m := newestMark(s)
	tc := ev.ToolCall
	var buf [maxArgTokens]uint32
	toks, ok := argTokens(tc.Tool, tc.Args, buf[:0])
	prev := s.LastArgs
	n := len(s.Tools)
	count := 0
	if ok && !m.Edit && n >= 2 && sameInfo(&s.Tools[n-2], m) && len(prev) == len(toks) {
		diff, pos := 0, -1
		for i := range toks {
			if toks[i] != prev[i] {
				diff++
				pos = i
			}
		}
		was := s.Counters.NearDuplicate
		switch {
		case diff == 1 && was > 0 && pos == s.NearArg:
			count = was + 1
		case diff == 1:
			count, s.NearArg = 2, pos
		case diff == 0 && was > 0:
			count = was + 1
		}
	}
	s.Counters.NearDuplicate = count
	if !ok {
		toks = toks[:0]
	}
	s.LastArgs = append(s.LastArgs[:0], toks...)
}

func (nearDuplicate) Count(s *lb.BreakerState, at Moment) Count {
	return threshold(at.Config, s.Counters.NearDuplicate, at.Config.ToolCalls.NearDuplicate)
}

func (nearDuplicate) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What:   fmt.Sprintf("the same tool call with one changing argument gave the same result %d times in a row (%s)", c.Value, c.limit()),
		Advice: adviceRepeat,
	}
}

// argTokens appends to toks the hashes of the tool's name and of the
// tokens of its canonical JSON arguments: words inside strings (split at
// white space, escaped or not), and JSON's own keys, numbers and literals.
// ok is false when there are more than maxArgTokens.
func argTokens(tool string, args []byte, toks []uint32) (_ []uint32, ok bool) {
	const offset, prime = 2166136261, 16777619
	h := uint32(offset)
	for i := 0; i < len(tool); i++ {
		h = (h ^ uint32(tool[i])) * prime
	}
	toks = append(toks, h)
	h, open := uint32(offset), false
	flush := func() bool {
		if !open {
			return true
		}
		if len(toks) == maxArgTokens {
			return false
		}
		toks = append(toks, h)
		h, open = offset, false
		return true
	}
	inString := false
	for i := 0; i < len(args); i++ {
		c := args[i]
		sep := false
		switch {
		case inString && c == '\\' && i+1 < len(args):
			i++
			switch args[i] {
			case 'n', 't', 'r':
				sep = true
			default:
				c = args[i]
			}
		case c == '"':
			inString = !inString
			sep = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			sep = true
		case !inString && (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':'):
			sep = true
		}
		if sep {
			if !flush() {
				return toks, false
			}
			continue
		}
		h = (h ^ uint32(c)) * prime
		open = true
	}
	return toks, flush()
}
