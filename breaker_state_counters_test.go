package loopbreaker

import (
	"errors"
	"reflect"
	"testing"
)

// Zero and CheckInvariants read the counts through one list of the
// fields (Counters.or): a count added to the struct and not to the list
// would read as zero and never as negative.
func TestCountersListEveryField(t *testing.T) {
	if !(&Counters{}).Zero() {
		t.Fatal("the zero Counters is not Zero")
	}
	n := reflect.TypeFor[Counters]().NumField()
	for i := range n {
		name := reflect.TypeFor[Counters]().Field(i).Name
		var c Counters
		reflect.ValueOf(&c).Elem().Field(i).SetInt(1)
		if c.Zero() {
			t.Errorf("Counters.%s = 1 reads as Zero", name)
		}
		reflect.ValueOf(&c).Elem().Field(i).SetInt(-1)
		s := NewBreakerState("s")
		s.Counters = c
		if err := s.CheckInvariants(); !errors.Is(err, ErrInvariant) {
			t.Errorf("Counters.%s = -1: CheckInvariants = %v, want an invariant error", name, err)
		}
	}
}
