package loopbreaker

import (
	"strings"
	"testing"
)

// warn_margin is refused outside 0 … largest threshold − 1, with the range
// and the threshold that sets it; inside it is accepted.
func TestWarnMarginRange(t *testing.T) {
	for _, tc := range []struct {
		margin int
		want   string
	}{
		{-1, "warn_margin must be between 0 (no warnings) and 6 (one less than the largest threshold, test_attempts.per_slice: 7), got -1"},
		{1000, "warn_margin must be between 0 (no warnings) and 6 (one less than the largest threshold, test_attempts.per_slice: 7), got 1000"},
		{7, "got 7"},
		{0, ""},
		{1, ""},
		{6, ""},
	} {
		c := Defaults()
		c.WarnMargin = tc.margin
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("warn_margin %d: %v, want accepted", tc.margin, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("warn_margin %d: %v, want an error saying %q", tc.margin, err, tc.want)
		}
	}
}
