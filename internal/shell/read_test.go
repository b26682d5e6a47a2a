package shell

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// show renders the commands of a line for comparison: each command's
// words joined by blanks (an unknown word in <>), its redirections as
// FD OP TARGET, its here-documents as <<BODY, and ~ before a guessed one.
func show(cs []Command) []string {
	var out []string
	for _, c := range cs {
		var parts []string
		if c.Guessed {
			parts = append(parts, "~")
		}
		for _, a := range c.Assigns {
			parts = append(parts, a+"=")
		}
		for _, w := range c.Args {
			if w.Known {
				parts = append(parts, w.Text)
			} else {
				parts = append(parts, "<"+w.Text+">")
			}
		}
		for _, r := range c.Redirs {
			parts = append(parts, r.FD+r.Op+r.Target.Text)
		}
		for _, h := range c.Heredocs {
			parts = append(parts, "<<"+h)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func TestCommands(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"go test ./... 2>&1 | tail -20", []string{"go test ./...", "tail -20"}},
		{"cd src && sed -i 's/a b/c/' a.go; echo done", []string{"cd src", "sed -i s/a b/c/ a.go", "echo done"}},
		// Quotes and escapes are removed as the shell removes them.
		{`rm my\ file.txt 'it'"'"'s' "a\"b" "c\d"`, []string{`rm my file.txt it's a"b c\d`}},
		// Operators inside quotes are words, not operators.
		{"git commit -m 'fix: a > b; c && d'", []string{"git commit -m fix: a > b; c && d"}},
		// A comment is no command.
		{"ls # > notes.txt", []string{"ls"}},
		// Redirections that write, with their descriptors; those that
		// duplicate one are no file.
		{"go test 2> err.log > out.txt >> all.log &> both.log >&2 2>&1", []string{"go test 2>err.log >out.txt >>all.log &>both.log"}},
		{"echo x >| forced.txt", []string{"echo x >|forced.txt"}},
		// A here-document's body is text given to the command, not
		// commands; a here-string too.
		{"cat <<'EOF' > notes.md\nrm -rf build > gone.txt\nEOF", []string{"cat >notes.md <<rm -rf build > gone.txt\n"}},
		{"grep x <<< 'a > b'", []string{"grep x <<a > b"}},
		// Command substitutions run: each is read as a command line.
		{`echo "$(rm stale.txt)" $(date)`, []string{"rm stale.txt", "date", "echo <\"$(rm stale.txt)\"> <$(date)>"}},
		{"diff <(sort a) b", []string{"sort a", "diff <<(sort a)> b"}},
		// sh -c and eval strings are read as scripts of their own.
		{`bash -lc "sed -i s/a/b/ x.py && git commit -qam x"`, []string{"bash -lc sed -i s/a/b/ x.py && git commit -qam x", "sed -i s/a/b/ x.py", "git commit -qam x"}},
		{`sudo -u dev sh -c 'rm x'`, []string{"sudo -u dev sh -c rm x", "rm x"}},
		{`eval "rm" y`, []string{"eval rm y", "rm y"}},
		// Assignments before a command, and declarations.
		{"X=1 Y=$(pwd) make", []string{"pwd", "X= Y= make"}},
		{"export A=1 B=$HOME", []string{"export A=1 <B=$HOME>"}},
		// Compound commands: their commands, and their redirections.
		{"if true; then (cd x; rm y); fi; { a; b; } > log", []string{"true", "cd x", "rm y", ">log", "a", "b"}},
		// Text the parser refuses goes to Fallback.
		{"echo \"unterminated; rm loopbreaker.yaml", []string{"~ echo unterminated", "~ rm loopbreaker.yaml"}},
		{"echo 'open >&2 2>&1 >log", []string{"~ echo open >", "~ 2", "~ 1 >log"}},
		{`Remove-Item -Path (Join-Path $HOME "x") 2>err; Set-Content a.txt >out`, []string{"~ Remove-Item -Path", "~ Join-Path <$HOME> x", "~ 2>err", "~ Set-Content a.txt >out"}},
	} {
		if got := show(Commands(c.line)); !slices.Equal(got, c.want) {
			t.Errorf("Commands(%q)\n got  %q\n want %q", c.line, got, c.want)
		}
	}
}

// Vars gives the values of the variables it knows; others stay unknown.
func TestVars(t *testing.T) {
	var l list
	(&Reader{Vars: map[string]string{"HOME": "/home/dev"}, Visitor: &l}).Script(`rm "$HOME/a" ${HOME}/b $OTHER/c ${HOME:-x}`)
	if got, want := show(l), []string{"rm /home/dev/a /home/dev/b <$OTHER/c> <${HOME:-x}>"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// events records commands and subshells in order.
type events []string

func (e *events) Command(c Command) { *e = append(*e, strings.Join(show([]Command{c}), "")) }
func (e *events) Subshell(enter bool) {
	if enter {
		*e = append(*e, "(")
	} else {
		*e = append(*e, ")")
	}
}

// A subshell, a substitution and a nested script each come between a
// begin and an end, so that what they change stays in them.
func TestSubshells(t *testing.T) {
	var e events
	(&Reader{Visitor: &e}).Script("(cd /tmp; rm a); echo $(ls) && bash -c 'cd /; rm b'")
	want := []string{"(", "ls", ")", "(", "cd /tmp", "rm a", ")", "echo <$(ls)>", "bash -c cd /; rm b", "(", "cd /", "rm b", ")"}
	if !slices.Equal(e, want) {
		t.Errorf("got %q\nwant %q", e, want)
	}
	e = nil
	(&Reader{Visitor: &e}).Argv([]string{"bash", "-lc", "rm c"})
	if want := []string{"bash -lc rm c", "(", "rm c", ")"}; !slices.Equal(e, want) {
		t.Errorf("Argv: got %q, want %q", e, want)
	}
}

func TestProgram(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"sudo -u dev rm x", "rm x"},
		{"env -i A=1 -u B rm x", "rm x"},
		{"timeout -s KILL 60 nice -n 5 make", "make"},
		{"xargs -I {} rm {}", "rm {}"},
		{"env -S 'rm -f x' y", "rm -f x y"},
		{"exec loopbreaker hook claude", "loopbreaker hook claude"},
		{"env -u", ""},
		{"command", ""},
	} {
		line, want := c.line, c.want
		cs := Commands(line)
		args, _, _ := cs[0].Program()
		var got []string
		for _, w := range args {
			got = append(got, w.Text)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Program(%q) = %q, want %q", line, got, want)
		}
	}
	_, set, unset := Commands("env -i A=1 -u B --unset=C D=2 make")[0].Program()
	if !slices.Equal(set, []string{"A", "D"}) || !slices.Equal(unset, []string{"B", "C"}) {
		t.Errorf("set %q, unset %q", set, unset)
	}
}

// Hostile lines: read without a panic or a hang, whatever they hold. A
// hang fails the test through go test's own timeout.
func TestHostile(t *testing.T) {
	huge := strings.Repeat("rm -f a.txt && ", 50_000) + "true"
	if n := len(Commands(huge)); n != 50_001 {
		t.Errorf("a line of 50001 commands gave %d", n)
	}
	hugeWord := "echo " + strings.Repeat("x", 4<<20)
	if cs := Commands(hugeWord); len(cs) != 1 || len(cs[0].Args[1].Text) != 4<<20 {
		t.Errorf("a word of 4 MiB is not read whole")
	}
	for _, line := range []string{
		"rm a\x00b; ls\x00",
		"\x00\x00\x00",
		"echo 'unterminated",
		"echo \"unterminated $(",
		"cat <<EOF\nno end",
		"cat <<EOF\nEOF",
		"cat <<''\n\n",
		"x= y='' \"\" ''",
		strings.Repeat("$(", 10_000) + "rm x" + strings.Repeat(")", 10_000),
		strings.Repeat("(", 10_000) + "rm x" + strings.Repeat(")", 10_000),
		strings.Repeat("{ ", 10_000) + "rm x;" + strings.Repeat(" }", 10_000),
		strings.Repeat("$(", 10_000), // unterminated, to the fallback
		strings.Repeat("'", 100_001),
		strings.Repeat(`\`, 100_001),
		strings.Repeat("a=(", 5_000),
		"\xff\xfe rm x",
	} {
		start := time.Now()
		Commands(line)
		t.Logf("%.40q…: %v", line, time.Since(start))
	}
}

// Scripts inside scripts are read down to MaxDepth, not below.
func TestDepthBounded(t *testing.T) {
	var reached []int
	for depth := range MaxDepth + 3 {
		inner := "rm deepest"
		for range depth {
			inner = "bash -c " + Quote(inner)
		}
		if slices.Contains(show(Commands(inner)), "rm deepest") {
			reached = append(reached, depth)
		}
	}
	if len(reached) != MaxDepth+1 || reached[len(reached)-1] != MaxDepth {
		t.Errorf("nesting read at depths %v, want 0 to %d", reached, MaxDepth)
	}
}

// Quote's words are read back by a real shell, and by the parser, as the
// strings they quote.
func TestQuote(t *testing.T) {
	words := []string{"", "plain", "a/b.c:d@e%f+g=h,i-j_k", "two words", "it's", "~", "~/x", "$HOME", "`id`", "a\nb", "*", "-n", "\\", "é", "'", `"`, "!x", "a;b", "#"}
	for _, w := range words {
		if cs := Commands("printf %s " + Quote(w)); len(cs) != 1 || len(cs[0].Args) != 3 || cs[0].Args[2].Text != w {
			t.Errorf("Quote(%q) = %s is not read back", w, Quote(w))
		}
	}
	if got := Quote("plain-word_1.go"); got != "plain-word_1.go" {
		t.Errorf("a plain word is quoted: %s", got)
	}
	if got := Quote("~/x"); got != "'~/x'" {
		t.Errorf("Quote(~/x) = %s: a leading ~ would expand", got)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	script := ""
	for _, w := range words {
		script += "printf '%s\\0' " + Quote(w) + "\n"
	}
	out, err := exec.Command(sh, "-c", script).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, words) {
		t.Errorf("sh read back\n %q\nwant\n %q", got, words)
	}
	if got := QuoteAll("git", "reset", "--hard", "a b"); got != "git reset --hard 'a b'" {
		t.Errorf("QuoteAll = %s", got)
	}
}

func ExampleCommands() {
	for _, c := range Commands(`cd app && sed -i 's/a/b/' "x y.go" > log 2>&1`) {
		fmt.Println(show([]Command{c}))
	}
	// Output:
	// [cd app]
	// [sed -i s/a/b/ x y.go >log]
}
