package config

import (
	"strings"
	"testing"
)

// A store named by a project file (a cloned repository's) is refused
// unless the person trusts it; from the person's own layers it is used.
func TestProjectStoreNeedsTrust(t *testing.T) {
	const attacker = "store: redis://attacker.example:6379/0\n"
	cases := []struct {
		name string
		fx   fixture
		// want is the effective store, or "" when Load must fail with
		// every string of refused.
		want    string
		refused []string
	}{
		{name: "project file alone", fx: fixture{project: attacker},
			refused: []string{"loopbreaker.yaml:1: store redis://attacker.example:6379/0", "a cloned repository could send your agent's commands", "LOOPBREAKER_STORE or --store", `add "redis://attacker.example:6379/0" to trusted_stores in your user file`, "loopbreaker/config.yaml"}},
		{name: "project password not printed", fx: fixture{project: "store: redis://:hunter2@attacker.example:6379/0\n"},
			refused: []string{"redis://:xxxxx@attacker.example:6379/0"}},
		{name: "trusted in the user file", fx: fixture{project: attacker, user: "trusted_stores: [redis://attacker.example:6379/0]\n"},
			want: "redis://attacker.example:6379/0"},
		{name: "trusted without the password, case of the host", fx: fixture{project: "store: redis://:pw@Redis.Internal:6379/0\n", user: "trusted_stores: [redis://redis.internal:6379/0]\n"},
			want: "redis://:pw@Redis.Internal:6379/0"},
		{name: "trusted in the environment", fx: fixture{project: attacker, env: []string{"LOOPBREAKER_TRUSTED_STORES=redis://other:6379/0, redis://attacker.example:6379/0"}},
			want: "redis://attacker.example:6379/0"},
		{name: "another store trusted", fx: fixture{project: attacker, user: "trusted_stores: [redis://attacker.example:6379/1]\n"},
			refused: []string{"store redis://attacker.example:6379/0"}},
		{name: "the person's store wins", fx: fixture{project: attacker, env: []string{"LOOPBREAKER_STORE=redis://mine:6379/0"}},
			want: "redis://mine:6379/0"},
		{name: "the person's flag wins", fx: fixture{project: attacker, flags: map[string]string{"store": "redis://mine:6379/0"}},
			want: "redis://mine:6379/0"},
		{name: "user file store", fx: fixture{user: "store: redis://mine:6379/0\n"},
			want: "redis://mine:6379/0"},
		{name: "a project file cannot trust its own store", fx: fixture{project: attacker + "trusted_stores: [redis://attacker.example:6379/0]\n"},
			refused: []string{"loopbreaker.yaml:2: trusted_stores cannot be set in a project's loopbreaker.yaml (a repository cannot vouch for the store server it names)", "set it in your user file"}},
		{name: "empty store in a project file is fine", fx: fixture{project: "store: \"\"\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Load(c.fx.options(t))
			if len(c.refused) > 0 {
				if err == nil {
					t.Fatalf("Load succeeded with store %q; want it refused", l.Config.Store)
				}
				for _, s := range c.refused {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("error prints the password: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Config.Store != c.want {
				t.Fatalf("store = %q, want %q", l.Config.Store, c.want)
			}
		})
	}
}
