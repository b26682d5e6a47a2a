package parallel

import (
	"fmt"
	"testing"
	"time"
)

// Workers sleep different amounts so that their output interleaves.
func TestParallel(t *testing.T) {
	for i := 0; i < 4; i++ {
		t.Run(fmt.Sprintf("worker_%d", i), func(t *testing.T) {
			t.Parallel()
			for j := 0; j < 3; j++ {
				time.Sleep(time.Duration(5*(4-i)+j) * time.Millisecond)
				t.Logf("worker %d step %d", i, j)
			}
			if i%2 == 1 {
				t.Errorf("worker %d failed", i)
			}
		})
	}
}
