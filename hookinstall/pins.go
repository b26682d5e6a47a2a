package hookinstall

import (
	"encoding/json"
	"fmt"
)

// Pin is one top-level setting of a managed settings file that keeps the
// agent's user from switching loopbreaker's hooks off: Claude Code's
// "allowManagedHooksOnly": true, Qwen Code's "disableAllHooks": false.
// The agent's package names them; the edit is the same for every CLI.
type Pin struct {
	Key string
	// Value is the JSON the key must hold.
	Value json.RawMessage
}

// String is the pin as the account of an install shows it.
func (p Pin) String() string { return p.Key + " = " + string(p.Value) }

// pin sets the pins in a document that has just had loopbreaker's hooks
// merged in (install), or takes them out with the hooks (uninstall, only
// when hooks were removed, and only a pin that still holds its value: a
// file that held the pins before the install gets them back from its
// backup). changes are the hooks' changes, extended with the pins'.
func pin(pins []Pin, data []byte, changes []Change, install bool) ([]byte, []Change, error) {
	if !install && len(changes) == 0 {
		return data, changes, nil
	}
	for _, p := range pins {
		doc, err := parseObject(data)
		if err != nil {
			if !install {
				return data, changes, nil
			}
			return nil, nil, fmt.Errorf("not a JSON object (%v): fix the file, or add the settings by hand", err)
		}
		i := doc.find(p.Key)
		switch {
		case install && i < 0:
			ind, multiline := doc.indent()
			if !multiline && len(doc.members) == 0 {
				ind, multiline = "  ", true
			}
			data = doc.addMember(p.Key, p.Value, ind, multiline)
			changes = append(changes, Change{Event: p.String(), Action: "added"})
		case install && !sameJSON(doc.members[i].raw, p.Value):
			data = doc.replaceValue(i, p.Value)
			changes = append(changes, Change{Event: p.String(), Action: "updated"})
		case !install && i >= 0 && sameJSON(doc.members[i].raw, p.Value):
			data = doc.removeMember(i)
			changes = append(changes, Change{Event: p.String(), Action: "removed"})
		}
	}
	return data, changes, nil
}

// PinsHeld reports which pins a settings document does not hold with
// their value: the reasons the managed hooks may be switched off.
func PinsHeld(pins []Pin, data []byte) (missing []Pin) {
	doc, err := parseObject(data)
	for _, p := range pins {
		if err != nil {
			missing = append(missing, p)
			continue
		}
		if i := doc.find(p.Key); i < 0 || !sameJSON(doc.members[i].raw, p.Value) {
			missing = append(missing, p)
		}
	}
	return missing
}
