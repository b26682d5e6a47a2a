package tamper

import "testing"

// An agent asked to set up another project runs `loopbreaker init`
// there; an init of the guarded project, below it or above it, or where
// the directory cannot be read from the command, stays refused.
func TestInitElsewhere(t *testing.T) {
	for _, c := range []struct {
		cmd     string
		refused bool
	}{
		{"loopbreaker init -C /home/dev/other", false},
		{"loopbreaker -C /srv/app init", false},
		{"cd /tmp/newproj && loopbreaker init", false},
		{"mkdir -p ../other && cd ../other && loopbreaker init --force", false},
		{"loopbreaker init --C=/opt/x", false},
		{"loopbreaker init", true},
		{"loopbreaker init --force", true},
		{"cd sub && loopbreaker init", true},
		{"loopbreaker init -C /home/dev/proj/sub", true},
		{"loopbreaker -C /home/dev init", true},
		{"loopbreaker init -C /", true},
		{`cd "$X" && loopbreaker init`, true},
		{"loopbreaker init -C $DIR", true},
		{"loopbreaker init -C", true},
		{"cd ~ && loopbreaker init", true},
	} {
		got := Check(Call{Cwd: "/home/dev/proj", Shell: []string{c.cmd}}, fixture())
		if refused := len(got) > 0; refused != c.refused {
			t.Errorf("%q: findings %v, want refused %v", c.cmd, got, c.refused)
		}
	}
}
