package hookpolicy

import (
	"context"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
)

// preTool checks before a tool runs. The earlier calls that failed without
// a result are recorded first, so a repeated failing patch is refused at
// its repeat; OPEN denies and stops the agent; an edit goes through the
// scope lock; a call allowed to run is remembered until its result comes.
func (c *call) preTool(ctx context.Context) (hook.Answer, error) {
	if err := c.recordUnreported(false); err != nil {
		return hook.Answer{}, err
	}
	d, err := c.apply(lb.Event{Kind: lb.EventCheck})
	if err != nil {
		return hook.Answer{}, err
	}
	if ans, done, err := c.guard(ctx); done || err != nil {
		return ans, err
	}
	if d.Allowed && c.Config.Enabled && c.p.Class() == hook.ClassEdit {
		if ans, done, err := c.scopeLock(ctx); done || err != nil {
			return ans, err
		}
	}
	if d.Allowed && c.Config.Enabled {
		c.remember()
	}
	return c.decide(ctx, d), nil
}

// recordUnreported records the pending calls that failed without a result
// (see pending.go): at a turn end or prompt all of them (every), at a
// pre-tool event those the agent repeats.
func (c *call) recordUnreported(every bool) error {
	if !c.Config.Enabled {
		return nil
	}
	failed := c.failedPending(every)
	for i, tc := range failed {
		tc.BatchOpen = reportsToCome(c.tx.Peek(), tc.Batch, failed[i+1:])
		if _, err := c.apply(lb.Event{Kind: lb.EventToolCall, ToolCall: &tc}); err != nil {
			return err
		}
	}
	return nil
}

// postTool records the tool call that ran, unless its outcome was counted
// already (a late result of a call taken for failed).
func (c *call) postTool(ctx context.Context) (hook.Answer, error) {
	tc := hook.BuildToolCall(c.p, c.Project, c.baseDir())
	if c.Config.Enabled {
		batch, counted := c.resolve(&tc)
		if counted {
			c.logf("loopbreaker: the result of %s call %s came after the call was counted as failed; not counted again\n", c.p.ToolName, c.p.ToolUseID)
			return c.check(ctx)
		}
		tc.Batch = batch
		tc.BatchOpen = reportsToCome(c.tx.Peek(), batch, nil) || c.unannouncedInMessage()
		tc.Usage = c.transcriptUsage()
	}
	d, err := c.apply(lb.Event{Kind: lb.EventToolCall, ToolCall: &tc})
	if err != nil {
		return hook.Answer{}, err
	}
	if c.Config.Enabled {
		c.noteFailingTest(tc.Tests)
	}
	return c.decide(ctx, d), nil
}

// toolBatch handles Claude Code's PostToolBatch, which lists every call of
// a batch once all have resolved, before the next model request. Calls
// whose result was recorded already are skipped; a pending call is
// recorded with the batch's result; a call never announced (rejected by
// validation before PreToolUse: an Edit whose old text is not found) is
// recorded when it failed; a call cancelled before it ran is not.
func (c *call) toolBatch(ctx context.Context) (hook.Answer, error) {
	if !c.Config.Enabled {
		return c.check(ctx)
	}
	var d lb.Decision
	recorded := false
	for _, bc := range c.p.Calls {
		if bc.ToolUseID == "" {
			continue
		}
		id := callID(bc)
		if c.tx.Peek() != nil && c.tx.Peek().IsCounted(id) {
			continue
		}
		batch, announced := c.takePending(id, "")
		if !bc.Ran() {
			// Cancelled before it ran (another call of the batch
			// failed): no attempt of the agent's.
			continue
		}
		tc := hook.BuildToolCall(bc, c.Project, c.baseDir())
		if !announced && tc.Error == nil {
			// Not announced and not failed: its own events count it.
			continue
		}
		m := c.tx.Memory()
		m.MarkCounted(id, false)
		m.Results++
		tc.Batch = batch
		tc.BatchOpen = reportsToCome(m, batch, nil)
		r, err := c.apply(lb.Event{Kind: lb.EventToolCall, ToolCall: &tc})
		if err != nil {
			return hook.Answer{}, err
		}
		d, recorded = r, true
		c.noteFailingTest(tc.Tests)
	}
	if !recorded {
		return c.check(ctx)
	}
	return c.decide(ctx, d), nil
}

// check asks the breaker and decides.
func (c *call) check(ctx context.Context) (hook.Answer, error) {
	d, err := c.apply(lb.Event{Kind: lb.EventCheck})
	if err != nil {
		return hook.Answer{}, err
	}
	return c.decide(ctx, d), nil
}
