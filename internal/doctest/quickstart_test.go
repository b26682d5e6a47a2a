package doctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// status is the part of `loopbreaker status --json` these tests read.
type status struct {
	State    string `json:"state"`
	Warning  bool   `json:"warning"`
	Detector string `json:"detector"`
}

func readStatus(t *testing.T, dir string, env []string, args ...string) status {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "loopbreaker"), append([]string{"status", "--json"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("loopbreaker status: %v\n%s", err, out)
	}
	var s status
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	return s
}

// iterations reads how many times a stand-in agent ran (it appends a line
// per run to a file outside the project).
func iterations(t *testing.T, counter string) int {
	t.Helper()
	b, err := os.ReadFile(counter)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// The README's shell loop, verbatim, stops an agent that changes nothing,
// exits 0 and prints a timestamp, by its third iteration.
func TestREADMEShellLoopStopsAStuckAgent(t *testing.T) {
	need(t, "bash", "git")
	block := fencedBlock(t, readDoc(t, "README.md"), "quickstart:shell-loop")
	agents := t.TempDir()
	counter := filepath.Join(agents, "runs")
	writeFile(t, filepath.Join(agents, "my-agent"), `#!/bin/sh
echo run >>"`+counter+`"
echo "$(date +%Y-%m-%dT%H:%M:%S.%N) agent: looked at the code, nothing to change"
exit 0
`)
	env := userEnv(t, agents)
	dir := newRepo(t, env)

	res := runShell(t, dir, env, block, 2*time.Minute)

	if n := iterations(t, counter); n > 3 {
		t.Errorf("the stuck agent ran %d times; want the loop stopped by iteration 3\nstderr:\n%s", n, res.stderr)
	}
	st := readStatus(t, dir, env)
	if st.State != "OPEN" || st.Detector != "no_progress" {
		t.Errorf("state %s (%s), want OPEN (no_progress)\nstderr:\n%s", st.State, st.Detector, res.stderr)
	}
	if !strings.Contains(res.stdout, "no progress in 3 consecutive iterations") {
		t.Errorf("the report at the end does not say why the loop stopped:\n%s", res.stdout)
	}
}

// The same block lets an agent that changes a file every iteration go on:
// after 6 iterations (when the stand-in ends the loop itself) the breaker
// is CLOSED without a warning.
func TestREADMEShellLoopLetsAProductiveAgentGoOn(t *testing.T) {
	need(t, "bash", "git")
	block := fencedBlock(t, readDoc(t, "README.md"), "quickstart:shell-loop")
	agents := t.TempDir()
	counter := filepath.Join(agents, "runs")
	// At its 7th run the agent ends the loop (its parent shell): a real
	// productive loop would end with a completion signal or the person.
	writeFile(t, filepath.Join(agents, "my-agent"), `#!/bin/sh
echo run >>"`+counter+`"
n=$(wc -l <"`+counter+`")
if [ "$n" -ge 7 ]; then kill -TERM "$PPID"; exit 0; fi
echo "step $n" >>progress.txt
echo "$(date +%H:%M:%S.%N) agent: implemented step $n"
exit 0
`)
	env := userEnv(t, agents)
	dir := newRepo(t, env)

	res := runShell(t, dir, env, block, 2*time.Minute)

	if n := iterations(t, counter); n != 7 {
		t.Fatalf("the productive agent ran %d times, want 7 (6 steps, then it ends the loop); exit %d\nstderr:\n%s", n, res.code, res.stderr)
	}
	st := readStatus(t, dir, env)
	if st.State != "CLOSED" || st.Warning {
		t.Errorf("state %s (warning %v, %s) after 6 productive iterations, want CLOSED without a warning\nstderr:\n%s", st.State, st.Warning, st.Detector, res.stderr)
	}
	if strings.Contains(res.stderr, "warning") || strings.Contains(res.stderr, "OPEN") {
		t.Errorf("a productive agent was warned or stopped:\n%s", res.stderr)
	}
}

// The README's Go program builds in a module of its own that requires
// this one, and stops its stuck stand-in agent at iteration 3.
func TestREADMEGoQuickStart(t *testing.T) {
	need(t, "go")
	program := fencedBlock(t, readDoc(t, "README.md"), "quickstart:go")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "main.go"), program)
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/quickstart\n\ngo 1.26.0\n\n"+
		"require github.com/loopbreaker/loopbreaker v0.0.0\n\n"+
		"replace github.com/loopbreaker/loopbreaker => "+root+"\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "go.sum"), string(sum))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's program: %v\n%s", err, out)
	}
	got := string(out)
	if !strings.Contains(got, "iteration 2: tell the agent: warning: no progress in 2 consecutive iterations") ||
		!strings.Contains(got, "iteration 3: stop: no progress in 3 consecutive iterations") {
		t.Errorf("the README says it warns at iteration 2 and stops at 3; it printed:\n%s", got)
	}
}

// The README's hook block installs the hooks of the three CLIs in the
// project, each calling this loopbreaker binary.
func TestREADMEHookQuickStart(t *testing.T) {
	need(t, "bash", "git")
	block := fencedBlock(t, readDoc(t, "README.md"), "quickstart:hooks")
	env := userEnv(t)
	dir := newRepo(t, env)

	res := runShell(t, dir, env, "set -e\n"+block, time.Minute)
	if res.code != 0 {
		t.Fatalf("the hook block exited %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for file, tool := range map[string]string{
		".claude/settings.json": "claude",
		".codex/hooks.json":     "codex",
		".gemini/settings.json": "gemini",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s is not JSON: %v", file, err)
		}
		if !strings.Contains(string(b), "loopbreaker hook "+tool) {
			t.Errorf("%s has no `loopbreaker hook %s` handler:\n%s", file, tool, b)
		}
	}
}

// The README's `loopbreaker run` block, and the two variants for the other
// CLIs it names, run a (stand-in) agent with the prompt in its place and
// stop it with exit 2 when it changes nothing.
func TestREADMERunQuickStart(t *testing.T) {
	need(t, "bash", "git")
	readme := readDoc(t, "README.md")
	block := fencedBlock(t, readme, "quickstart:run")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	runLine := lines[len(lines)-1]
	i := strings.Index(runLine, " -- ")
	if !strings.HasPrefix(runLine, "loopbreaker run ") || i < 0 {
		t.Fatalf("the block's last line is not a `loopbreaker run ... -- CMD` line: %q", runLine)
	}
	// The block runs claude; the text after it names the codex and gemini
	// commands that take its place.
	variants := map[string]string{"claude": block}
	setup := strings.Join(lines[:len(lines)-1], "\n") + "\n"
	for _, m := range regexp.MustCompile("`-- ((codex|gemini) [^`]*)`").FindAllStringSubmatch(readme, -1) {
		variants[m[2]] = setup + runLine[:i] + " -- " + m[1] + "\n"
	}
	if len(variants) != 3 {
		t.Fatalf("found the run lines of %d CLIs, want claude, codex and gemini", len(variants))
	}
	for tool, script := range variants {
		t.Run(tool, func(t *testing.T) {
			agents := t.TempDir()
			argsLog := filepath.Join(agents, "args")
			// A stuck stand-in for the CLI: it logs its arguments, one
			// per line, and changes nothing.
			writeFile(t, filepath.Join(agents, tool), `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >>"`+argsLog+`"
echo ---- >>"`+argsLog+`"
echo "`+tool+`: I looked at the tests; nothing to change"
exit 0
`)
			env := userEnv(t, agents)
			dir := newRepo(t, env)
			res := runShell(t, dir, env, script, 2*time.Minute)
			if res.code != 2 {
				t.Fatalf("exit %d, want 2 (loopbreaker stopped the agent)\nstderr:\n%s", res.code, res.stderr)
			}
			b, err := os.ReadFile(argsLog)
			if err != nil {
				t.Fatal(err)
			}
			runs := strings.Split(strings.TrimSuffix(string(b), "----\n"), "----\n")
			if len(runs) != 3 {
				t.Errorf("the agent ran %d times, want 3", len(runs))
			}
			prompt, err := os.ReadFile(filepath.Join(dir, "PROMPT.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(runs[0], strings.TrimSpace(string(prompt))+"\n") {
				t.Errorf("the prompt did not reach the agent as one argument; its arguments:\n%s", runs[0])
			}
			if !strings.Contains(res.stdout, "no progress in 3 consecutive iterations") {
				t.Errorf("no report on stdout:\n%s", res.stdout)
			}
		})
	}
}

// The README's server block and the server page's example run against a
// real `loopbreaker serve` on 127.0.0.1 (on a free port instead of 7777)
// and get the answers they show.
func TestServerExamples(t *testing.T) {
	need(t, "bash", "curl", "jq")
	for _, c := range []struct {
		doc, marker string
		want        []string
	}{
		{"README.md", "quickstart:server", []string{
			`{"allowed":true,"state":"CLOSED"}`,
			`{"allowed":true,"state":"CLOSED"}`,
			`{"scope":"agent:bob","state":"CLOSED","failures":1}`,
		}},
		{"docs/server.md", "example:server-api", []string{
			`{"allowed":true,"state":"CLOSED"}`,
			`{"allowed":true,"state":"CLOSED"}`,
			`{"scope":"agent:bob","state":"CLOSED","failures":1}`,
			`{"scope":"agent:bob","state":"HALF_OPEN"}`,
		}},
	} {
		t.Run(c.marker, func(t *testing.T) {
			block := fencedBlock(t, readDoc(t, c.doc), c.marker)
			if !strings.Contains(block, "127.0.0.1:7777") {
				t.Fatalf("the block does not use 127.0.0.1:7777")
			}
			addr := freeAddr(t)
			env := append(userEnv(t), "LOOPBREAKER_SERVER_ADDR="+addr)
			dir := t.TempDir()
			res := runShell(t, dir, env, strings.ReplaceAll(block, "127.0.0.1:7777", addr), time.Minute)
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			got := strings.Split(strings.TrimSpace(res.stdout), "\n")
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("the block printed:\n%s\nwant:\n%s\nstderr:\n%s", res.stdout, strings.Join(c.want, "\n"), res.stderr)
			}
			if !strings.Contains(res.stderr, "loopbreaker: stopped") {
				t.Errorf("the server did not shut down cleanly:\n%s", res.stderr)
			}
		})
	}
}

// What the docs say about curl without a Content-Type: 415.
func TestCurlWithoutContentTypeIs415(t *testing.T) {
	need(t, "bash", "curl")
	addr := freeAddr(t)
	env := append(userEnv(t), "LOOPBREAKER_SERVER_ADDR="+addr)
	script := `loopbreaker serve 2>/dev/null & server=$!
until curl -sf ` + addr + `/healthz >/dev/null; do sleep 0.1; done
curl -s -o /dev/null -w '%{http_code}\n' ` + addr + `/v1/check -d '{"context":{"agent_id":"bob"}}'
curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' ` + addr + `/v1/check -d '{"context":{"agent_id":"bob"}}'
kill $server; wait $server
`
	res := runShell(t, t.TempDir(), env, script, time.Minute)
	if got := strings.Fields(res.stdout); len(got) != 2 || got[0] != "415" || got[1] != "200" {
		t.Errorf("status codes %v, want [415 200] (docs/server.md says curl -d needs the JSON header)\n%s", got, res.stderr)
	}
}
