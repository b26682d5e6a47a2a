package loopbreaker

import (
	"testing"
	"time"
)

// An hourly budget of 3 with calls at :00, :10, :20 and :30 has room again
// when the call that must leave (the second newest beyond the budget, :10)
// is an hour old; below the budget it has room now.
func TestHourRoomAt(t *testing.T) {
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	s := &Spend{}
	for i := range 4 {
		s.HourCalls = append(s.HourCalls, start.Add(time.Duration(i)*10*time.Minute))
	}
	now := start.Add(35 * time.Minute)
	if got, want := s.HourRoomAt(now, 3), start.Add(10*time.Minute+time.Hour); !got.Equal(want) {
		t.Errorf("HourRoomAt(3) = %s, want %s", got, want)
	}
	if got := s.CallsInHour(s.HourRoomAt(now, 3)); got != 2 {
		t.Errorf("calls in the hour at the room time = %d, want 2 (one more call makes 3)", got)
	}
	for _, limit := range []int{0, 5} {
		if got := s.HourRoomAt(now, limit); !got.Equal(now) {
			t.Errorf("HourRoomAt(%d) = %s, want now", limit, got)
		}
	}
	var none *Spend
	if got := none.HourRoomAt(now, 3); !got.Equal(now) {
		t.Errorf("no spend: HourRoomAt = %s, want now", got)
	}
}
