package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Wrap puts the hook-call logger in dir as dir/loopbreaker (the name
// `hook install --command` and `hook uninstall` recognise), running the
// real loopbreaker of bins and logging to dir/hook-calls.jsonl. It
// returns the command to install and the log's path.
func Wrap(t testing.TB, bins Binaries, dir string) (command, log string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	command = filepath.Join(dir, "loopbreaker")
	log = filepath.Join(dir, "hook-calls.jsonl")
	exe, err := os.ReadFile(bins.HookWrap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(command, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(log+notifySuffix, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]string{"real": bins.Loopbreaker, "log": log, "notify": log + notifySuffix, "client": bins.HookClient})
	if err := os.WriteFile(command+".wrap.json", cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if bins.HookClient != "" {
		t.Cleanup(func() { assertThroughClient(t, log) })
	}
	return command, log
}

// assertThroughClient fails the test when one of its hook calls was not
// answered by the resident breaker: the client fell back to the
// in-process hook (it says so on stderr, once per agent session) or could
// not run it. The client tier counts a CLI as passing through the client
// only when every call did.
func assertThroughClient(t testing.TB, log string) {
	calls, err := ReadCalls(log)
	if err != nil {
		t.Error(err)
		return
	}
	for _, c := range calls {
		if i := strings.Index(c.Stderr, "loopbreaker-hook: "); i >= 0 {
			t.Errorf("a %s call was not answered by the resident breaker: %s", c.Event, strings.TrimSpace(c.Stderr[i:]))
		}
	}
}

// notifySuffix names the FIFO beside a hook-call log that the logger
// signals after each call it logs (WaitForCall).
const notifySuffix = ".fifo"

// WaitForCall waits until the hook-call log holds a call, after its first
// `after`, that match accepts, and reports whether one came: for a call an
// agent CLI makes after its process ends (a detached hook). The logger
// signals each call on the FIFO beside the log, so nothing is polled;
// limit only bounds a hang.
func WaitForCall(t testing.TB, log string, after int, match func(Call) bool, limit time.Duration) bool {
	t.Helper()
	// The reader first, then the log: a call logged before the reader
	// opened is in the log, one after it signals.
	r, err := os.OpenFile(log+notifySuffix, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A writer of our own: a read waits for a signal instead of ending
	// when the last logger closes the FIFO.
	w, err := os.OpenFile(log+notifySuffix, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := r.SetReadDeadline(time.Now().Add(limit)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	for {
		calls := MustReadCalls(t, log)
		for _, c := range calls[min(after, len(calls)):] {
			if match(c) {
				return true
			}
		}
		if _, err := r.Read(buf); err != nil {
			return false
		}
	}
}

// Call is one hook call as the logger saw it.
type Call struct {
	Start   time.Time       `json:"start"`
	Ms      float64         `json:"ms"`
	Args    []string        `json:"args"`
	Cwd     string          `json:"cwd"`
	Payload json.RawMessage `json:"payload"`
	Raw     string          `json:"raw"`
	Stdout  string          `json:"stdout"`
	Stderr  string          `json:"stderr"`
	Exit    int             `json:"exit"`

	// From the payload.
	Event     string          `json:"-"`
	ToolName  string          `json:"-"`
	ToolUseID string          `json:"-"`
	ToolInput json.RawMessage `json:"-"`
	// Answer is loopbreaker's stdout, decoded.
	Answer Answer `json:"-"`
}

// Answer is what a hook answer asks of the CLI, whatever the tool's
// dialect.
type Answer struct {
	// Stop: continue:false.
	Stop bool
	// Deny: the call or prompt is refused (permissionDecision deny,
	// decision deny or block).
	Deny bool
	// Context is additionalContext: text for the model.
	Context string
	// Reason is the first non-empty of stopReason, reason,
	// permissionDecisionReason.
	Reason string
	// SystemMessage is for the person.
	SystemMessage string
}

// Show is a call for a test's message: its event, tool and answer;
// "none" for nil.
func Show(c *Call) string {
	if c == nil {
		return "none"
	}
	return c.Event + " " + c.ToolName + " answered " + strings.TrimSpace(c.Stdout)
}

// Empty reports whether the answer asks nothing.
func (a Answer) Empty() bool { return a == Answer{} }

// Text is every text of the answer, for matching.
func (a Answer) Text() string {
	return strings.Join([]string{a.Context, a.Reason, a.SystemMessage}, "\n")
}

type wireAnswer struct {
	// Cline's words: cancel ends the run, contextModification is for the
	// model, errorMessage the reason.
	Cancel              *bool  `json:"cancel"`
	ContextModification string `json:"contextModification"`
	ErrorMessage        string `json:"errorMessage"`
	// Copilot CLI's answers are flat.
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	AdditionalContext        string `json:"additionalContext"`

	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
	HookSpecific  *struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func decodeAnswer(stdout string) (Answer, error) {
	var a Answer
	s := strings.TrimSpace(stdout)
	if s == "" {
		return a, nil
	}
	var w wireAnswer
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return a, err
	}
	a.Stop = w.Continue != nil && !*w.Continue || w.Cancel != nil && *w.Cancel
	a.Deny = w.Decision == "deny" || w.Decision == "block" || w.PermissionDecision == "deny"
	a.SystemMessage = w.SystemMessage
	a.Context = w.AdditionalContext
	if a.Context == "" {
		a.Context = w.ContextModification
	}
	for _, r := range []string{w.StopReason, w.Reason, w.PermissionDecisionReason, w.ErrorMessage} {
		if a.Reason == "" {
			a.Reason = r
		}
	}
	if h := w.HookSpecific; h != nil {
		a.Deny = a.Deny || h.PermissionDecision == "deny"
		if h.AdditionalContext != "" {
			a.Context = h.AdditionalContext
		}
		if a.Reason == "" {
			a.Reason = h.PermissionDecisionReason
		}
	}
	return a, nil
}

// ReadCalls reads the logger's log, ordered by start time. A missing log
// is no calls.
func ReadCalls(log string) ([]Call, error) {
	f, err := os.Open(log)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", log, n, err)
		}
		var p struct {
			Event     string          `json:"hook_event_name"`
			ToolName  string          `json:"tool_name"`
			ToolUseID string          `json:"tool_use_id"`
			ToolInput json.RawMessage `json:"tool_input"`
			// Copilot CLI's names; its command names the event.
			CopilotTool string          `json:"toolName"`
			CopilotArgs json.RawMessage `json:"toolArgs"`
		}
		if len(c.Payload) > 0 {
			json.Unmarshal(c.Payload, &p)
		}
		if len(c.Args) >= 3 && c.Args[0] == "hook" && c.Args[1] == "copilot" {
			p.Event, p.ToolName, p.ToolInput = c.Args[2], p.CopilotTool, p.CopilotArgs
		}
		c.Event, c.ToolName, c.ToolUseID, c.ToolInput = p.Event, p.ToolName, p.ToolUseID, p.ToolInput
		if len(c.Args) >= 3 && c.Args[0] == "hook" && c.Args[1] == "cline" {
			clineCall(&c)
		}
		if c.Answer, err = decodeAnswer(c.Stdout); err != nil {
			return nil, fmt.Errorf("%s:%d: loopbreaker's answer is not JSON: %v: %q", log, n, err, c.Stdout)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Start.Before(calls[j].Start) })
	return calls, nil
}

// Missing lists the events of want that no call of calls is of, with
// how many calls each event had, for a test's message.
func Missing(calls []Call, want ...string) (missing []string, seen map[string]int) {
	seen = map[string]int{}
	for _, c := range calls {
		seen[c.Event]++
	}
	for _, e := range want {
		if seen[e] == 0 {
			missing = append(missing, e)
		}
	}
	return missing, seen
}

// Latencies are the durations of calls in milliseconds, sorted.
func Latencies(calls []Call) []float64 {
	ms := make([]float64, len(calls))
	for i, c := range calls {
		ms[i] = c.Ms
	}
	sort.Float64s(ms)
	return ms
}

// Quantile is the q-quantile (0..1) of sorted values, nearest rank.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// MustReadCalls is ReadCalls failing the test on error.
func MustReadCalls(t testing.TB, log string) []Call {
	t.Helper()
	calls, err := ReadCalls(log)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// Hold says which PreToolUse call the logger holds back, and how long.
type Hold struct {
	// Call is a string in the payload of the calls it may hold; Nth
	// picks the nth of them (each one when 0).
	Call string
	Nth  int
	// Posts is how many PostToolUse calls must be logged, after the held
	// call began, before it goes on (1 when 0).
	Posts int
	// Event and After are the CLI's pre-tool and post-tool events
	// (PreToolUse and PostToolUse when "").
	Event, After string
}

// HoldPreToolUse makes the logger Wrap installed as command hold a
// PreToolUse call back until other calls reported: the call is announced
// after calls of its batch reported, the order a busy machine may give
// hooks that the CLI starts at once.
func HoldPreToolUse(t testing.TB, command string, h Hold) {
	t.Helper()
	b, err := os.ReadFile(command + ".wrap.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["hold_pre"], cfg["hold_nth"], cfg["hold_posts"] = h.Call, h.Nth, h.Posts
	cfg["hold_event"], cfg["hold_after"] = h.Event, h.After
	if b, err = json.Marshal(cfg); err == nil {
		err = os.WriteFile(command+".wrap.json", b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// BatchOrders runs f as three subtests of t: name, with the hooks in the
// order the CLI gives them (late 0); name-announced-late, with one call of
// a batch announced after another call of its batch reported (late 1);
// and name-announced-last, after the three others reported (late 3). f
// holds the call back with HoldPreToolUse. Whatever the order, a call is
// of the batch its model message made.
func BatchOrders(t *testing.T, name string, f func(t *testing.T, late int)) {
	t.Helper()
	for _, v := range []struct {
		suffix string
		late   int
	}{{"", 0}, {"-announced-late", 1}, {"-announced-last", 3}} {
		t.Run(name+v.suffix, func(t *testing.T) { f(t, v.late) })
	}
}
