package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// Codex runs a hook that is not managed (by an administrator's policy)
// only when CODEX_HOME/config.toml holds its trust:
//
//	[hooks.state."<abs hooks.json>:<snake_event>:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//
// and `codex exec` skips untrusted hooks without a word. The hash is
// Codex's own (over the event, matcher and handler), so loopbreaker asks
// Codex for it: `codex app-server` speaks JSON-RPC over stdio, hooks/list
// gives each hook's key, currentHash and trustStatus, and config/batchWrite
// saves hooks.state."<key>".trusted_hash, exactly what the TUI's "Trust
// all and continue" writes. A project's .codex/hooks.json is loaded (and
// listed) only in a trusted project: [projects."<dir>"] trust_level =
// "trusted", written the same way when asked.

// Hook is one hook as `codex app-server` lists it.
type Hook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	Enabled     bool   `json:"enabled"`
	IsManaged   bool   `json:"isManaged"`
	CurrentHash string `json:"currentHash"`
	// TrustStatus is "trusted", "untrusted" or "modified" (trusted once,
	// changed since).
	TrustStatus string `json:"trustStatus"`
}

// Trusted: Codex runs it (managed hooks need no trust).
func (h Hook) Trusted() bool { return h.IsManaged || h.TrustStatus == "trusted" }

// HookList is hooks/list's answer for one directory.
type HookList struct {
	Cwd      string `json:"cwd"`
	Hooks    []Hook `json:"hooks"`
	Warnings []any  `json:"warnings"`
	Errors   []any  `json:"errors"`
}

// AppServer is a running `codex app-server`.
type AppServer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	lines    chan []byte
	stderr   *tailBuffer
	nextID   int
	waitOnce sync.Once
}

// codexCallTimeout bounds each request: the app-server answers in well
// under a second; a hung one must not hang `hook install`.
const codexCallTimeout = 20 * time.Second

// StartAppServer starts `PROGRAM app-server` with environ (CODEX_HOME
// decides whose configuration it reads and writes) and initializes the
// session.
func StartAppServer(ctx context.Context, program string, environ []string) (*AppServer, error) {
	cmd := exec.Command(program, "app-server")
	cmd.Env = environ
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &AppServer{cmd: cmd, stdin: stdin, lines: make(chan []byte, 16), stderr: &tailBuffer{max: 4096}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s app-server: %w", program, err)
	}
	go func() {
		defer close(s.lines)
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	var init json.RawMessage
	if err := s.call(ctx, "initialize", map[string]any{"clientInfo": map[string]string{"name": "loopbreaker", "version": "1"}}, &init); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *AppServer) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.stdin.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its answer, skipping notifications.
func (s *AppServer) call(ctx context.Context, method string, params, result any) error {
	s.nextID++
	id := s.nextID
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("codex app-server %s: the server exited%s", method, s.exited())
	}
	timer := time.NewTimer(codexCallTimeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return fmt.Errorf("codex app-server %s: no answer in %s%s", method, codexCallTimeout, s.stderr.suffix())
		case line, ok := <-s.lines:
			if !ok {
				return fmt.Errorf("codex app-server %s: the server exited%s", method, s.exited())
			}
			var msg struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id || msg.Method != "" {
				continue // a notification, or a request of the server's
			}
			if msg.Error != nil {
				return fmt.Errorf("codex app-server %s: %s (code %d)", method, msg.Error.Message, msg.Error.Code)
			}
			if result == nil {
				return nil
			}
			return json.Unmarshal(msg.Result, result)
		}
	}
}

// ListHooks is hooks/list for one directory: the hooks Codex would load
// for a session started there (the user's, and the project's when the
// project is trusted).
func (s *AppServer) ListHooks(ctx context.Context, cwd string) (HookList, error) {
	var res struct {
		Data []HookList `json:"data"`
	}
	if err := s.call(ctx, "hooks/list", map[string]any{"cwds": []string{cwd}}, &res); err != nil {
		return HookList{}, err
	}
	if len(res.Data) == 0 {
		return HookList{Cwd: cwd}, nil
	}
	return res.Data[0], nil
}

// configEdit is one edit of config/batchWrite.
type configEdit struct {
	KeyPath       string `json:"keyPath"`
	Value         any    `json:"value"`
	MergeStrategy string `json:"mergeStrategy"`
}

// tomlKey quotes a key segment of a config key path.
func tomlKey(s string) string {
	b, _ := hook.MarshalNoEscape(s)
	return string(b)
}

// Trust saves the trust of hooks (their current hash) in CODEX_HOME/config.toml.
func (s *AppServer) Trust(ctx context.Context, hooks []Hook) error {
	if len(hooks) == 0 {
		return nil
	}
	edits := make([]configEdit, 0, len(hooks))
	for _, h := range hooks {
		edits = append(edits, configEdit{"hooks.state." + tomlKey(h.Key) + ".trusted_hash", h.CurrentHash, "upsert"})
	}
	return s.call(ctx, "config/batchWrite", map[string]any{"edits": edits}, nil)
}

// TrustProject marks dir a trusted project in CODEX_HOME/config.toml, so
// that Codex loads its .codex/ configuration, hooks included.
func (s *AppServer) TrustProject(ctx context.Context, dir string) error {
	edit := configEdit{"projects." + tomlKey(dir) + ".trust_level", "trusted", "upsert"}
	return s.call(ctx, "config/batchWrite", map[string]any{"edits": []configEdit{edit}}, nil)
}

// exited waits for a server that stopped answering (killing it after a
// grace period), so that all it said on stderr is there, and returns that.
func (s *AppServer) exited() string {
	s.wait()
	return s.stderr.suffix()
}

func (s *AppServer) wait() {
	s.waitOnce.Do(func() {
		s.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
		for range s.lines {
		}
	})
}

// Close ends the server: stdin closed, then killed if it lingers.
func (s *AppServer) Close() error {
	s.wait()
	return nil
}

// TrustResult is what TrustHooks found and did.
type TrustResult struct {
	// Hooks are loopbreaker's hooks from the settings file, as Codex
	// lists them after the trust was saved.
	Hooks []Hook
	// Trusted counts the hooks whose trust this call saved.
	Trusted int
	// ProjectTrusted: this call marked the project trusted (it was not).
	ProjectTrusted bool
	// NotListed: Codex does not load the file at all from the project
	// directory (an untrusted project, or hooks switched off).
	NotListed bool
}

// AllTrusted: every hook of loopbreaker's in the file is listed and
// trusted.
func (t TrustResult) AllTrusted() bool {
	if t.NotListed || len(t.Hooks) == 0 {
		return false
	}
	for _, h := range t.Hooks {
		if !h.Trusted() || !h.Enabled {
			return false
		}
	}
	return true
}

// TrustOptions say where and what to trust.
type TrustOptions struct {
	// Program is the codex executable; Environ its environment.
	Program string
	Environ []string
	// Dir is the project directory the hooks are listed from; File the
	// hooks.json loopbreaker's hooks are in.
	Dir, File string
	// Command is loopbreaker's installed command (see IsOurs).
	Command string
	// TrustProject marks Dir a trusted project first. When ConfigFile
	// (CODEX_HOME/config.toml) shows it trusted already, it is left as it
	// is; otherwise the trust added is recorded beside ConfigFile, so that
	// uninstalling takes it back.
	TrustProject bool
	ConfigFile   string
	// ReadOnly lists without saving anything (for `hook status`).
	ReadOnly bool
}

// TrustHooks saves Codex's trust of loopbreaker's hooks in o.File
// through `codex app-server`, and lists them again to check.
func TrustHooks(ctx context.Context, o TrustOptions) (TrustResult, error) {
	var t TrustResult
	s, err := StartAppServer(ctx, o.Program, o.Environ)
	if err != nil {
		return t, err
	}
	defer s.Close()
	dir := hookinstall.CanonicalPath(o.Dir)
	if o.TrustProject && !o.ReadOnly && !(o.ConfigFile != "" && projectTrusted(o.ConfigFile, dir)) {
		if err := s.TrustProject(ctx, dir); err != nil {
			return t, err
		}
		t.ProjectTrusted = true
		if o.ConfigFile != "" {
			if err := recordProjectTrust(o.ConfigFile, dir, true); err != nil {
				return t, err
			}
		}
	}
	ours := func() ([]Hook, error) {
		list, err := s.ListHooks(ctx, dir)
		if err != nil {
			return nil, err
		}
		var out []Hook
		for _, h := range list.Hooks {
			if samePath(h.SourcePath, o.File) && hook.IsOurs("codex", h.Command, o.Command) {
				out = append(out, h)
			}
		}
		return out, nil
	}
	hooks, err := ours()
	if err != nil {
		return t, err
	}
	if len(hooks) == 0 {
		t.NotListed = true
		return t, nil
	}
	var todo []Hook
	for _, h := range hooks {
		if !h.Trusted() {
			todo = append(todo, h)
		}
	}
	if len(todo) == 0 || o.ReadOnly {
		t.Hooks = hooks
		return t, nil
	}
	if err := s.Trust(ctx, todo); err != nil {
		return t, err
	}
	t.Trusted = len(todo)
	if t.Hooks, err = ours(); err != nil {
		return t, err
	}
	return t, nil
}


func samePath(a, b string) bool {
	return a == b || hookinstall.CanonicalPath(a) == hookinstall.CanonicalPath(b)
}

// tailBuffer keeps the last max bytes written (a server's stderr, for
// error messages).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(t.b)), "\n") {
		// Codex's own notice about PATH aliases under /tmp is noise.
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "could not create PATH aliases") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return " (codex said: " + strings.Join(lines, " / ") + ")"
}
