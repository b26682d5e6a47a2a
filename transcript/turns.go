package transcript

import "time"

// turn follows the agent's turn while a transcript is read: it begins
// with the agent's first message after a prompt and ends at the next
// prompt or at the end of the file, its message the agent's last text.
type turn struct {
	active   bool
	lastText string
}

// begin notes a message of the agent's.
func (tu *turn) begin() { tu.active = true }

// say notes the agent's latest text.
func (tu *turn) say(text string) { tu.lastText = text }

// end closes the turn, if one began, with a TurnEnd step at t.
func (tu *turn) end(s *Session, t time.Time) {
	if tu.active {
		s.Steps = append(s.Steps, Step{TurnEnd: true, Message: tu.lastText, Time: t})
	}
	tu.active, tu.lastText = false, ""
}

// endOfFile closes the turn the file ends in: the file has no time of
// its own for it.
func (tu *turn) endOfFile(s *Session) { tu.end(s, time.Time{}) }
