package hook

import (
	"testing"
	"time"
)

func TestRecordSeen(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	if got, err := ReadSeen(dir); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
	for i, ev := range []string{"SessionStart", "PreToolUse", "Stop"} {
		if err := RecordSeen(dir, "claude", "b526/62f7", ev, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	RecordSeen(dir, "codex", "01a2", "SessionStart", t0.Add(time.Hour))
	got, err := ReadSeen(dir)
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if got[0].Tool != "codex" || got[1].SessionID != "b526/62f7" || got[1].Calls != 3 ||
		!got[1].First.Equal(t0) || !got[1].Last.Equal(t0.Add(2*time.Minute)) || got[1].LastEvent != "Stop" {
		t.Errorf("%+v", got)
	}
}
