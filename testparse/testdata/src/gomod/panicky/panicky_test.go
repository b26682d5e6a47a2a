package panicky

import "testing"

func TestFirst(t *testing.T) {
	if Index([]int{1}, 0) != 1 {
		t.Fatal("bad")
	}
}

func TestOutOfRange(t *testing.T) {
	Index(nil, 3)
}

func TestNeverRuns(t *testing.T) {}
