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
// directory, and nothing else.
func TestResidentCallable(t *testing.T) {
	for _, c := range []struct {
		args []string
		dir  string
		ok   bool
	}{
		{[]string{"hook", "claude"}, "/p", true},
		{[]string{"hook", "copilot", "preToolUse"}, "/p", true},
		{[]string{"hook", "claude"}, "p", false},
		{[]string{"hook", "install", "claude"}, "/p", false},
		{[]string{"hook", "status"}, "/p", false},
		{[]string{"reset"}, "/p", false},
		{nil, "/p", false},
	} {
		err := residentCallable(&residentwire.Request{Args: c.args, Dir: c.dir})
		if (err == nil) != c.ok {
			t.Errorf("%v in %s: %v", c.args, c.dir, err)
		}
	}
}
