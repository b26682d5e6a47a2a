package config

import (
	"path/filepath"
	"testing"
)

// A cloned repository's loopbreaker.yaml may not choose where loopbreaker
// writes: state_dir there is an error naming the line and where to set it
// instead, even next to other valid keys and even when the path is
// harmless. The person's own layers set it, with their source.
func TestStateDirOnlyFromThePersonsLayers(t *testing.T) {
	wantErr(t, fixture{project: "cooldown: 1m\nstate_dir: /home/victim/.ssh\n"}.options(t),
		"loopbreaker.yaml:2: state_dir cannot be set in a project's loopbreaker.yaml",
		"user file", "LOOPBREAKER_STATE_DIR")

	// A file named by LOOPBREAKER_CONFIG is the project layer too.
	opts := fixture{}.options(t)
	writeFile(t, filepath.Join(opts.ProjectDir, "lb.yaml"), "state_dir: /tmp/x\n")
	opts.Env = []string{"LOOPBREAKER_CONFIG=lb.yaml"}
	wantErr(t, opts, "lb.yaml:1: state_dir cannot be set")

	for _, tt := range []struct {
		name string
		fix  fixture
		want string
	}{
		{"user file", fixture{user: "state_dir: /srv/lb-state\n"}, "user"},
		{"env", fixture{env: []string{"LOOPBREAKER_STATE_DIR=/srv/lb-state"}}, "env LOOPBREAKER_STATE_DIR"},
		{"flag", fixture{flags: map[string]string{"state_dir": "/srv/lb-state"}}, "flag --set state_dir"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLoad(t, tt.fix.options(t))
			if l.Config.StateDir != "/srv/lb-state" {
				t.Errorf("state_dir = %q, want /srv/lb-state", l.Config.StateDir)
			}
			if got := l.SourceOf("state_dir").String(); len(got) < len(tt.want) || got[:len(tt.want)] != tt.want {
				t.Errorf("source = %q, want %q...", got, tt.want)
			}
		})
	}

	// A relative path would depend on where the command runs.
	wantErr(t, fixture{env: []string{"LOOPBREAKER_STATE_DIR=state"}}.options(t),
		"env LOOPBREAKER_STATE_DIR", "state_dir must be an absolute path")
}
