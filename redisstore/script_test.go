package redisstore

import (
	"context"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
)

// The script compares only the head of a state value with the token an
// update read. A token that is a prefix of the stored one, or the stored
// one with more after it, is another token: a conflict, nothing written.
// The update's own token already there is a commit resent after a lost
// reply.
func TestScriptComparesWholeTokens(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, Options{Prefix: "script"})
	ctx := context.Background()
	const stored = "k3j9.x81"
	key := s.keys.state("global")
	if err := s.Client().Set(ctx, key, stored+"\n{\"scope\":\"global\"}", 0).Err(); err != nil {
		t.Fatal(err)
	}
	run := func(expected, token string) any {
		t.Helper()
		keys := []string{s.keys.schema, s.keys.scopes, key, s.keys.journal("global"), s.keys.turn("global")}
		args := []any{SchemaVersion, token, 0, 0, "w1", 0, 1,
			expected, "1", "global", token + "\n{\"scope\":\"global\",\"seq\":1}", `{"seq":1,"state":`, 0}
		res, err := casScript().Run(ctx, s.Client(), keys, args...).Result()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	value := func() string {
		t.Helper()
		v, err := s.Client().Get(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, expected := range []string{"", "k3j9", "k3j9.x8", stored + "1", stored + "\n"} {
		res := run(expected, "new.1")
		vals, ok := res.([]any)
		if !ok || len(vals) != 2 || vals[0] != value() {
			t.Errorf("expected token %q against %q: %v, want a conflict with the current value", expected, stored, res)
		}
		if v := value(); !strings.HasPrefix(v, stored+"\n") {
			t.Fatalf("expected token %q: the value became %q", expected, v)
		}
	}
	if res := run(stored, "new.2"); res != int64(1) {
		t.Fatalf("the stored token: %v, want 1 (committed)", res)
	}
	if v := value(); !strings.HasPrefix(v, "new.2\n") {
		t.Fatalf("after the commit the value is %q", v)
	}
	// The same update again (go-redis resends after a lost reply).
	if res := run(stored, "new.2"); res != int64(2) {
		t.Fatalf("the same update again: %v, want 2 (already committed)", res)
	}
}
