package missingdep

import "testing"

func TestX(t *testing.T) {}
