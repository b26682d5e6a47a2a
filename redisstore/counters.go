package redisstore

import "sync/atomic"

// Counters are a Store's totals since it was opened, for the server's
// metrics and the fleet benchmark: how many updates callers asked for, in
// how many compare-and-set scripts (a batch carries several), how many of
// those lost to another writer, how many gave way to another writer's turn
// (turn.go), and the round trips of all its calls.
type Counters struct {
	Updates    int64
	Scripts    int64
	Conflicts  int64
	TurnWaits  int64
	RoundTrips int64
}

type counters struct {
	updates, scripts, conflicts, turnWaits atomic.Int64
	roundTrips                             RoundTrips
}

// Counters returns the store's totals.
func (s *Store) Counters() Counters {
	return Counters{
		Updates:    s.count.updates.Load(),
		Scripts:    s.count.scripts.Load(),
		Conflicts:  s.count.conflicts.Load(),
		TurnWaits:  s.count.turnWaits.Load(),
		RoundTrips: s.count.roundTrips.Load(),
	}
}
