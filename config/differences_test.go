package config

import (
	"slices"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker"
)

func TestDifferencesNamesEachChangedKey(t *testing.T) {
	a := loopbreaker.Defaults()
	if d := Differences(a, a); len(d) != 0 {
		t.Fatalf("the same configuration: %q, want no difference", d)
	}
	b := a
	b.Enabled = false
	b.Cooldown = 90 * time.Second
	got := Differences(a, b)
	want := []string{"enabled: true → false", "cooldown: " + formatValue(a.Cooldown) + " → 1m30s"}
	if !slices.Equal(got, want) {
		t.Fatalf("Differences = %q, want %q", got, want)
	}
}
