package harness

// MissingSymbols are n names no test repository declares, each different:
// what a model fishing for a function it half remembers searches for, one
// after the other, every search finding nothing.
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
