package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// hook install --client installs the client beside the loopbreaker the
// hooks would run, and refuses when there is none.
func TestHookClientIsTheOneBesideTheProgram(t *testing.T) {
	dir := t.TempDir()
	program := filepath.Join(dir, "loopbreaker")
	if _, err := hookClient(program); err == nil || !strings.Contains(err.Error(), "no executable") {
		t.Fatalf("without a client: %v", err)
	}
	client := filepath.Join(dir, "loopbreaker-hook")
	if err := os.WriteFile(client, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := hookClient(program); err != nil || got != client {
		t.Fatalf("hookClient = %q, %v; want %q", got, err, client)
	}
}

// The resident breaker takes hook calls of a known CLI from an absolute
// directory, and the per-user one a loop script's check and record;
// nothing else.
func TestResidentCallable(t *testing.T) {
	for _, c := range []struct {
		args     []string
		dir      string
		ok, loop bool
	}{
		{[]string{"hook", "claude"}, "/p", true, true},
		{[]string{"hook", "copilot", "preToolUse"}, "/p", true, false},
		{[]string{"hook", "claude"}, "p", false, true},
		{[]string{"hook", "install", "claude"}, "/p", false, true},
		{[]string{"hook", "status"}, "/p", false, true},
		{[]string{"reset"}, "/p", false, true},
		{[]string{"check"}, "/p", true, true},
		{[]string{"record", "--exit-code", "1"}, "/p", true, true},
		{[]string{"check"}, "/p", false, false},
		{[]string{"record"}, "p", false, true},
		{nil, "/p", false, true},
	} {
		err := residentCallable(&residentwire.Request{Args: c.args, Dir: c.dir}, c.loop)
		if (err == nil) != c.ok {
			t.Errorf("%v in %s (loop commands taken: %v): %v", c.args, c.dir, c.loop, err)
		}
	}
}
