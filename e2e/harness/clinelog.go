package harness

import "encoding/json"

// clineCall fills the payload fields of a call to `loopbreaker hook cline
// EVENT`: Cline names no hook_event_name (the hook file's name, passed as
// EVENT, is the event) and puts the call in tool_call or tool_result.
func clineCall(c *Call) {
	c.Event = c.Args[2]
	var p struct {
		ToolCall   *clineToolCall `json:"tool_call"`
		ToolResult *clineToolCall `json:"tool_result"`
	}
	if len(c.Payload) == 0 || json.Unmarshal(c.Payload, &p) != nil {
		return
	}
	tc := p.ToolCall
	if tc == nil {
		tc = p.ToolResult
	}
	if tc != nil {
		c.ToolName, c.ToolUseID, c.ToolInput = tc.Name, tc.ID, tc.Input
	}
}

type clineToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}
