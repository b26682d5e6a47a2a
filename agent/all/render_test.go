package all_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/agent/claude"
	"github.com/loopbreaker/loopbreaker/agent/cline"
	"github.com/loopbreaker/loopbreaker/agent/codex"
	"github.com/loopbreaker/loopbreaker/agent/copilot"
	"github.com/loopbreaker/loopbreaker/agent/gemini"
	"github.com/loopbreaker/loopbreaker/agent/opencode"
	"github.com/loopbreaker/loopbreaker/agent/pi"
	"github.com/loopbreaker/loopbreaker/agent/qwen"
	"github.com/loopbreaker/loopbreaker/hook"
)

// TestRender pins every answer of PROTOCOLS.md §5 to its exact JSON, with
// R = "R".
func TestRender(t *testing.T) {
	const (
		ctxPre      = `"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"R"}`
		denyPre     = `"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}`
		stopFields  = `"continue":false,"stopReason":"R"`
		sys         = `"systemMessage":"R"`
		blockReason = `"decision":"block","reason":"R"`
	)
	ctx := func(event string) string {
		return `"hookSpecificOutput":{"hookEventName":"` + event + `","additionalContext":"R"}`
	}
	obj := func(fields ...string) string { return "{" + strings.Join(fields, ",") + "}\n" }
	tests := []struct {
		tool  agent.Agent
		event string
		o     hook.Outcome
		want  string
	}{
		// Claude Code, §5.1.
		{Claude, "PreToolUse", hook.Allow, ""},
		{Claude, "PreToolUse", hook.Nudge, obj(ctxPre, sys)},
		{Claude, "PreToolUse", hook.Deny, obj(denyPre)},
		{Claude, "PreToolUse", hook.Stop, obj(stopFields, denyPre, sys)},
		{Claude, "PostToolUse", hook.Allow, ""},
		{Claude, "PostToolUse", hook.Nudge, obj(ctx("PostToolUse"))},
		{Claude, "PostToolUse", hook.Deny, obj(ctx("PostToolUse"))},
		{Claude, "PostToolUse", hook.Stop, obj(stopFields, blockReason, sys)},
		{Claude, "PostToolUseFailure", hook.Nudge, obj(ctx("PostToolUseFailure"))},
		// continue:false is ignored here; additionalContext reaches the model.
		{Claude, "PostToolUseFailure", hook.Stop, obj(stopFields, ctx("PostToolUseFailure"), sys)},
		{Claude, "PostToolBatch", hook.Nudge, obj(ctx("PostToolBatch"))},
		{Claude, "PostToolBatch", hook.Stop, obj(stopFields, ctx("PostToolBatch"), sys)},
		{Claude, "UserPromptSubmit", hook.Nudge, obj(ctx("UserPromptSubmit"))},
		{Claude, "UserPromptSubmit", hook.Deny, obj(blockReason)},
		{Claude, "UserPromptSubmit", hook.Stop, obj(blockReason, sys)},
		{Claude, "SessionStart", hook.Nudge, obj(ctx("SessionStart"))},
		{Claude, "SessionStart", hook.Deny, obj(ctx("SessionStart"))},
		{Claude, "SessionStart", hook.Stop, obj(ctx("SessionStart"), sys)},
		{Claude, "Stop", hook.Allow, ""},
		{Claude, "Stop", hook.Nudge, obj(sys)},
		{Claude, "Stop", hook.Deny, ""},
		{Claude, "Stop", hook.Stop, obj(stopFields, sys)},
		{Claude, "SubagentStop", hook.Stop, obj(stopFields, sys)},
		{Claude, "Notification", hook.Stop, ""},
		{Claude, "Notification", hook.Notice, obj(sys)},
		{Claude, "PreToolUse", hook.Notice, obj(sys)},

		// Codex CLI, §5.2: no continue/stopReason on PreToolUse.
		{Codex, "PreToolUse", hook.Allow, ""},
		{Codex, "PreToolUse", hook.Nudge, obj(ctxPre, sys)},
		// No systemMessage beside a reason the TUI shows: the text once.
		{Codex, "PreToolUse", hook.Deny, obj(denyPre)},
		{Codex, "PreToolUse", hook.Stop, obj(denyPre)},
		{Codex, "PostToolUse", hook.Nudge, obj(ctx("PostToolUse"))},
		{Codex, "PostToolUse", hook.Stop, obj(stopFields, `"reason":"R"`)},
		{Codex, "UserPromptSubmit", hook.Deny, obj(blockReason)},
		{Codex, "UserPromptSubmit", hook.Stop, obj(blockReason, sys)},
		{Codex, "SessionStart", hook.Stop, obj(ctx("SessionStart"), sys)},
		{Codex, "Stop", hook.Allow, ""},
		{Codex, "Stop", hook.Nudge, obj(sys)},
		{Codex, "Stop", hook.Deny, ""},
		{Codex, "Stop", hook.Stop, obj(stopFields)},

		// Gemini CLI, §5.3: JSON on every exit 0.
		{Gemini, "BeforeTool", hook.Allow, "{}\n"},
		{Gemini, "BeforeTool", hook.Nudge, obj(sys)},
		{Gemini, "BeforeTool", hook.Deny, obj(`"decision":"deny","reason":"R"`)},
		{Gemini, "BeforeTool", hook.Stop, obj(stopFields, `"decision":"deny","reason":"R"`, sys)},
		{Gemini, "AfterTool", hook.Allow, "{}\n"},
		{Gemini, "AfterTool", hook.Nudge, obj(ctx("AfterTool"))},
		{Gemini, "AfterTool", hook.Deny, obj(ctx("AfterTool"))},
		{Gemini, "AfterTool", hook.Stop, obj(stopFields, sys)},
		{Gemini, "BeforeAgent", hook.Nudge, obj(ctx("BeforeAgent"))},
		{Gemini, "BeforeAgent", hook.Deny, obj(stopFields)},
		{Gemini, "BeforeAgent", hook.Stop, obj(stopFields, sys)},
		{Gemini, "SessionStart", hook.Allow, "{}\n"},
		{Gemini, "SessionStart", hook.Stop, obj(ctx("SessionStart"), sys)},
		{Gemini, "AfterAgent", hook.Allow, "{}\n"},
		{Gemini, "AfterAgent", hook.Nudge, obj(sys)},
		{Gemini, "AfterAgent", hook.Deny, "{}\n"},
		{Gemini, "AfterAgent", hook.Stop, obj(stopFields, sys)},
		{Gemini, "Notification", hook.Stop, "{}\n"},
		{Gemini, "", hook.Notice, obj(sys)},

		// Qwen Code: continue:false replaces a tool's result and never
		// ends the run ("keep going" on hook.Stop); a blocked UserPromptSubmit
		// ends it.
		{Qwen, "PreToolUse", hook.Allow, ""},
		{Qwen, "PreToolUse", hook.Nudge, ""},
		{Qwen, "PreToolUse", hook.Deny, obj(denyPre)},
		{Qwen, "PreToolUse", hook.Stop, obj(denyPre)},
		{Qwen, "PostToolUse", hook.Nudge, obj(ctx("PostToolUse"))},
		{Qwen, "PostToolUse", hook.Stop, obj(stopFields)},
		{Qwen, "PostToolUseFailure", hook.Stop, obj(ctx("PostToolUseFailure"))},
		{Qwen, "UserPromptSubmit", hook.Nudge, obj(ctx("UserPromptSubmit"))},
		{Qwen, "UserPromptSubmit", hook.Deny, obj(blockReason)},
		{Qwen, "UserPromptSubmit", hook.Stop, obj(blockReason)},
		{Qwen, "SessionStart", hook.Stop, obj(ctx("SessionStart"))},
		{Qwen, "Stop", hook.Allow, ""},
		{Qwen, "Stop", hook.Nudge, obj(sys)},
		{Qwen, "Stop", hook.Stop, obj(sys)},
		{Qwen, "Notification", hook.Stop, ""},
		{Qwen, "PreToolUse", hook.Notice, obj(sys)},

		// pi, through loopbreaker's extension: Claude's words; a halt at
		// a tool call blocks it and aborts the run, a halt at a result
		// replaces it and aborts.
		{Pi, "PreToolUse", hook.Allow, ""},
		{Pi, "PreToolUse", hook.Nudge, ""},
		{Pi, "PreToolUse", hook.Deny, obj(denyPre)},
		{Pi, "PreToolUse", hook.Stop, obj(stopFields, denyPre, sys)},
		{Pi, "PostToolUse", hook.Nudge, obj(ctx("PostToolUse"))},
		{Pi, "PostToolUse", hook.Deny, obj(ctx("PostToolUse"))},
		{Pi, "PostToolUse", hook.Stop, obj(stopFields, sys)},
		{Pi, "UserPromptSubmit", hook.Nudge, obj(ctx("UserPromptSubmit"))},
		{Pi, "UserPromptSubmit", hook.Deny, obj(blockReason)},
		{Pi, "UserPromptSubmit", hook.Stop, obj(blockReason, sys)},
		{Pi, "SessionStart", hook.Nudge, obj(ctx("SessionStart"))},
		{Pi, "SessionStart", hook.Stop, obj(ctx("SessionStart"), sys)},
		{Pi, "Stop", hook.Allow, ""},
		{Pi, "Stop", hook.Nudge, obj(sys)},
		{Pi, "Stop", hook.Stop, obj(sys)},
		{Pi, "PreToolUse", hook.Notice, obj(sys)},

		// OpenCode (loopbreaker's plugin): a deny fails the call with the
		// reason, continue:false aborts the session, additionalContext is
		// appended to a successful call's output.
		{OpenCode, "PreToolUse", hook.Allow, ""},
		{OpenCode, "PreToolUse", hook.Nudge, ""},
		{OpenCode, "PreToolUse", hook.Deny, obj(denyPre)},
		{OpenCode, "PreToolUse", hook.Stop, obj(stopFields, denyPre, sys)},
		{OpenCode, "PostToolUse", hook.Nudge, obj(ctx("PostToolUse"))},
		{OpenCode, "PostToolUse", hook.Stop, obj(stopFields, ctx("PostToolUse"), sys)},
		{OpenCode, "PostToolUseFailure", hook.Nudge, ""},
		{OpenCode, "PostToolUseFailure", hook.Stop, obj(stopFields, sys)},
		{OpenCode, "UserPromptSubmit", hook.Deny, obj(`"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","permissionDecision":"deny","permissionDecisionReason":"R"}`)},
		{OpenCode, "SessionStart", hook.Stop, obj(stopFields, sys)},
		{OpenCode, "Stop", hook.Allow, ""},
		{OpenCode, "Stop", hook.Nudge, obj(sys)},
		{OpenCode, "Stop", hook.Stop, obj(sys)},
		{OpenCode, "PreToolUse", hook.Notice, obj(sys)},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool.Name())+"/"+tt.event+"/"+tt.o.String(), func(t *testing.T) {
			a := tt.tool.Render(tt.event, tt.o, "R")
			if a.Exit != 0 {
				t.Errorf("exit %d, want 0", a.Exit)
			}
			if string(a.Stdout) != tt.want {
				t.Errorf("stdout\n got: %s\nwant: %s", a.Stdout, tt.want)
			}
		})
	}
}

// TestRenderNeverTrapsAtTurnEnd is the invariant of PROTOCOLS.md §5.5: no
// answer to a turn end asks the agent to keep going (for Qwen Code that
// includes continue:false, which it reads as "keep going").
func TestRenderNeverTrapsAtTurnEnd(t *testing.T) {
	for _, tool := range all.Agents() {
		for _, event := range []string{"Stop", "SubagentStop", "AfterAgent"} {
			if tool.Kind(event) != hook.KindStop {
				continue
			}
			for o := hook.Allow; o <= hook.Notice; o++ {
				a := render(tool, event, o, "loopbreaker says R")
				if a.Exit != 0 {
					t.Errorf("%s %s %s: exit %d", tool, event, o, a.Exit)
				}
				if len(a.Stdout) == 0 {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(a.Stdout, &m); err != nil {
					t.Fatalf("%s %s %s: not JSON: %v", tool, event, o, err)
				}
				if d, ok := m["decision"]; ok {
					t.Errorf("%s %s %s: decision %v at a turn end", tool, event, o, d)
				}
				if _, ok := m["hookSpecificOutput"]; ok {
					t.Errorf("%s %s %s: hookSpecificOutput at a turn end keeps the conversation going", tool, event, o)
				}
				if _, ok := m["continue"]; ok && (tool == Qwen || tool == OpenCode) {
					t.Errorf("%s %s %s: continue:false at Qwen Code's hook.Stop makes it go on", tool, event, o)
				}
			}
		}
	}
}

// TestRenderNeverApproves: an explicit "allow" would skip Claude's
// permission prompt and fail the hook on Codex.
func TestRenderNeverApproves(t *testing.T) {
	for _, tool := range all.Agents() {
		for _, event := range []string{"PreToolUse", "BeforeTool", "PostToolUse", "AfterTool", "UserPromptSubmit", "BeforeAgent", "SessionStart"} {
			for o := hook.Allow; o <= hook.Notice; o++ {
				out := string(render(tool, event, o, "R").Stdout)
				if strings.Contains(out, `"allow"`) || strings.Contains(out, `"approve"`) {
					t.Errorf("%s %s %s approves: %s", tool, event, o, out)
				}
			}
		}
	}
}

func TestRenderClipsLongReasons(t *testing.T) {
	long := strings.Repeat("é", 8000) // 16000 bytes
	a := render(Claude, "PostToolUse", hook.Nudge, long)
	var out struct {
		H struct {
			Ctx string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(a.Stdout, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.H.Ctx) > hook.MaxMessage || !strings.HasSuffix(out.H.Ctx, "[truncated]") {
		t.Errorf("context of %d bytes, suffix %q", len(out.H.Ctx), out.H.Ctx[len(out.H.Ctx)-20:])
	}
	if !strings.HasPrefix(out.H.Ctx, "ééé") {
		t.Error("the start of the reason was lost")
	}
}

func TestNudgeReachesModel(t *testing.T) {
	for _, tt := range []struct {
		tool  agent.Agent
		event string
		want  bool
	}{
		{Claude, "PostToolUse", true}, {Claude, "PreToolUse", true}, {Claude, "Stop", false},
		{Codex, "PostToolUse", true}, {Codex, "Stop", false},
		{Gemini, "AfterTool", true}, {Gemini, "BeforeTool", false}, {Gemini, "AfterAgent", false},
		{Qwen, "PostToolUse", true}, {Qwen, "UserPromptSubmit", true}, {Qwen, "PreToolUse", false}, {Qwen, "Stop", false},
		{Pi, "PostToolUse", true}, {Pi, "UserPromptSubmit", true}, {Pi, "SessionStart", true}, {Pi, "PreToolUse", false}, {Pi, "Stop", false},
		{OpenCode, "PostToolUse", true}, {OpenCode, "PostToolUseFailure", false}, {OpenCode, "PreToolUse", false}, {OpenCode, "SessionStart", false},
	} {
		if got := nudgeReaches(tt.tool, tt.event); got != tt.want {
			t.Errorf("nudgeReaches(%s, %s) = %v, want %v", tt.tool, tt.event, got, tt.want)
		}
	}
}

// The agent CLIs, by the names the tables use.
var (
	Claude   = claude.New()
	Codex    = codex.New()
	Gemini   = gemini.New()
	Qwen     = qwen.New()
	Pi       = pi.New()
	Copilot  = copilot.New()
	Cline    = cline.New()
	OpenCode = opencode.New()
)

func render(a agent.Agent, event string, o hook.Outcome, reason string) hook.Answer {
	return a.Render(event, o, reason)
}

func nudgeReaches(a agent.Agent, event string) bool { return a.NudgeReachesModel(event) }
