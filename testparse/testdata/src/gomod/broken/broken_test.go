package broken

import "testing"

func TestDouble(t *testing.T) {
	var s string = Double(2)
	if s != "4" {
		t.Fatal(undefinedThing)
	}
}
