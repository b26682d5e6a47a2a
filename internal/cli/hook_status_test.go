package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// realCodexDir is the directory of the pinned Codex CLI, or the test is
// skipped with the reason.
func realCodexDir(t *testing.T) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, ".cache", "loopbreaker", "agents", "codex-0.169.0", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(dir, "codex")); err != nil {
		t.Skipf("the real Codex CLI 0.169.0 is not installed in %s (the end-to-end tier installs it)", dir)
	}
	return dir
}

// The Codex trust trap, with the real Codex: hooks installed without
// saved trust make `codex exec` run unguarded and silent; `hook status`
// flags that session. `hook install codex --trust-project` saves the trust
// through codex app-server, and the next plain `codex exec` (no bypass
// flag) runs loopbreaker's hooks.
func TestCodexTrustWithTheRealCodex(t *testing.T) {
	codexDir := realCodexDir(t)
	bin, err := exec.LookPath("loopbreaker") // the test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	project := filepath.Join(root, "repo")
	codexHome := filepath.Join(root, "codex-home")
	os.MkdirAll(project, 0o755)
	os.MkdirAll(codexHome, 0o755)

	// The model: every request fails at once, so that `codex exec` ends
	// right after the hooks of the session start and the prompt ran.
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"no model here","type":"invalid_request_error"}}`))
	}))
	defer model.Close()
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(`model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
[model_providers.fake]
name = "fake"
base_url = "`+model.URL+`/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
`), 0o644)

	// A loopbreaker that logs each call, then runs the real one.
	wrapDir := filepath.Join(root, "wrap")
	os.MkdirAll(wrapDir, 0o755)
	calls := filepath.Join(root, "calls.log")
	wrapper := filepath.Join(wrapDir, "loopbreaker")
	os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$*\" >>"+calls+"\nexec "+bin+" \"$@\"\n"), 0o755)

	env := append(os.Environ(),
		"HOME="+root, "CODEX_HOME="+codexHome, "FAKE_OPENAI_API_KEY=sk-fake",
		"PATH="+codexDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CONFIG_HOME="+filepath.Join(root, ".xdg"), "LOOPBREAKER_SESSION=", "CODEX_CI=1",
	)
	lb := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("loopbreaker %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	codexExec := func() {
		t.Helper()
		cmd := exec.Command(filepath.Join(codexDir, "codex"), "exec", "--skip-git-repo-check", "-C", project, "say hi")
		cmd.Dir, cmd.Env = project, env
		cmd.Stdin = strings.NewReader("")
		done := make(chan struct{})
		var out []byte
		go func() { out, _ = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("codex exec did not end:\n%s", out)
		}
	}
	countCalls := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "hook codex")
	}

	lb("init")
	out := lb("hook", "install", "codex", "--trust=false", "--command", wrapper)
	if !strings.Contains(out, "next: Codex skips new or changed hooks until they are trusted") {
		t.Fatalf("install without trust:\n%s", out)
	}
	// The project is trusted by hand; the hooks are not.
	f, _ := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[projects.\"" + hookinstall.CanonicalPath(project) + "\"]\ntrust_level = \"trusted\"\n")
	f.Close()
	codexExec()
	if n := countCalls(); n != 0 {
		t.Fatalf("untrusted hooks ran %d times", n)
	}
	status := lb("hook", "status")
	if !strings.Contains(status, "ran in this project after the install with NO hook call") ||
		!strings.Contains(status, "hooks NOT trusted or disabled") {
		t.Errorf("status after an unguarded codex session:\n%s", status)
	}

	out = lb("hook", "install", "codex", "--trust-project", "--command", wrapper)
	if !strings.Contains(out, "codex: trusted 5 hooks in "+filepath.Join(codexHome, "config.toml")) {
		t.Fatalf("install with trust:\n%s", out)
	}
	codexExec()
	if n := countCalls(); n < 2 {
		t.Fatalf("trusted hooks ran %d times; want SessionStart and UserPromptSubmit at least", n)
	}
	var rep hookStatusReport
	if err := json.Unmarshal([]byte(lb("hook", "status", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	for _, ts := range rep.Tools {
		if ts.Tool == "codex" && (ts.Version != "0.169.0" || !strings.Contains(ts.Trust, "project: trusted (5 hooks)")) {
			t.Errorf("status: %+v", ts)
		}
	}
}

// An installed hook whose loopbreaker was deleted does nothing but warn:
// exit 0, a systemMessage the CLI shows; with the binary there it answers.
func TestInstalledHookWithTheBinaryDeleted(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	project := filepath.Join(root, "proj")
	os.MkdirAll(project, 0o755)
	os.WriteFile(filepath.Join(project, "loopbreaker.yaml"), nil, 0o644)
	copyBin := filepath.Join(root, "opt", "loopbreaker")
	os.MkdirAll(filepath.Dir(copyBin), 0o755)
	b, _ := os.ReadFile(bin)
	os.WriteFile(copyBin, b, 0o755)
	payload, err := os.ReadFile("../../hook/testdata/gemini/BeforeTool-run_shell_command.json")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".xdg"), "LOOPBREAKER_SESSION=")
	install := exec.Command(copyBin, "hook", "install", "gemini", "--command", copyBin)
	install.Dir, install.Env = project, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, _ := os.ReadFile(filepath.Join(project, ".gemini", "settings.json"))
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	json.Unmarshal(data, &settings)
	command := settings.Hooks["BeforeTool"][0].Hooks[0].Command
	run := func() (string, string, int) {
		cmd := exec.Command("bash", "-c", command) // as Gemini CLI runs it
		cmd.Dir, cmd.Env = project, env
		cmd.Stdin = strings.NewReader(string(payload))
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return o.String(), e.String(), code
	}
	if out, errOut, code := run(); code != 0 || strings.Contains(out, "UNGUARDED") {
		t.Fatalf("binary there: exit %d out %q err %q", code, out, errOut)
	}
	os.Remove(copyBin)
	out, errOut, code := run()
	var ans struct{ SystemMessage string }
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil || !strings.Contains(ans.SystemMessage, copyBin+" is missing (moved or deleted?)") {
		t.Fatalf("binary deleted: exit %d out %q err %q", code, out, errOut)
	}
	// Uninstall (by another binary) still recognises the guarded hooks.
	un := exec.Command(bin, "hook", "uninstall", "gemini")
	un.Dir, un.Env = project, env
	if out, err := un.CombinedOutput(); err != nil || !strings.Contains(string(out), "removed loopbreaker hooks") {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(project, ".gemini")); err == nil {
		t.Error("uninstall left .gemini behind")
	}
}

// A CLI whose headless run shows no hook's reason is said to be one where
// loopbreaker's hooks are installed, with where the person finds the
// reason; one that shows it is not.
func TestHookStatusSaysWhereAHaltIsNotShown(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loopbreaker.yaml"), nil, 0o644)
	for _, tool := range []string{"claude", "gemini"} {
		if code, out, errOut := runCLI(t, dir, "hook", "install", tool); code != 0 {
			t.Fatalf("hook install %s: exit %d\n%s%s", tool, code, out, errOut)
		}
	}
	rep := hookStatusJSON(t, dir, "/")
	unseen := map[string]string{}
	for _, ts := range rep.Tools {
		unseen[string(ts.Tool)] = ts.HaltUnseen
	}
	if !strings.Contains(unseen["claude"], "claude -p") || unseen["gemini"] != "" || unseen["droid"] != "" || unseen["cline"] != "" {
		t.Errorf("halt_unseen: claude %q, gemini %q, droid (not installed) %q, cline (not installed) %q", unseen["claude"], unseen["gemini"], unseen["droid"], unseen["cline"])
	}
	_, text, _ := runCLI(t, dir, "hook", "status")
	if !strings.Contains(text, "halts:      not shown to the person: `claude -p`") || !strings.Contains(text, "loopbreaker status --session claude") {
		t.Errorf("hook status does not say that Claude Code's halts are not shown:\n%s", text)
	}
	if strings.Count(text, "halts:") != 1 {
		t.Errorf("hook status says halts are not shown for more than Claude Code:\n%s", text)
	}
}
