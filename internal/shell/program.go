package shell

import (
	"path/filepath"
	"strings"
)

// Program is the command c runs once the wrappers that run another
// command are looked through (env, sudo, nohup, timeout, xargs...): its
// words, program first, and the environment variables env sets (set) or
// removes (unset) on the way. No words when a wrapper's command is not
// known.
func (c Command) Program() (args []Word, set, unset []string) {
	args = c.Args
	for len(args) > 0 {
		if !args[0].Known {
			return args, set, unset
		}
		rest := args[1:]
		switch filepath.Base(args[0].Text) {
		case "env":
			args = env(rest, &set, &unset)
		case "sudo", "doas":
			args = skipOptions(rest, "ugpChDrtUTR")
		case "command", "builtin", "nohup", "setsid", "time", "caffeinate":
			args = skipOptions(rest, "")
		case "exec":
			args = skipOptions(rest, "a")
		case "nice", "ionice":
			args = skipOptions(rest, "nct")
		case "stdbuf":
			args = skipOptions(rest, "ioe")
		case "timeout":
			args = skipOptions(rest, "sk")
			if len(args) > 0 {
				args = args[1:] // the duration
			}
		case "xargs":
			args = skipOptions(rest, "IndPLEsa")
		case "flock":
			args = skipOptions(rest, "wEs")
			if len(args) > 0 {
				args = args[1:] // the lock file
			}
		case "busybox":
			args = rest
		default:
			return args, set, unset
		}
	}
	return nil, set, unset
}

// env reads env's options and assignments and returns its command.
func env(args []Word, set, unset *[]string) []Word {
	for len(args) > 0 {
		w := args[0]
		if !w.Known {
			return nil
		}
		switch {
		case w.Text == "--":
			return args[1:]
		case w.Text == "-u" || w.Text == "--unset":
			if len(args) > 1 && args[1].Known {
				*unset = append(*unset, args[1].Text)
			}
			if len(args) < 2 {
				return nil
			}
			args = args[2:]
			continue
		case strings.HasPrefix(w.Text, "--unset="):
			*unset = append(*unset, strings.TrimPrefix(w.Text, "--unset="))
		case w.Text == "-C" || w.Text == "--chdir":
			if len(args) > 1 {
				args = args[1:]
			}
		case w.Text == "-S" || w.Text == "--split-string":
			// env -S 'prog args': the string is split into words as a
			// shell would, without running one.
			if len(args) > 1 && args[1].Known {
				return append(fields(args[1].Text), args[2:]...)
			}
			return nil
		case strings.HasPrefix(w.Text, "-"):
		case strings.Contains(w.Text, "="):
			n, _, _ := strings.Cut(w.Text, "=")
			*set = append(*set, n)
		default:
			return args
		}
		args = args[1:]
	}
	return nil
}

// fields are the words of s, read as Fallback reads a command's.
func fields(s string) []Word {
	var out []Word
	for _, c := range Fallback(s) {
		out = append(out, c.Args...)
	}
	return out
}

// skipOptions drops leading options; the letters of withValue take the
// next word as their value.
func skipOptions(args []Word, withValue string) []Word {
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Text, "-") && args[0].Text != "-" {
		w := args[0].Text
		args = args[1:]
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "--") && len(w) == 2 && strings.ContainsRune(withValue, rune(w[1])) && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}
