package transcript

import (
	"encoding/json"

	lb "github.com/loopbreaker/loopbreaker"
)

// loopbreaker's journal (<state dir>/scopes/<scope>/journal*.jsonl) holds
// one entry a line; its "event" entries are the events as they were
// applied, which replay applies again (with another configuration). The
// transitions and snapshots it also holds are the old configuration's
// verdicts and are left out.

func parseJournal(data []byte) (*Session, error) {
	s := &Session{}
	JSONLines(data, func(line []byte) {
		var e lb.JournalEntry
		if json.Unmarshal(line, &e) != nil {
			return
		}
		if s.ID == "" {
			s.ID = e.Scope
		}
		if e.Type != lb.EntryEvent || e.Event == nil {
			return
		}
		s.Steps = append(s.Steps, Step{Event: e.Event, Time: e.Event.Time})
	})
	return s, nil
}
