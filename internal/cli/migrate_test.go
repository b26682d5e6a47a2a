package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/redistest"
)

// runLB runs the loopbreaker binary (this test binary) in dir with env added
// and returns its stdout, stderr and exit code.
func runLB(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the test binary is not on PATH as loopbreaker: %v", err)
	}
	// A command that never ends (a store that spins) fails its test
	// rather than the whole run.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOOPBREAKER_NOW=2026-11-21T09:00:00Z", "XDG_CONFIG_HOME="+dir+"/.xdg", "HOME="+dir+"/.home", "XDG_STATE_HOME="+stateHome(dir))
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// statusAll is `status --json` of every scope of the store env points at,
// without the lines that say where the store is.
func statusAll(t *testing.T, dir string, env []string, scopes []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sc := range scopes {
		o, e, code := runLB(t, dir, env, "status", "--scope", sc, "--json")
		if code != 0 {
			t.Fatalf("status --scope %s: exit %d: %s", sc, code, e)
		}
		var kept []string
		for _, line := range strings.Split(o, "\n") {
			if !strings.Contains(line, `"state_dir":`) && !strings.Contains(line, `"store":`) {
				kept = append(kept, line)
			}
		}
		out[sc] = strings.Join(kept, "\n")
	}
	return out
}

// Breakers in every state go to Redis and back; `status --json` of every
// scope is the same in all three stores.
func TestMigrateDirToRedisAndBack(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	dir := t.TempDir()
	scopes := []string{"session:looping", "session:working", "agent:reviewer", "global"}
	for range 4 {
		runLB(t, dir, nil, "record", "--session", "looping", "--files-changed", "0", "--error", "same failure")
		runLB(t, dir, nil, "record", "--session", "working", "--files-changed", "2")
		runLB(t, dir, nil, "record", "--scope", "agent:reviewer", "--files-changed", "0")
	}
	runLB(t, dir, nil, "record", "--scope", "global", "--files-changed", "1")
	before := statusAll(t, dir, nil, scopes)
	if !strings.Contains(before["session:looping"], `"state": "OPEN"`) {
		t.Fatalf("the looping session should be OPEN before the migration:\n%s", before["session:looping"])
	}

	url := srv.URL() + "?prefix=migrated"
	out, e, code := runLB(t, dir, nil, "migrate", "--from", dir, "--to", url)
	if code != 0 || !strings.Contains(out, "copied 4 breakers") {
		t.Fatalf("migrate to Redis: exit %d\n%s%s", code, out, e)
	}
	inRedis := statusAll(t, dir, []string{"LOOPBREAKER_STORE=" + url}, scopes)
	back := filepath.Join(t.TempDir(), "state")
	if out, e, code := runLB(t, dir, nil, "migrate", "--from", url, "--to", back); code != 0 {
		t.Fatalf("migrate back: exit %d\n%s%s", code, out, e)
	}
	again := statusAll(t, dir, []string{"LOOPBREAKER_DIR=" + back}, scopes)
	for _, sc := range scopes {
		if inRedis[sc] != before[sc] {
			t.Errorf("%s in Redis differs:\nbefore %s\nafter  %s", sc, before[sc], inRedis[sc])
		}
		if again[sc] != before[sc] {
			t.Errorf("%s migrated back differs:\nbefore %s\nafter  %s", sc, before[sc], again[sc])
		}
	}
	// The journal came along: history and report work on Redis.
	if out, e, code := runLB(t, dir, []string{"LOOPBREAKER_STORE=" + url}, "history", "--session", "looping"); code != 0 || !strings.Contains(out, "CLOSED -> HALF_OPEN") {
		t.Fatalf("history on Redis: exit %d\n%s%s", code, out, e)
	}
	if out, e, code := runLB(t, dir, []string{"LOOPBREAKER_STORE=" + url}, "report", "--session", "looping"); code != 0 || !strings.Contains(out, "Tripped") {
		t.Fatalf("report on Redis: exit %d\n%s%s", code, out, e)
	}
	if out, e, code := runLB(t, dir, []string{"LOOPBREAKER_STORE=" + url}, "recover", "--session", "looping"); code != 0 || !strings.Contains(out, "state OPEN") {
		t.Fatalf("recover on Redis: exit %d\n%s%s", code, out, e)
	}
	// A second copy into the same keys is refused, nothing overwritten.
	if _, e, code := runLB(t, dir, nil, "migrate", "--from", dir, "--to", url); code == 0 || !strings.Contains(e, "already has breaker") {
		t.Fatalf("migrating twice: exit %d %s", code, e)
	}
}

func TestRedisPasswordNeverPrinted(t *testing.T) {
	const secret = "Corr3ct-Horse-Battery"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	dir := t.TempDir()
	withURL := []string{"LOOPBREAKER_STORE=redis://:" + secret + "@" + srv.Addr() + "/0"}
	if _, e, code := runLB(t, dir, withURL, "record", "--files-changed", "1"); code != 0 {
		t.Fatalf("record with the password in the URL: exit %d %s", code, e)
	}
	out, e, _ := runLB(t, dir, withURL, "config")
	if strings.Contains(out+e, secret) || !strings.Contains(out, "redis://:xxxxx@") {
		t.Fatalf("config shows the password or no store:\n%s%s", out, e)
	}
	out, e, _ = runLB(t, dir, withURL, "config", "--json")
	if strings.Contains(out+e, secret) {
		t.Fatalf("config --json shows the password:\n%s", out)
	}
	// From the environment, the URL without it.
	fromEnv := []string{"LOOPBREAKER_STORE=redis://" + srv.Addr() + "/0", "LOOPBREAKER_REDIS_PASSWORD=" + secret}
	if out, e, code := runLB(t, dir, fromEnv, "status", "--json"); code != 0 || !strings.Contains(out, `"iterations": 1`) {
		t.Fatalf("status with the password from the environment: exit %d %s%s", code, out, e)
	}
	if out, _, _ := runLB(t, dir, fromEnv, "config"); strings.Contains(out, secret) {
		t.Fatalf("config shows the password from the environment:\n%s", out)
	}
	// A wrong password and a broken URL fail clearly, without showing it.
	wrong := []string{"LOOPBREAKER_STORE=redis://:not-" + secret + "@" + srv.Addr() + "/0"}
	_, e, code := runLB(t, dir, wrong, "check")
	if code != 1 || strings.Contains(e, secret) || !strings.Contains(e, "WRONGPASS") {
		t.Fatalf("check with a wrong password: exit %d %s", code, e)
	}
	bad := []string{"LOOPBREAKER_STORE=redis://:" + secret + "@" + srv.Addr() + ":x/0"}
	_, e, code = runLB(t, dir, bad, "check")
	if code != 1 || strings.Contains(e, secret) {
		t.Fatalf("check with a broken URL: exit %d %s", code, e)
	}
	_, e, code = runLB(t, dir, []string{"LOOPBREAKER_STORE=memcached://" + secret + "@x"}, "check")
	if code == 0 || strings.Contains(e, secret) || !strings.Contains(e, "redis://") {
		t.Fatalf("check with another scheme: exit %d %s", code, e)
	}
}
