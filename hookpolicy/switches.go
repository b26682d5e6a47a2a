package hookpolicy

import (
	"path"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/fsname"
)

// switchesName is the file, relative to the state directory, in which the
// calling CLI's hook switches as the last call saw them are kept.
func (c *call) switchesName() string {
	return path.Join(DirName, "switches", fsname.Escape(string(c.p.Tool))+".txt")
}

// recordSwitchChanges says what changed in the calling CLI's hook switches
// since its previous hook call (a disableAllHooks, a narrowed matcher, a
// plugin added): on stderr, and as a tamper record that the report shows.
// The fingerprint, which covers them, keeps the breaker OPEN until a
// person accepts the change; this says which change it was.
func (c *call) recordSwitchChanges() error {
	if c.Guard == nil || !c.Config.Enabled {
		return nil
	}
	name := c.switchesName()
	now := strings.Join(c.Guard.Switches, "\n")
	root, err := c.noteRoot(name)
	if err != nil {
		c.logf("loopbreaker: cannot keep the hook switches for the next call (%v)\n", err)
		return nil
	}
	defer root.Close()
	before, err := root.ReadFile(name)
	if err == nil && string(before) == now {
		return nil
	}
	if werr := root.WriteAtomic(name, []byte(now), 0o644); werr != nil {
		c.logf("loopbreaker: cannot keep the hook switches for the next call (%v)\n", werr)
	}
	if err != nil || c.tx.State().FingerprintOf(c.Guard.Fingerprint) == "" {
		// The first call, or the first since a person's reset, which
		// accepts the settings as they are.
		return nil
	}
	what := diffLines(strings.Split(string(before), "\n"), c.Guard.Switches)
	if len(what) == 0 {
		return nil
	}
	for _, w := range what {
		c.logf("loopbreaker: the hook settings of %s changed since its last hook call: %s\n", c.p.Tool, w)
	}
	_, err = c.apply(lb.Event{Kind: lb.EventTamper, Tamper: &lb.Tamper{Tool: "settings", What: what}})
	return err
}

// diffLines says which lines were removed from before and added in now.
func diffLines(before, now []string) []string {
	var out []string
	for _, l := range before {
		if l != "" && !slices.Contains(now, l) {
			out = append(out, "no longer: "+l)
		}
	}
	for _, l := range now {
		if l != "" && !slices.Contains(before, l) {
			out = append(out, "now: "+l)
		}
	}
	return out
}
