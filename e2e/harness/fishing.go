package harness

import lb "github.com/loopbreaker/loopbreaker"

// Fishing is a model searching the work tree for one name after another
// (`grep -rn NAME .`), none of them there. No search may find anything of
// loopbreaker's (its state, with the very command being run, is not the
// agent's to read: see ShownInternals), and the searches that bring
// nothing new are warned, then halted: by call FishingHaltBy, by one of
// FishingDetectors.

// FishingHaltBy is the search by which the breaker must have opened.
const FishingHaltBy = 10

// FishingDetectors may open the breaker on fishing.
var FishingDetectors = []string{lb.DetectorNoNewInfo, lb.DetectorNearDuplicate}

// FishingSearches are the fishing model's commands: more than
// loopbreaker should allow.
func FishingSearches() []string {
	var cmds []string
	for _, sym := range MissingSymbols(FishingHaltBy + 2) {
		cmds = append(cmds, "grep -rn "+sym+" .")
	}
	return cmds
}

// MissingSymbols are n names no test repository declares, each different:
// what a model fishing for a function it half remembers searches for.
func MissingSymbols(n int) []string {
	stems := []string{"ParseWidget", "WidgetRegistry", "LoadFrobConfig", "frobnicateAll", "NewQuuxClient",
		"quux_handler", "ResolveZorp", "zorpCache", "BlorfStore", "blorf_migrate", "GrumbleQueue", "flarpIndex"}
	out := make([]string, n)
	for i := range out {
		out[i] = stems[i%len(stems)]
		if i >= len(stems) {
			out[i] += string(rune('A' + i/len(stems)))
		}
	}
	return out
}
