package hook_test

import (
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

func TestShellEdit(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		edit  bool
		files []string
	}{
		{"sed -i 's/a/b/' x.py", true, []string{"x.py"}},
		{"sed -i.bak -e 's/a/b/' -e 's/c/d/' x.py y.py", true, []string{"x.py", "y.py"}},
		{"sed --in-place=.orig 's/a/b/' src/x.go", true, []string{"src/x.go"}},
		{"sed -n '/a/p' x.py", false, nil},
		{"perl -pi -e 's/a/b/' x.pl", true, []string{"x.pl"}},
		{"mv old.go new.go", true, []string{"old.go", "new.go"}},
		{"cp -r tmpl/ out/", true, []string{"tmpl/", "out/"}},
		{"rm -f stale.txt", true, []string{"stale.txt"}},
		{"cat > reproduce.py << 'EOF'\nprint(1)\nEOF", true, []string{"reproduce.py"}},
		{"echo hi >> notes.txt", true, []string{"notes.txt"}},
		{"echo hi | tee -a log.md", true, []string{"log.md"}},
		{"python -c \"open('a.py','w').write('x')\"", true, nil},
		{"python -c \"open('a.py').read()\"", false, nil},
		{"python -c \"from pathlib import Path; Path('a.py').write_text('x')\"", true, nil},
		{"python -c \"Path('a.bin').write_bytes(b'x')\"", true, nil},
		{"python -c \"Path('a.py').read_text()\"", false, nil},
		{"apply_patch <<'PATCH'\n*** Begin Patch\nPATCH", true, nil},
		{"patch -p1 < fix.diff", true, nil},
		{"patch < fix.diff", true, nil},
		{"git format-patch -1", false, nil},
		{"git apply fix.patch", true, nil},
		{"git commit -am 'fix: a > b'", true, nil},
		{"git -C sub commit --amend --no-edit", true, nil},
		{"git add -A && git commit -qm wip", true, nil},
		{"git rebase -i main", true, nil},
		{"git rebase --abort", false, nil},
		{"git cherry-pick abc123", true, nil},
		{"git am < 0001.patch", true, nil},
		{"git mv a.go b.go", true, []string{"a.go", "b.go"}},
		{"GIT_EDITOR=true git merge --continue", true, nil},
		{"jj new", true, nil},
		{"jj commit -m 'x'", true, nil},
		{"jj squash", true, nil},
		{"jj describe -m 'better'", true, nil},
		{"jj log -r @", false, nil},
		{"jj", false, nil},
		{"jj st", false, nil},
		{"jj op log", false, nil},
		{"jj bookmark list", false, nil},
		{"jj workspace list", false, nil},
		{"jj config set --repo user.name A", false, nil},
		{"jj file show src/a.rs", false, nil},
		{"jj workspace add ../ws2", true, nil},
		{"jj op revert abc123", true, nil},
		{"jj op restore abc123", true, nil},
		{"jj undo", true, nil},
		{"jj bookmark set main -r @", true, nil},
		{"jj bookmark move main --to @-", true, nil},
		{"jj git push --bookmark main", true, nil},
		{"jj git fetch", true, nil},
		{"jj metaedit -m x", true, nil},
		{"git push origin main", true, nil},
		{"git tag v1.0", true, nil},
		{"git tag -l", false, nil},
		{"git tag", false, nil},
		{"git branch feature", true, nil},
		{"git branch -D old", true, nil},
		{"git branch --show-current", false, nil},
		{"git branch -a", false, nil},
		{"git stash", true, nil},
		{"git stash list", false, nil},
		{"git status && git log --oneline | head", false, nil},
		{"git diff HEAD~1 > /dev/null", false, nil},
		{"grep -rn 'a > b' src/", false, nil},
		{"python reproduce.py 2>&1", false, nil},
		{"go test ./... 2> errors.log", false, nil},
		{"ls -la > /dev/null", false, nil},
		{"cat setup.py | head -20", false, nil},
		{"find . -name '*.py'", false, nil},
		{"echo hi | tee", false, nil},
		{"echo 'git commit -am x'", false, nil},
		// Read better by the shell parser than by the hand tokeniser it
		// replaced: a here-document's body is text, not commands; a
		// comment is no redirection; a command substitution, a bash -c
		// string and a command behind sudo's options or timeout run.
		{"cat <<'EOF' > notes.md\nrm -rf build > gone.txt\nEOF", true, []string{"notes.md"}},
		{"cat <<'EOF'\nrm -rf build\nEOF", false, nil},
		{"ls # > notes.txt", false, nil},
		{`echo "$(rm stale.txt)"`, true, []string{"stale.txt"}},
		{`bash -lc "sed -i 's/a/b/' x.py"`, true, []string{"x.py"}},
		{"sudo -u dev rm -f old.log", true, []string{"old.log"}},
		{"timeout 60 git commit -qm wip", true, nil},
		{`rm "my file.txt" it\'s.txt`, true, []string{"my file.txt", "it's.txt"}},
		{"go vet ./... &> vet.log", true, []string{"vet.log"}},
		{"echo x 1> out.txt 2> err.txt", true, []string{"out.txt"}},
		{"tr a b <<< 'x > y'", false, nil},
		// Text the parser refuses is read conservatively, not dropped.
		{"sed -i 's/a/b/' x.py; echo 'unterminated", true, []string{"x.py"}},
	} {
		w := hook.ShellEdit(c.cmd)
		if w.Edit() != c.edit || !slices.Equal(w.Files, c.files) {
			t.Errorf("ShellEdit(%q) = %+v; want edit %v, files %q", c.cmd, w, c.edit, c.files)
		}
	}
}

// BenchmarkShellEdit: what reading one Bash command costs a hook call,
// which reads each command for edits and for setup changes.
func BenchmarkShellEdit(b *testing.B) {
	cmds := []string{
		"go test ./... 2>&1 | tail -20",
		"cd src && sed -i 's/old/new/' a.go b.go && git commit -qam 'fix: a > b'",
		"cat > reproduce.py << 'EOF'\nimport sys\nprint(sys.argv)\nEOF\npython reproduce.py",
	}
	for b.Loop() {
		for _, c := range cmds {
			hook.ShellEdit(c)
			hook.ShellSetup(c)
		}
	}
}
