package transcript_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// The fixtures: the agent CLIs' own files from real runs against the fake
// model servers, a journal written by loopbreaker, and, for the formats of
// agents that cannot run here (SWE-agent, mini-swe-agent, Harbor's ATIF),
// sessions written for these tests in those formats (fishing, the same
// edit twice and a missing compiler; a mini-swe-agent run whose
// submission is no step; Harbor's [metadata] and [error] trailers). The
// public runs of those agents are read by BenchmarkCalibration from the
// set scripts/calibration-fetch builds (docs/replay.md).
func TestReadersOnSessions(t *testing.T) {
	for _, tc := range []struct {
		file      string
		format    transcript.Format
		id        string
		calls     int
		turns     int
		firstTool string
		failed    int // calls recorded as failed by hook.BuildToolCall
		edits     int
	}{
		{"claude-transcript-stuck.jsonl", transcript.Format("claude"), "9d71e8ed-1151-4195-b1b8-bfbaab58486b", 30, 1, "Bash", 15, 14},
		{"claude-stream-stuck.jsonl", transcript.Format("claude"), "9d71e8ed-1151-4195-b1b8-bfbaab58486b", 30, 1, "Bash", 15, 14},
		{"claude-transcript-productive.jsonl", transcript.Format("claude"), "7d96c563-5239-41ca-8fbd-e84f099863cf", 10, 1, "", -1, -1},
		{"rollout-codex-stuck.jsonl", transcript.Format("codex"), "01a20b74-ad98-7cb1-9060-1d61f93fc167", 30, 1, "Bash", -1, 15},
		{"rollout-codex-stuck-cat.jsonl", transcript.Format("codex"), "", 10, 1, "Bash", 0, 0},
		{"gemini-chat-stuck.jsonl", transcript.Format("gemini"), "ac39ebfd-eb0c-4ee7-aea1-aa5722cfead5", 9, 1, "write_file", 4, 5},
		// Two failing go test runs, a failing edit and a missing file.
		{"qwen-chat-calc.jsonl", transcript.Format("qwen"), "d79f3bae-89c1-46d3-988c-5ecff95afde6", 7, 1, "run_shell_command", 4, 2},
		// A timed-out go test, a patch that does not apply, then two
		// files read in turn until loopbreaker cancelled the run (the
		// last call has no result; its warning is a message of its own).
		{"cline-messages-cycle-guarded.json", transcript.Format("cline"), "1795808816805_s4hg3", 11, 1, "run_commands", 2, 0},
		// A failing go test (exit 1 in the shell's status line), three
		// edits whose text is not found; the two calls the hook denied
		// after them are left out.
		{"copilot-events-failing-edit.jsonl", transcript.Format("copilot"), "", 4, 1, "bash", 4, 0},
		{"copilot-events-cycle-guarded.jsonl", transcript.Format("copilot"), "", 10, 1, "view", 0, 0},
		// Two failing go test runs around two fixes, a failed edit, a
		// missing file, an unknown tool, then the tests pass.
		{"pi-session-calc.jsonl", transcript.Format("pi"), "01a21e74-ff67-76d9-94ee-b661f7cb249c", 10, 1, "bash", 5, 3},
		// A failing go test, a read, a missing file, a failed edit, echoes.
		{"opencode-export-calc.json", transcript.Format("opencode"), "ses_de1898a1affelPhUgXWapfWedf", 8, 1, "bash", 3, 0},
		{"swe-agent-calc-java.traj", transcript.FormatSWEAgent, "swe-agent-calc-java", 10, 1, "Bash", 2, 2},
		{"mini-swe-agent-calc.traj.json", transcript.FormatMiniSWE, "calc__calc-1", 5, 1, "Bash", 1, 1},
		{"loopbreaker-journal.jsonl", transcript.FormatLoopbreaker, "session:default", 0, 0, "", -1, -1},
		{"atif-calc.trajectory.json", transcript.FormatATIF, "atif-calc-harbor-trailers", 6, 2, "Read", 2, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := transcript.Read(filepath.Join("testdata", tc.file), all.Transcripts())
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tc.format || tc.id != "" && s.ID != tc.id {
				t.Fatalf("format %s id %s, want %s %s", s.Format, s.ID, tc.format, tc.id)
			}
			if got := s.Calls(); got != tc.calls {
				t.Errorf("%d calls, want %d", got, tc.calls)
			}
			turns, failed, edits, events := 0, 0, 0, 0
			first := ""
			for _, st := range s.Steps {
				switch {
				case st.TurnEnd:
					turns++
				case st.Event != nil:
					events++
				case st.Call != nil:
					if first == "" {
						first = st.Call.ToolName
					}
					if st.Call.Kind != hook.KindPostTool {
						t.Errorf("call %s is a %v payload, want a post-tool one", st.Call.ToolName, st.Call.Kind)
					}
					tcall := hook.BuildToolCall(st.Call, "", "")
					if tcall.Error != nil {
						failed++
					}
					if tcall.Edit || st.Edit && tcall.Error == nil {
						edits++
					}
				}
			}
			if turns != tc.turns {
				t.Errorf("%d turn ends, want %d", turns, tc.turns)
			}
			if tc.firstTool != "" && first != tc.firstTool {
				t.Errorf("first tool %q, want %q", first, tc.firstTool)
			}
			if tc.failed >= 0 && failed != tc.failed {
				t.Errorf("%d failed calls, want %d", failed, tc.failed)
			}
			if tc.edits >= 0 && edits != tc.edits {
				t.Errorf("%d edits, want %d", edits, tc.edits)
			}
			if tc.format == transcript.FormatLoopbreaker && events != 4 {
				t.Errorf("%d journal events, want the 4 recorded iterations", events)
			}
		})
	}
}

// The journal's events come back as applied, with their own kind and data.
func TestJournalEventsAsRecorded(t *testing.T) {
	s, err := transcript.Read("testdata/loopbreaker-journal.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Steps {
		if st.Event.Kind != lb.EventIteration || st.Event.Iteration == nil || len(st.Event.Iteration.Errors) != 1 {
			t.Fatalf("event %+v: want an iteration with its one error", st.Event)
		}
	}
}

func TestUnknownAndBrokenFiles(t *testing.T) {
	for name, data := range map[string]string{
		"empty":             "",
		"text":              "hello\nworld\n",
		"other json":        `{"name": "package.json", "version": "1.0.0"}`,
		"other jsonl":       "{\"a\":1}\n{\"b\":2}\n",
		"loopbreaker state": `{"version":1,"state":{"scope":"session:x"}}`,
	} {
		if _, err := transcript.Parse(name, []byte(data), all.Transcripts()); !errors.Is(err, transcript.ErrUnknownFormat) {
			t.Errorf("%s: got %v, want ErrUnknownFormat", name, err)
		}
	}
	// A known format whose content is unusable says which file and format.
	_, err := transcript.Parse("x.traj.json", []byte(`{"trajectory_format":"mini-swe-agent-1","messages":[{"role":"user","content":"hi"}],"info":{}}`), all.Transcripts())
	if err == nil || errors.Is(err, transcript.ErrUnknownFormat) {
		t.Fatalf("got %v, want an error naming the mini-swe-agent file", err)
	}
	// A half-written last line (a session still being written) is skipped.
	s, err := transcript.Parse("cut.jsonl", []byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"go"}}`+"\n"+`{"type":"assistant","message":{"role":"assis`), all.Transcripts())
	if err != nil || s.ID != "s" {
		t.Fatalf("got %v, %+v", err, s)
	}
}

// Harbor adds a "[metadata] {...}" line to each result, with durations
// (durationMs), and "[error] tool reported failure" to a failed one: the
// same output twice is the same result, and the failure is a failed call.
func TestHarborTrailers(t *testing.T) {
	step := func(id, name, args, content string) string {
		return `{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"` + id + `","function_name":"` + name + `","arguments":` + args + `}],` +
			`"observation":{"results":[{"source_call_id":"` + id + `","content":` + strconv.Quote(content) + `}]}}`
	}
	out := "<status>running</status>\n\n<stdout>\nWorker 0 started\n</stdout>"
	doc := `{"schema_version":"ATIF-v1.2","session_id":"h","steps":[{"step_id":0,"source":"user","message":"go"},` +
		step("a", "BashOutput", `{"bash_id":"c4"}`, out+"\n[metadata] {\"shellId\": \"c4\", \"stdoutLines\": 1, \"durationMs\": 62}") + `,` +
		step("b", "BashOutput", `{"bash_id":"c4"}`, out+"\n[metadata] {\"shellId\": \"c4\", \"stdoutLines\": 1, \"durationMs\": 48}") + `,` +
		step("c", "Edit", `{"file_path":"/app/q.py","old_string":"x","new_string":"y"}`, "<tool_use_error>String to replace not found in file.</tool_use_error>\n\n[error] tool reported failure") + `]}`
	s, err := transcript.Parse("trajectory.json", []byte(doc), all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	var calls []lb.ToolCall
	for _, st := range s.Steps {
		if st.Call != nil {
			calls = append(calls, hook.BuildToolCall(st.Call, "", ""))
		}
	}
	if len(calls) != 3 || calls[0].ResultHash != calls[1].ResultHash || calls[0].Error != nil {
		t.Fatalf("two polls with the same output: %+v", calls)
	}
	if calls[2].Error == nil || calls[2].Edit || strings.Contains(calls[2].Error.Raw, "[error]") {
		t.Fatalf("the failed edit: %+v, want a failed call without Harbor's trailer", calls[2])
	}
}

// SWE-agent records no exit status: an observation that is nothing but
// the shell's own errors is a failed command; any other output is not.
func TestSWEAgentShellErrors(t *testing.T) {
	doc := `{"trajectory":[` +
		`{"action":"javac Repro.java\n","observation":"/bin/bash: line 4149: javac: command not found"},` +
		`{"action":"DISCUSSION\nLet's try again.\n","observation":"/bin/bash: line 2: unexpected EOF while looking for matching ` + "`''" + `\n/bin/bash: line 4: syntax error: unexpected end of file"},` +
		`{"action":"sudo yum install maven\n","observation":"sudo: yum: command not found"},` +
		`{"action":"ls\n","observation":"README.md\npom.xml"},` +
		`{"action":"find_file \"x\"\n","observation":"No matches found for \"x\" in /repo"}` +
		`],"info":{"exit_status":"exit_cost"}}`
	s, err := transcript.Parse("run.traj", []byte(doc), all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	var failed []bool
	for _, st := range s.Steps {
		if st.Call != nil {
			failed = append(failed, hook.BuildToolCall(st.Call, "", "").Error != nil)
		}
	}
	want := []bool{true, true, true, false, false}
	if fmt.Sprint(failed) != fmt.Sprint(want) {
		t.Fatalf("failed calls %v, want %v", failed, want)
	}
}

// A Skill load is part of its turn: Claude Code writes the skill's text as
// a user message after the Skill call's result (with the turn's promptId
// in 2.1, without it before), and no hook sees a prompt there. Only the
// person's next prompt starts a turn.
func TestClaudeSkillLoadIsPartOfItsTurn(t *testing.T) {
	lines := []string{
		`{"type":"user","promptId":"p1","sessionId":"s","message":{"role":"user","content":"tidy the history"}}`,
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"jj"}}]}}`,
		`{"type":"user","promptId":"p1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Launching skill: jj"}]}}`,
		`{"type":"user","promptId":"p1","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /home/u/.claude/skills/jj\n\n# jj\nUse jj log."}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"jj log"}}]}}`,
		`{"type":"user","promptId":"p1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"@ abc"}]}}`,
		// An older version: no promptId, the skill's text right after the
		// Skill call's result.
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Skill","input":{"skill":"review"}}]}}`,
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"Launching skill: review"}]}}`,
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"Review the change for mistakes."}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}`,
		`{"type":"user","promptId":"p2","sessionId":"s","message":{"role":"user","content":"now push it"}}`,
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"jj git push"}}]}}`,
		`{"type":"user","promptId":"p2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"pushed"}]}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(path, all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	calls, turns := 0, 0
	for _, st := range s.Steps {
		switch {
		case st.TurnEnd:
			turns++
		case st.Call != nil:
			calls++
		}
	}
	if calls != 4 || turns != 2 {
		t.Fatalf("%d calls in %d turns, want 4 calls in 2 turns (the prompt, then the next prompt)", calls, turns)
	}
}
