package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// helpText is what a command's --help says besides its flags.
type helpText struct {
	summary string // one line
	usage   string // after "Usage: loopbreaker "; default "NAME [flags]"
	example string // one or more command lines
}

// subcommandHelp covers the commands that are not in commands(): the
// subcommands of scope, checkpoint and hook.
func subcommandHelp(name string) (helpText, bool) {
	agents := strings.Join(all.Names(), "|")
	h, ok := map[string]helpText{
		"scope check":       {"is FILE in the slice's scope? (exit 2 when it is not and no justification covers it)", "scope check [flags] FILE", "loopbreaker scope check internal/auth/token.go"},
		"scope justify":     {"record why FILE outside the scope must change for test T", "scope justify [flags] FILE --test T --reason R", "loopbreaker scope justify go.mod --test TestLogin --reason \"needs the new jwt module\""},
		"scope violation":   {"record that FILE outside the scope was changed without a justification", "scope violation [flags] FILE --test T", "loopbreaker scope violation db/schema.sql --test TestLogin"},
		"scope list":        {"show the scope configuration and the recorded justifications and violations", "", "loopbreaker scope list --json"},
		"checkpoint create": {"tag HEAD as the slice's checkpoint (kept when HEAD descends from it)", "", "loopbreaker checkpoint create --slice S1"},
		"checkpoint clean":  {"delete the slice's checkpoint tag", "", "loopbreaker checkpoint clean --slice S1"},
		"checkpoint list":   {"list the checkpoints", "", "loopbreaker checkpoint list --json"},
		"hook install":      {"add loopbreaker's hooks to an agent CLI's settings (a backup of the file is kept)", "hook install [flags] " + agents, "loopbreaker hook install claude"},
		"hook uninstall":    {"remove loopbreaker's hooks from an agent CLI's settings", "hook uninstall [flags] " + agents, "loopbreaker hook uninstall claude"},
		"resident run":      {"answer the hook calls of loopbreaker-hook over the user's socket until idle", "", "loopbreaker resident run --idle 1h"},
		"resident stop":     {"ask the running resident breaker to exit", "", "loopbreaker resident stop"},
		"resident status":   {"where the resident breaker's socket is and whether it answers (changes nothing)", "", "loopbreaker resident status"},
		"hook status":       {"where each agent CLI's hooks are installed, its version, whether it runs them, the last hook call per agent session (changes nothing)", "", "loopbreaker hook status --json"},
	}[name]
	if ok {
		return h, true
	}
	for _, a := range all.Agents() {
		if name == "hook "+string(a.Name()) {
			return hookHelp(a), true
		}
	}
	return helpText{}, false
}

// hookHelp is the help of `loopbreaker hook NAME` for one agent CLI.
func hookHelp(a agent.Agent) helpText {
	t := a.Traits()
	h := helpText{
		summary: "answer one " + t.Display + " hook call (JSON payload on stdin)",
		example: "loopbreaker hook " + string(a.Name()) + " < payload.json",
	}
	if t.EventArgument {
		h.summary = "answer one " + t.Display + " hook call (JSON payload on stdin; EVENT names the event)"
		h.usage = "hook " + string(a.Name()) + " [EVENT] [flags]"
		h.example = "loopbreaker hook " + string(a.Name()) + " " + t.TryEvent + " < payload.json"
	}
	return h
}

// helpFor finds the help of a command or subcommand by its name.
func helpFor(name string) helpText {
	for _, c := range commands() {
		if c.name == name {
			return helpText{summary: c.summary, usage: c.usage, example: c.example}
		}
	}
	if h, ok := subcommandHelp(name); ok {
		return h
	}
	return helpText{}
}

// printHelp prints a command's help: what it does, how it is called, its
// flags (--long, -C) and an example.
func printHelp(w io.Writer, name string, fs *flag.FlagSet) {
	h := helpFor(name)
	if h.summary != "" {
		fmt.Fprintf(w, "loopbreaker %s: %s\n\n", name, h.summary)
	}
	usage := h.usage
	if usage == "" {
		usage = name
		if fs != nil && hasFlags(fs) {
			usage += " [flags]"
		}
	}
	fmt.Fprintf(w, "Usage: loopbreaker %s\n", usage)
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nFlags:")
		printFlags(w, fs)
	}
	if h.example != "" {
		fmt.Fprintln(w, "\nExample:")
		for line := range strings.SplitSeq(h.example, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// flagName spells a flag as it is typed: -C for one letter, --name else.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags lists the flags in one style, each with its argument, what
// it does and its default when that is not the zero value.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := "  " + flagName(f.Name)
		if arg != "" {
			head += " " + arg
		}
		if len(head) <= 22 {
			fmt.Fprintf(w, "%-24s%s", head, usage)
		} else {
			fmt.Fprintf(w, "%s\n%-24s%s", head, "", usage)
		}
		if !isZeroDefault(f) {
			if isStringFlag(f) || strings.ContainsAny(f.DefValue, " ,") {
				fmt.Fprintf(w, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
		}
		fmt.Fprintln(w)
	})
}

// isStringFlag reports whether a flag holds a string, whose default help
// quotes (`(default "default")`, not `(default default)`).
func isStringFlag(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, isString := g.Get().(string)
	return isString
}

// isZeroDefault reports whether the flag's default is its type's zero
// value, which help does not show.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return true
	}
	// A Value whose zero String() is the default (optInt, multiFlag).
	t := reflect.TypeOf(f.Value)
	if t.Kind() == reflect.Pointer {
		if z, ok := reflect.New(t.Elem()).Interface().(flag.Value); ok {
			return z.String() == f.DefValue
		}
	}
	return false
}

// newFlagSet is a command's flag set; --help prints the command's help on
// stdout, and parse turns a bad flag into one line.
func newFlagSet(name string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet("loopbreaker "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { printHelp(env.Stdout, name, fs) }
	return fs
}

// commandName is the name a flag set was made for ("scope check").
func commandName(fs *flag.FlagSet) string {
	return strings.TrimPrefix(fs.Name(), "loopbreaker ")
}

// parseFlags parses flags without the flag package's printing: --help
// prints the help and ends the command (exit 0); a bad flag is a usage
// error that says what is wrong in one line.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return &exitError{code: ExitOK}
	}
	return &usageError{cmd: commandName(fs), msg: flagError(err)}
}

// flagErrorName finds the flag names in the flag package's messages.
var flagErrorName = lazyre.New(`(^|[ :]) ?-(-?)([A-Za-z0-9][A-Za-z0-9_-]*)`)

// flagError rewrites the flag package's message with flags spelled as
// they are typed (--name, -C).
func flagError(err error) string {
	msg := err.Error()
	msg = flagErrorName.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagErrorName.FindStringSubmatch(m)
		prefix := strings.TrimSuffix(m, "-"+sub[2]+sub[3])
		return prefix + flagName(sub[3])
	})
	if strings.HasPrefix(msg, "flag provided but not defined: ") {
		msg = "unknown flag " + strings.TrimPrefix(msg, "flag provided but not defined: ")
	}
	return msg
}
