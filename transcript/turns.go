package transcript

import "time"

// Turn follows the agent's turn while a transcript is read: it begins
// with the agent's first message after a prompt and ends at the next
// prompt or at the end of the file, its message the agent's last text.
type Turn struct {
	active   bool
	lastText string
}

// Begin notes a message of the agent's.
func (tu *Turn) Begin() { tu.active = true }

// Say notes the agent's latest text.
func (tu *Turn) Say(text string) { tu.lastText = text }

// End closes the turn, if one began, with a TurnEnd step at t.
func (tu *Turn) End(s *Session, t time.Time) {
	if tu.active {
		s.Steps = append(s.Steps, Step{TurnEnd: true, Message: tu.lastText, Time: t})
	}
	tu.active, tu.lastText = false, ""
}

// EndOfFile closes the turn the file ends in: the file has no time of
// its own for it.
func (tu *Turn) EndOfFile(s *Session) { tu.End(s, time.Time{}) }
