package timeout

import (
	"os"
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

// TestHangs only hangs when asked, so that ./... stays fast.
func TestHangs(t *testing.T) {
	if os.Getenv("DEMO_TIMEOUT") == "" {
		t.Skip("set DEMO_TIMEOUT=1 to hang")
	}
	time.Sleep(time.Minute)
}
