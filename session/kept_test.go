package session

import (
	"bytes"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
)

// Kept.ConfigJSON writes what jsonenc.Marshal writes, for the same
// configuration again and for one changed anywhere, a list changed in
// place included.
func TestKeptConfigJSON(t *testing.T) {
	var k Kept
	cfg := lb.Defaults()
	cfg.Scope.Allow = []string{"src/**"}
	check := func(step string, cfg lb.Config) {
		t.Helper()
		got, err := k.ConfigJSON(cfg)
		want, werr := jsonenc.Marshal(cfg)
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes (%v), not the %d bytes jsonenc.Marshal writes (%v)", step, len(got), err, len(want), werr)
		}
	}
	check("first", cfg)
	check("again", cfg)
	cfg.NoProgress.Threshold++
	check("a number", cfg)
	cfg.Scope.Allow[0] = "docs/**" // the list it was given, changed in place
	check("a list changed in place", cfg)
	got, _ := k.ConfigJSON(cfg)
	got[0] = 'x' // what it hands out is the caller's
	check("after the caller wrote on its copy", cfg)
}
