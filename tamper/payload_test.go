package tamper

import (
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// TestCallOf reads real pre-tool payload shapes of each CLI.
func TestCallOf(t *testing.T) {
	cases := []struct {
		tool    hook.Tool
		payload string
		want    Kind // "" when the call must pass
	}{
		{hook.Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Bash","tool_input":{"command":"loopbreaker reset","description":"x","timeout":60000}}`, KindCommand},
		{hook.Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Edit","tool_input":{"file_path":"/home/dev/proj/loopbreaker.yaml","old_string":"a","new_string":"b"}}`, KindConfig},
		{hook.Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"MultiEdit","tool_input":{"file_path":".claude/settings.local.json","edits":[]}}`, KindHooks},
		{hook.Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Read","tool_input":{"file_path":"/home/dev/proj/loopbreaker.yaml"}}`, ""},
		{hook.Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Edit","tool_input":{"file_path":"/home/dev/proj/src/main.go","old_string":"a","new_string":"b"}}`, ""},
		{hook.Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"Bash","tool_input":{"command":"rm -rf .loopbreaker"}}`, KindState},
		{hook.Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"local_shell","tool_input":{"command":["bash","-lc","loopbreaker hook uninstall codex"]}}`, KindCommand},
		{hook.Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n"}}`, KindHooks},
		{hook.Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/a.go\n*** Move to: loopbreaker.yml\n*** End Patch\n"}}`, KindConfig},
		{hook.Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: calc.go\n@@\n-a\n+b\n*** End Patch\n"}}`, ""},
		{hook.Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"run_shell_command","tool_input":{"command":"rm loopbreaker.yaml","dir_path":"sub/.."}}`, KindConfig},
		{hook.Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"run_shell_command","tool_input":{"command":"rm loopbreaker.yaml","dir_path":"sub"}}`, ""},
		{hook.Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"write_file","tool_input":{"file_path":"/home/dev/.gemini/settings.json","content":"{}"}}`, KindHooks},
		{hook.Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"replace","tool_input":{"file_path":"loopbreaker.yaml","old_string":"a","new_string":"b","instruction":"x"}}`, KindConfig},
		{hook.Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"glob","tool_input":{"pattern":"loopbreaker.yaml"}}`, ""},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["go test ./...","rm -f .clinerules/hooks/PreToolUse"]}}}`, KindHooks},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["loopbreaker reset"]}}}`, KindCommand},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["chmod -x ~/.cline/hooks/PostToolUse"]}}}`, KindHooks},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Delete File: /home/dev/proj/.clinerules/hooks/PreToolUse\n*** End Patch"}}}`, KindHooks},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"editor","input":{"command":"create","path":"/home/dev/.cline/hooks/TaskComplete","file_text":"exit 0"}}}`, KindHooks},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["cat .clinerules/hooks/PreToolUse","go test ./..."]}}}`, ""},
		{hook.Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Update File: /home/dev/proj/calc.go\n@@\n-a\n+b\n*** End Patch"}}}`, ""},
		// Copilot CLI's payloads name no event: the command does.
		{hook.Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"bash","toolArgs":{"command":"loopbreaker reset --session copilot","description":"x"}}`, KindCommand},
		{hook.Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"edit","toolArgs":{"path":"/home/dev/proj/.github/hooks/loopbreaker.json","old_str":"preToolUse","new_str":"x"}}`, KindHooks},
		{hook.Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"create","toolArgs":{"path":"/home/dev/proj/.github/hooks/zz.json","file_text":"{}"}}`, KindHooks},
		{hook.Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"edit","toolArgs":{"path":"/home/dev/proj/calc.go","old_str":"a","new_str":"b"}}`, ""},
		{hook.Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"view","toolArgs":{"path":"/home/dev/proj/.github/hooks/loopbreaker.json"}}`, ""},
	}
	for _, c := range cases {
		p, err := hook.ReadEvent(c.tool, map[hook.Tool]string{hook.Copilot: "preToolUse"}[c.tool], strings.NewReader(c.payload))
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		got := Check(CallOf(p, "/home/dev/proj"), fixture())
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s %s: refused as %v", c.tool, p.ToolName, got)
		case c.want != "" && !slices.Contains(kinds(got), c.want):
			t.Errorf("%s %s %s: findings %v, want %s", c.tool, p.ToolName, p.ToolInput, got, c.want)
		}
	}
}

// A hook folder named by the caller (Cline's under CLINE_DIR) is
// protected with everything in it; a file beside it is not.
func TestHookDirs(t *testing.T) {
	p := fixture()
	p.HookDirs = []string{"/opt/cline/hooks"}
	if got := kinds(Check(Call{Writes: []string{"/opt/cline/hooks/PreToolUse.sh"}, Via: "editor"}, p)); !slices.Equal(got, []Kind{KindHooks}) {
		t.Errorf("a script in the folder: %v", got)
	}
	if got := Check(Call{Cwd: "/opt/cline", Shell: []string{"rm -r hooks"}}, p); !slices.Contains(kinds(got), KindHooks) {
		t.Errorf("rm of the folder: %v", got)
	}
	if got := Check(Call{Writes: []string{"/opt/cline/notes.md"}, Via: "editor"}, p); len(got) != 0 {
		t.Errorf("a file beside the folder: %v", got)
	}
}
