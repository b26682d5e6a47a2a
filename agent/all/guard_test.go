package all_test

import (
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// TestCallOf reads real pre-tool payload shapes of each CLI.
func TestCallOf(t *testing.T) {
	cases := []struct {
		tool    agent.Agent
		payload string
		want    tamper.Kind // "" when the call must pass
	}{
		{Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Bash","tool_input":{"command":"loopbreaker reset","description":"x","timeout":60000}}`, tamper.KindCommand},
		{Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Edit","tool_input":{"file_path":"/home/dev/proj/loopbreaker.yaml","old_string":"a","new_string":"b"}}`, tamper.KindConfig},
		{Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"MultiEdit","tool_input":{"file_path":".claude/settings.local.json","edits":[]}}`, tamper.KindHooks},
		{Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Read","tool_input":{"file_path":"/home/dev/proj/loopbreaker.yaml"}}`, ""},
		{Claude, `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/dev/proj","tool_name":"Edit","tool_input":{"file_path":"/home/dev/proj/src/main.go","old_string":"a","new_string":"b"}}`, ""},
		{Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"Bash","tool_input":{"command":"rm -rf .loopbreaker"}}`, tamper.KindState},
		{Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"local_shell","tool_input":{"command":["bash","-lc","loopbreaker hook uninstall codex"]}}`, tamper.KindCommand},
		{Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n"}}`, tamper.KindHooks},
		{Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/a.go\n*** Move to: loopbreaker.yml\n*** End Patch\n"}}`, tamper.KindConfig},
		{Codex, `{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/home/dev/proj","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: calc.go\n@@\n-a\n+b\n*** End Patch\n"}}`, ""},
		{Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"run_shell_command","tool_input":{"command":"rm loopbreaker.yaml","dir_path":"sub/.."}}`, tamper.KindConfig},
		{Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"run_shell_command","tool_input":{"command":"rm loopbreaker.yaml","dir_path":"sub"}}`, ""},
		{Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"write_file","tool_input":{"file_path":"/home/dev/.gemini/settings.json","content":"{}"}}`, tamper.KindHooks},
		{Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"replace","tool_input":{"file_path":"loopbreaker.yaml","old_string":"a","new_string":"b","instruction":"x"}}`, tamper.KindConfig},
		{Gemini, `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/home/dev/proj","tool_name":"glob","tool_input":{"pattern":"loopbreaker.yaml"}}`, ""},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["go test ./...","rm -f .clinerules/hooks/PreToolUse"]}}}`, tamper.KindHooks},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["loopbreaker reset"]}}}`, tamper.KindCommand},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["chmod -x ~/.cline/hooks/PostToolUse"]}}}`, tamper.KindHooks},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Delete File: /home/dev/proj/.clinerules/hooks/PreToolUse\n*** End Patch"}}}`, tamper.KindHooks},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"editor","input":{"command":"create","path":"/home/dev/.cline/hooks/TaskComplete","file_text":"exit 0"}}}`, tamper.KindHooks},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"run_commands","input":{"commands":["cat .clinerules/hooks/PreToolUse","go test ./..."]}}}`, ""},
		{Cline, `{"hookName":"tool_call","taskId":"t","workspaceRoots":["/home/dev/proj"],"tool_call":{"id":"c","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Update File: /home/dev/proj/calc.go\n@@\n-a\n+b\n*** End Patch"}}}`, ""},
		// Copilot CLI's payloads name no event: the command does.
		{Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"bash","toolArgs":{"command":"loopbreaker reset --session copilot","description":"x"}}`, tamper.KindCommand},
		{Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"edit","toolArgs":{"path":"/home/dev/proj/.github/hooks/loopbreaker.json","old_str":"preToolUse","new_str":"x"}}`, tamper.KindHooks},
		{Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"create","toolArgs":{"path":"/home/dev/proj/.github/hooks/zz.json","file_text":"{}"}}`, tamper.KindHooks},
		{Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"edit","toolArgs":{"path":"/home/dev/proj/calc.go","old_str":"a","new_str":"b"}}`, ""},
		{Copilot, `{"sessionId":"s","cwd":"/home/dev/proj","toolName":"view","toolArgs":{"path":"/home/dev/proj/.github/hooks/loopbreaker.json"}}`, ""},
	}
	for _, c := range cases {
		event := ""
		if c.tool.Traits().EventArgument {
			event = "preToolUse"
		}
		p, err := c.tool.Parse(event, []byte(c.payload))
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		got := tamper.Check(tamper.CallOf(p, "/home/dev/proj"), protected(c.tool))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s %s: refused as %v", c.tool.Name(), p.ToolName, got)
		case c.want != "" && !slices.Contains(kinds(got), c.want):
			t.Errorf("%s %s %s: findings %v, want %s", c.tool.Name(), p.ToolName, p.ToolInput, got, c.want)
		}
	}
}

// protected is what the hook of a guards in a project /home/dev/proj of
// a user /home/dev.
func protected(a agent.Agent) tamper.Protected {
	p := tamper.Protected{
		Project:   "/home/dev/proj",
		Home:      "/home/dev",
		StateDir:  "/home/dev/.local/state/loopbreaker/projects/proj-1a2b",
		StateRoot: "/home/dev/.local/state/loopbreaker",
		Binaries:  []string{"/usr/local/bin/loopbreaker"},
		Vars:      map[string]string{"HOME": "/home/dev"},
	}
	g := a.Guarded(p.Project, func(k string) string { return p.Vars[k] })
	p.Hooks, p.HookDirs = g.Files, g.Dirs
	return p
}

func kinds(fs []tamper.Finding) []tamper.Kind {
	var ks []tamper.Kind
	for _, f := range fs {
		if !slices.Contains(ks, f.Kind) {
			ks = append(ks, f.Kind)
		}
	}
	return ks
}
