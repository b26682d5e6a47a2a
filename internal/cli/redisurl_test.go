package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
)

// Mistakes in a Redis URL fail clearly, with exit 1 (never 2, which
// scripts read as OPEN), without showing a password, and without
// touching anything.
func TestRedisURLMistakes(t *testing.T) {
	const secret = "Tr0ub4dor-and-3"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	dir := t.TempDir()
	if _, e, code := runLB(t, dir, nil, "record", "--files-changed", "1"); code != 0 {
		t.Fatalf("record: exit %d %s", code, e)
	}

	_, e, code := runLB(t, dir, []string{"LOOPBREAKER_STORE=redis://:" + secret + "@" + srv.Addr() + "/0?pool_size=-1"}, "check")
	if code != 1 || !strings.Contains(e, "?pool_size=-1") || strings.Contains(e, "panic") || strings.Contains(e, secret) {
		t.Fatalf("check with ?pool_size=-1: exit %d %s; want exit 1 naming pool_size", code, e)
	}
	withQuery := []string{"LOOPBREAKER_STORE=redis://" + srv.Addr() + "/0?password=" + secret}
	_, e, code = runLB(t, dir, withQuery, "check")
	if code != 1 || strings.Contains(e, secret) || !strings.Contains(e, "LOOPBREAKER_REDIS_PASSWORD") {
		t.Fatalf("check with ?password=: exit %d %s; want exit 1 without the password, naming LOOPBREAKER_REDIS_PASSWORD", code, e)
	}
	if out, e, _ := runLB(t, dir, withQuery, "config"); strings.Contains(out+e, secret) {
		t.Fatalf("config shows a password given in the query:\n%s%s", out, e)
	}
	// The user in the URL, the password from the environment, as the
	// error message of a wrong password suggests.
	userOnly := []string{"LOOPBREAKER_STORE=redis://default@" + srv.Addr() + "/0", "LOOPBREAKER_REDIS_PASSWORD=" + secret}
	if _, e, code := runLB(t, dir, userOnly, "record", "--files-changed", "1"); code != 0 {
		t.Fatalf("record with the user in the URL and the password in the environment: exit %d %s", code, e)
	}

	// migrate to a misspelt scheme is not a directory named "reddis:".
	_, e, code = runLB(t, dir, nil, "migrate", "--from", dir, "--to", "reddis://:"+secret+"@"+srv.Addr()+"/0")
	if code != 1 || !strings.Contains(e, "reddis") || !strings.Contains(e, "redis://") || strings.Contains(e, secret) {
		t.Fatalf("migrate --to reddis://...: exit %d %s; want exit 1 naming the scheme", code, e)
	}
	_, e, code = runLB(t, dir, nil, "migrate", "--from", "rediss//"+srv.Addr(), "--to", filepath.Join(dir, "copy"))
	if code != 1 {
		t.Fatalf("migrate --from a path that does not exist: exit %d %s", code, e)
	}
	for _, name := range []string{"reddis:", "copy"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("migrate created %s although it failed", name)
		}
	}
}
