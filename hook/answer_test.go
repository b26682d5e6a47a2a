package hook

import (
	"encoding/json"
	"strings"
	"testing"
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
		tool  Tool
		event string
		o     Outcome
		want  string
	}{
		// Claude Code, §5.1.
		{Claude, "PreToolUse", Allow, ""},
		{Claude, "PreToolUse", Nudge, obj(ctxPre, sys)},
		{Claude, "PreToolUse", Deny, obj(denyPre)},
		{Claude, "PreToolUse", Stop, obj(stopFields, denyPre, sys)},
		{Claude, "PostToolUse", Allow, ""},
		{Claude, "PostToolUse", Nudge, obj(ctx("PostToolUse"))},
		{Claude, "PostToolUse", Deny, obj(ctx("PostToolUse"))},
		{Claude, "PostToolUse", Stop, obj(stopFields, blockReason, sys)},
		{Claude, "PostToolUseFailure", Nudge, obj(ctx("PostToolUseFailure"))},
		// continue:false is ignored here; additionalContext reaches the model.
		{Claude, "PostToolUseFailure", Stop, obj(stopFields, ctx("PostToolUseFailure"), sys)},
		{Claude, "PostToolBatch", Nudge, obj(ctx("PostToolBatch"))},
		{Claude, "PostToolBatch", Stop, obj(stopFields, ctx("PostToolBatch"), sys)},
		{Claude, "UserPromptSubmit", Nudge, obj(ctx("UserPromptSubmit"))},
		{Claude, "UserPromptSubmit", Deny, obj(blockReason)},
		{Claude, "UserPromptSubmit", Stop, obj(blockReason, sys)},
		{Claude, "SessionStart", Nudge, obj(ctx("SessionStart"))},
		{Claude, "SessionStart", Deny, obj(ctx("SessionStart"))},
		{Claude, "SessionStart", Stop, obj(ctx("SessionStart"), sys)},
		{Claude, "Stop", Allow, ""},
		{Claude, "Stop", Nudge, obj(sys)},
		{Claude, "Stop", Deny, ""},
		{Claude, "Stop", Stop, obj(stopFields, sys)},
		{Claude, "SubagentStop", Stop, obj(stopFields, sys)},
		{Claude, "Notification", Stop, ""},
		{Claude, "Notification", Notice, obj(sys)},
		{Claude, "PreToolUse", Notice, obj(sys)},

		// Codex CLI, §5.2: no continue/stopReason on PreToolUse.
		{Codex, "PreToolUse", Allow, ""},
		{Codex, "PreToolUse", Nudge, obj(ctxPre, sys)},
		// No systemMessage beside a reason the TUI shows: the text once.
		{Codex, "PreToolUse", Deny, obj(denyPre)},
		{Codex, "PreToolUse", Stop, obj(denyPre)},
		{Codex, "PostToolUse", Nudge, obj(ctx("PostToolUse"))},
		{Codex, "PostToolUse", Stop, obj(stopFields, `"reason":"R"`)},
		{Codex, "UserPromptSubmit", Deny, obj(blockReason)},
		{Codex, "UserPromptSubmit", Stop, obj(blockReason, sys)},
		{Codex, "SessionStart", Stop, obj(ctx("SessionStart"), sys)},
		{Codex, "Stop", Allow, ""},
		{Codex, "Stop", Nudge, obj(sys)},
		{Codex, "Stop", Deny, ""},
		{Codex, "Stop", Stop, obj(stopFields)},

		// Gemini CLI, §5.3: JSON on every exit 0.
		{Gemini, "BeforeTool", Allow, "{}\n"},
		{Gemini, "BeforeTool", Nudge, obj(sys)},
		{Gemini, "BeforeTool", Deny, obj(`"decision":"deny","reason":"R"`)},
		{Gemini, "BeforeTool", Stop, obj(stopFields, `"decision":"deny","reason":"R"`, sys)},
		{Gemini, "AfterTool", Allow, "{}\n"},
		{Gemini, "AfterTool", Nudge, obj(ctx("AfterTool"))},
		{Gemini, "AfterTool", Deny, obj(ctx("AfterTool"))},
		{Gemini, "AfterTool", Stop, obj(stopFields, sys)},
		{Gemini, "BeforeAgent", Nudge, obj(ctx("BeforeAgent"))},
		{Gemini, "BeforeAgent", Deny, obj(stopFields)},
		{Gemini, "BeforeAgent", Stop, obj(stopFields, sys)},
		{Gemini, "SessionStart", Allow, "{}\n"},
		{Gemini, "SessionStart", Stop, obj(ctx("SessionStart"), sys)},
		{Gemini, "AfterAgent", Allow, "{}\n"},
		{Gemini, "AfterAgent", Nudge, obj(sys)},
		{Gemini, "AfterAgent", Deny, "{}\n"},
		{Gemini, "AfterAgent", Stop, obj(stopFields, sys)},
		{Gemini, "Notification", Stop, "{}\n"},
		{Gemini, "", Notice, obj(sys)},

		// Qwen Code: continue:false replaces a tool's result and never
		// ends the run ("keep going" on Stop); a blocked UserPromptSubmit
		// ends it.
		{Qwen, "PreToolUse", Allow, ""},
		{Qwen, "PreToolUse", Nudge, ""},
		{Qwen, "PreToolUse", Deny, obj(denyPre)},
		{Qwen, "PreToolUse", Stop, obj(denyPre)},
		{Qwen, "PostToolUse", Nudge, obj(ctx("PostToolUse"))},
		{Qwen, "PostToolUse", Stop, obj(stopFields)},
		{Qwen, "PostToolUseFailure", Stop, obj(ctx("PostToolUseFailure"))},
		{Qwen, "UserPromptSubmit", Nudge, obj(ctx("UserPromptSubmit"))},
		{Qwen, "UserPromptSubmit", Deny, obj(blockReason)},
		{Qwen, "UserPromptSubmit", Stop, obj(blockReason)},
		{Qwen, "SessionStart", Stop, obj(ctx("SessionStart"))},
		{Qwen, "Stop", Allow, ""},
		{Qwen, "Stop", Nudge, obj(sys)},
		{Qwen, "Stop", Stop, obj(sys)},
		{Qwen, "Notification", Stop, ""},
		{Qwen, "PreToolUse", Notice, obj(sys)},

		// pi, through loopbreaker's extension: Claude's words; a halt at
		// a tool call blocks it and aborts the run, a halt at a result
		// replaces it and aborts.
		{Pi, "PreToolUse", Allow, ""},
		{Pi, "PreToolUse", Nudge, ""},
		{Pi, "PreToolUse", Deny, obj(denyPre)},
		{Pi, "PreToolUse", Stop, obj(stopFields, denyPre, sys)},
		{Pi, "PostToolUse", Nudge, obj(ctx("PostToolUse"))},
		{Pi, "PostToolUse", Deny, obj(ctx("PostToolUse"))},
		{Pi, "PostToolUse", Stop, obj(stopFields, sys)},
		{Pi, "UserPromptSubmit", Nudge, obj(ctx("UserPromptSubmit"))},
		{Pi, "UserPromptSubmit", Deny, obj(blockReason)},
		{Pi, "UserPromptSubmit", Stop, obj(blockReason, sys)},
		{Pi, "SessionStart", Nudge, obj(ctx("SessionStart"))},
		{Pi, "SessionStart", Stop, obj(ctx("SessionStart"), sys)},
		{Pi, "Stop", Allow, ""},
		{Pi, "Stop", Nudge, obj(sys)},
		{Pi, "Stop", Stop, obj(sys)},
		{Pi, "PreToolUse", Notice, obj(sys)},

		// OpenCode (loopbreaker's plugin): a deny fails the call with the
		// reason, continue:false aborts the session, additionalContext is
		// appended to a successful call's output.
		{OpenCode, "PreToolUse", Allow, ""},
		{OpenCode, "PreToolUse", Nudge, ""},
		{OpenCode, "PreToolUse", Deny, obj(denyPre)},
		{OpenCode, "PreToolUse", Stop, obj(stopFields, denyPre, sys)},
		{OpenCode, "PostToolUse", Nudge, obj(ctx("PostToolUse"))},
		{OpenCode, "PostToolUse", Stop, obj(stopFields, ctx("PostToolUse"), sys)},
		{OpenCode, "PostToolUseFailure", Nudge, ""},
		{OpenCode, "PostToolUseFailure", Stop, obj(stopFields, sys)},
		{OpenCode, "UserPromptSubmit", Deny, obj(`"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","permissionDecision":"deny","permissionDecisionReason":"R"}`)},
		{OpenCode, "SessionStart", Stop, obj(stopFields, sys)},
		{OpenCode, "Stop", Allow, ""},
		{OpenCode, "Stop", Nudge, obj(sys)},
		{OpenCode, "Stop", Stop, obj(sys)},
		{OpenCode, "PreToolUse", Notice, obj(sys)},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool)+"/"+tt.event+"/"+tt.o.String(), func(t *testing.T) {
			a := Render(tt.tool, tt.event, tt.o, "R")
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
	for _, tool := range AllTools() {
		for _, event := range []string{"Stop", "SubagentStop", "AfterAgent"} {
			if KindOf(tool, event) != KindStop {
				continue
			}
			for o := Allow; o <= Notice; o++ {
				a := Render(tool, event, o, "loopbreaker says R")
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
					t.Errorf("%s %s %s: continue:false at Qwen Code's Stop makes it go on", tool, event, o)
				}
			}
		}
	}
}

// TestRenderNeverApproves: an explicit "allow" would skip Claude's
// permission prompt and fail the hook on Codex.
func TestRenderNeverApproves(t *testing.T) {
	for _, tool := range AllTools() {
		for _, event := range []string{"PreToolUse", "BeforeTool", "PostToolUse", "AfterTool", "UserPromptSubmit", "BeforeAgent", "SessionStart"} {
			for o := Allow; o <= Notice; o++ {
				out := string(Render(tool, event, o, "R").Stdout)
				if strings.Contains(out, `"allow"`) || strings.Contains(out, `"approve"`) {
					t.Errorf("%s %s %s approves: %s", tool, event, o, out)
				}
			}
		}
	}
}

func TestRenderClipsLongReasons(t *testing.T) {
	long := strings.Repeat("é", 8000) // 16000 bytes
	a := Render(Claude, "PostToolUse", Nudge, long)
	var out struct {
		H struct {
			Ctx string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(a.Stdout, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.H.Ctx) > maxMessage || !strings.HasSuffix(out.H.Ctx, "[truncated]") {
		t.Errorf("context of %d bytes, suffix %q", len(out.H.Ctx), out.H.Ctx[len(out.H.Ctx)-20:])
	}
	if !strings.HasPrefix(out.H.Ctx, "ééé") {
		t.Error("the start of the reason was lost")
	}
}

func TestNudgeReachesModel(t *testing.T) {
	for _, tt := range []struct {
		tool  Tool
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
		if got := NudgeReachesModel(tt.tool, tt.event); got != tt.want {
			t.Errorf("NudgeReachesModel(%s, %s) = %v, want %v", tt.tool, tt.event, got, tt.want)
		}
	}
}
