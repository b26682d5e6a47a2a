package all

import "testing"

// Each entry's name is the name its agent gives itself, and names are
// unique: Lookup finds every CLI by the name it answers to.
func TestLookupFindsEveryCLIByItsOwnName(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Agents() {
		name := string(a.Name())
		if seen[name] {
			t.Errorf("two CLIs are named %q", name)
		}
		seen[name] = true
		got, err := Lookup(name)
		if err != nil || got.Name() != a.Name() {
			t.Errorf("Lookup(%q) = %v, %v", name, got, err)
		}
	}
	if names := Names(); len(names) != len(seen) {
		t.Errorf("Names() = %v, %d CLIs", names, len(seen))
	}
	if _, err := Lookup("claude-code"); err == nil {
		t.Error("Lookup of an unknown name found a CLI")
	}
}
