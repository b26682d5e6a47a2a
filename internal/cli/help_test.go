package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// runCLI runs the command line in dir and returns its exit code and output.
func runCLI(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir,
		Environ: []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir}}
	code = Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// singleDashLong finds a long flag spelled with one dash (-session).
var singleDashLong = regexp.MustCompile(`(?m)^\s+-[a-z][a-z-]+\b`)

// TestEveryCommandHasHelp: each command's --help says what it does in one
// line, lists its flags as --flag (one letter: -C) and shows an example.
func TestEveryCommandHasHelp(t *testing.T) {
	var names []string
	for _, c := range commands() {
		switch c.name {
		case "run", "hook":
			// Their help is their owners' (run.go, hook.go); the hook
			// subcommands are checked below.
			continue
		}
		names = append(names, c.name)
	}
	names = append(names, "scope check", "scope justify", "scope violation", "scope list",
		"checkpoint create", "checkpoint clean", "checkpoint list", "hook install", "hook uninstall",
		"resident run", "resident stop", "resident status")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(name), "--help")
			code, out, errOut := runCLI(t, t.TempDir(), args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(first, "loopbreaker "+name+": ") || len(first) < len("loopbreaker "+name+": ")+10 {
				t.Errorf("first line %q: want `loopbreaker %s: <what it does>`", first, name)
			}
			if !strings.Contains(out, "\nExample:\n  loopbreaker ") && !strings.Contains(out, "\nExample:\n  ") {
				t.Errorf("no example in:\n%s", out)
			}
			if m := singleDashLong.FindString(out); m != "" {
				t.Errorf("flag spelled with one dash (%q) in:\n%s", m, out)
			}
		})
	}
}

func TestHelpListsOnlyTheFlagsACommandUses(t *testing.T) {
	for _, tt := range []struct {
		cmd      string
		has, not []string
	}{
		{"config", []string{"-C dir", "--set", "--json"}, []string{"--session", "--caller", "--scope"}},
		{"mcp", []string{"-C dir", "--set", "--session"}, []string{"--caller", "--scope", "--json"}},
		{"version", nil, []string{"--session", "-C"}},
	} {
		_, out, _ := runCLI(t, t.TempDir(), tt.cmd, "--help")
		for _, f := range tt.has {
			if !strings.Contains(out, "  "+f) {
				t.Errorf("%s --help does not list %s:\n%s", tt.cmd, f, out)
			}
		}
		for _, f := range tt.not {
			if strings.Contains(out, "  "+f) {
				t.Errorf("%s --help lists %s, which it ignores:\n%s", tt.cmd, f, out)
			}
		}
	}
}

func TestFlagErrorSpellsFlagsAsTyped(t *testing.T) {
	for in, want := range map[string]string{
		"flag provided but not defined: -bogus":                    "unknown flag --bogus",
		"flag provided but not defined: -x":                        "unknown flag -x",
		`invalid value "x" for flag -files-changed: want a number`: `invalid value "x" for flag --files-changed: want a number`,
		"flag needs an argument: -C":                               "flag needs an argument: -C",
		`invalid boolean value "y" for -json: parse error`:         `invalid boolean value "y" for --json: parse error`,
		`invalid value "-5" for flag -n: bad`:                      `invalid value "-5" for flag -n: bad`,
	} {
		if got := flagError(errorString(in)); got != want {
			t.Errorf("flagError(%q) = %q, want %q", in, got, want)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
