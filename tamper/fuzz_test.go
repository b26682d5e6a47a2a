package tamper

import "testing"

// FuzzCheck: no command line, however malformed, makes the classifier
// panic or loop (a panic would turn into a refusal of every call).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"loopbreaker reset", "bash -c 'eval \"rm -rf ~/.loopbreaker\"'", "echo $(( 1 + ", "cat <<EOF\n",
		"a=(1 2); ${a[@]} > loopbreaker.yaml", "Remove-Item -Path \"$env:HOME\\x\"", "cd ~/..; rm -rf *",
		"env -S 'loopbreaker reset'", "env -u", "rm loop\x00breaker.yaml", "$($($(", "git -C", "sudo -u", "timeout", "xargs -I", `\`, "'", "\"",
		"rm [", "rm .[!", "cp -t", "dd of=", ">", "2>&", "coproc loopbreaker reset", "f() { loopbreaker reset; }; f",
	} {
		f.Add(s)
	}
	p := fixture()
	f.Fuzz(func(t *testing.T, s string) {
		Check(Call{Cwd: "/home/dev/proj", Shell: []string{s}, Writes: []string{s}}, p)
		Check(Call{Shell: []string{s}}, p)
	})
}
