package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"slices"

	lb "github.com/loopbreaker/loopbreaker"
)

// Where each agent records what its model calls consumed:
//
//   - Claude Code: every "assistant" line of a transcript or of
//     stream-json carries its message's usage (input, output, cache read
//     and cache creation tokens) and model; a message split into several
//     content blocks repeats the same usage on each line, under the same
//     message id. `claude -p --output-format json|stream-json` ends with a
//     "result" object with the run's usage and total_cost_usd.
//   - Codex CLI: its rollout has an event_msg "token_count" per model
//     call (info.last_token_usage, whose input_tokens include the cached
//     ones), the model in "turn_context"; `codex exec --json` prints a
//     "turn.completed" line with the turn's usage.
//   - Gemini CLI: each model message of its chat log has "tokens" (input
//     including cached, output, cached, thoughts) and "model";
//     `gemini -p --output-format json` has stats.models.<model>.tokens.
//   - pi: each "message" entry of its session whose message is the
//     assistant's has usage (input, output, cacheRead, cacheWrite, and a
//     cost pi computes from its own prices, 0 for a model it has none
//     for) and model; the entry's id names it.

// UsageCursor is where reading a transcript's usage left off, for the
// next chunk: the message counted last (Claude Code and Gemini repeat a
// message's usage) and the model in use (Codex names it once per turn,
// not per call).
type UsageCursor struct {
	Last  string
	Model string
}

// UsageOf sums the usage of the model calls recorded in data, a chunk of
// a transcript, rollout or chat log, or a CLI's JSON output, read after
// the chunk the cursor c left off at; it returns the cursor for the next
// chunk. The sum is priced at the model of its first call. A CLI's run summary (Claude Code's result)
// stands for the whole run: the lines before it are not added again. ok
// is false when data records no usage at all, which is not a usage of
// zero.
func UsageOf(data []byte, c UsageCursor) (u lb.Usage, next UsageCursor, ok bool) {
	last := c.Last
	var summary lb.Usage
	summaries := false
	seen := map[string]bool{}
	if last != "" {
		seen[last] = true
	}
	lastID := last
	codexModel := c.Model
	each := JSONLines
	if whole := bytes.TrimSpace(data); bytes.HasPrefix(whole, []byte("{")) && bytes.ContainsRune(whole, '\n') && json.Valid(whole) {
		// One indented document (gemini -p --output-format json).
		each = func(_ []byte, fn func([]byte)) { fn(whole) }
	}
	each(data, func(line []byte) {
		var l usageLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		switch {
		case l.Type == "result" && l.Usage != nil:
			r := l.Usage.claude()
			r.Calls = 1
			r.CostUSD = l.TotalCost
			if len(l.ModelUsage) > 0 {
				r.Model = firstKey(l.ModelUsage)
			}
			summary.Add(r)
			summaries = true
		case l.Type == "assistant" && l.Message != nil && l.Message.Usage != nil:
			if l.Message.ID != "" {
				if seen[l.Message.ID] {
					return
				}
				seen[l.Message.ID] = true
				lastID = l.Message.ID
			}
			m := l.Message.Usage.claude()
			m.Model, m.Calls = l.Message.Model, 1
			u.Add(m)
			ok = true
		case l.Type == "message" && l.Message != nil && l.Message.Role == "assistant" && l.Message.Usage != nil:
			if l.ID != "" {
				if seen[l.ID] {
					return
				}
				seen[l.ID] = true
				lastID = l.ID
			}
			m := l.Message.Usage.pi()
			m.Model, m.Calls = l.Message.Model, 1
			u.Add(m)
			ok = true
		case l.Type == "turn_context" && l.Payload != nil && l.Payload.Model != "":
			codexModel = l.Payload.Model
		case l.Type == "event_msg" && l.Payload != nil && l.Payload.Type == "token_count" && l.Payload.Info != nil && l.Payload.Info.Last != nil:
			m := l.Payload.Info.Last.codex()
			m.Model, m.Calls = codexModel, 1
			u.Add(m)
			ok = true
		case l.Type == "turn.completed" && l.Usage != nil:
			m := l.Usage.codex()
			m.Calls = 1
			summary.Add(m)
			summaries = true
		case l.Stats != nil && len(l.Stats.Models) > 0:
			for _, name := range sortedKeys(l.Stats.Models) {
				t := l.Stats.Models[name].Tokens
				summary.Add(lb.Usage{Model: name, InputTokens: t.Prompt - t.Cached, CacheReadTokens: t.Cached,
					OutputTokens: t.Candidates + t.Thoughts})
			}
			summary.Calls++
			summaries = true
		default:
			msgs := l.geminiMessages()
			// A rewrite of the whole list repeats the messages counted
			// before: only those after the last one seen are new.
			for i := len(msgs) - 1; i >= 0; i-- {
				if seen[msgs[i].ID] {
					msgs = msgs[i+1:]
					break
				}
			}
			for _, m := range msgs {
				if m.Tokens == nil || m.ID == "" || seen[m.ID] {
					continue
				}
				seen[m.ID] = true
				lastID = m.ID
				t := m.Tokens
				u.Add(lb.Usage{Model: m.Model, Calls: 1, InputTokens: t.Input - t.Cached, CacheReadTokens: t.Cached,
					OutputTokens: t.Output + t.Thoughts})
				ok = true
			}
		}
	})
	next = UsageCursor{Last: lastID, Model: codexModel}
	if summaries {
		return summary, next, true
	}
	return u, next, ok
}

type usageLine struct {
	Type       string                     `json:"type"`
	Message    *usageMessage              `json:"message"`
	Usage      *tokenUsage                `json:"usage"`
	TotalCost  *float64                   `json:"total_cost_usd"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
	Payload    *codexUsagePayload         `json:"payload"`
	Stats      *geminiStats               `json:"stats"`
	// Gemini's chat log: a message a line, or an update of the list.
	ID       string               `json:"id"`
	Model    string               `json:"model"`
	Tokens   *geminiTokens        `json:"tokens"`
	Set      *geminiUsageSet      `json:"$set"`
	Messages []geminiUsageMessage `json:"messages"`
}

type usageMessage struct {
	ID    string      `json:"id"`
	Role  string      `json:"role"`
	Model string      `json:"model"`
	Usage *tokenUsage `json:"usage"`
}

// tokenUsage is Claude's usage and Codex's, which share input_tokens and
// output_tokens, and pi's, in words of its own.
type tokenUsage struct {
	Input       int64 `json:"input_tokens"`
	Output      int64 `json:"output_tokens"`
	CacheRead   int64 `json:"cache_read_input_tokens"`
	CacheCreate int64 `json:"cache_creation_input_tokens"`
	Cached      int64 `json:"cached_input_tokens"`

	PiInput      int64 `json:"input"`
	PiOutput     int64 `json:"output"`
	PiCacheRead  int64 `json:"cacheRead"`
	PiCacheWrite int64 `json:"cacheWrite"`
	PiCost       *struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

// pi: a cost of 0 is a model pi has no price for, not a free call: the
// price table prices its tokens.
func (t *tokenUsage) pi() lb.Usage {
	u := lb.Usage{InputTokens: t.PiInput, OutputTokens: t.PiOutput, CacheReadTokens: t.PiCacheRead, CacheWriteTokens: t.PiCacheWrite}
	if t.PiCost != nil && t.PiCost.Total > 0 {
		cost := t.PiCost.Total
		u.CostUSD = &cost
	}
	return u
}

func (t *tokenUsage) claude() lb.Usage {
	return lb.Usage{InputTokens: t.Input, OutputTokens: t.Output, CacheReadTokens: t.CacheRead, CacheWriteTokens: t.CacheCreate}
}

// codex: Codex's input_tokens include the cached ones.
func (t *tokenUsage) codex() lb.Usage {
	return lb.Usage{InputTokens: t.Input - t.Cached, CacheReadTokens: t.Cached, OutputTokens: t.Output}
}

type codexUsagePayload struct {
	Type  string `json:"type"`
	Model string `json:"model"`
	Info  *struct {
		Last *tokenUsage `json:"last_token_usage"`
	} `json:"info"`
}

type geminiStats struct {
	Models map[string]struct {
		Tokens struct {
			Prompt     int64 `json:"prompt"`
			Candidates int64 `json:"candidates"`
			Cached     int64 `json:"cached"`
			Thoughts   int64 `json:"thoughts"`
		} `json:"tokens"`
	} `json:"models"`
}

type geminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
}

type geminiUsageMessage struct {
	ID     string        `json:"id"`
	Model  string        `json:"model"`
	Tokens *geminiTokens `json:"tokens"`
}

type geminiUsageSet struct {
	Messages []geminiUsageMessage `json:"messages"`
}

// geminiMessages are the model messages a chat-log line holds.
func (l *usageLine) geminiMessages() []geminiUsageMessage {
	out := l.Messages
	if l.Set != nil {
		out = append(out, l.Set.Messages...)
	}
	if l.Tokens != nil {
		out = append(out, geminiUsageMessage{ID: l.ID, Model: l.Model, Tokens: l.Tokens})
	}
	return out
}

func firstKey[V any](m map[string]V) string { return sortedKeys(m)[0] }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// maxUsageRead bounds what UsageOfFile reads: the run summaries the CLIs
// print come last.
const maxUsageRead = 8 << 20

// UsageOfFile is the usage an agent's output file reports (the last 8 MiB
// of it), as one call: one agent invocation. nil when it reports none.
func UsageOfFile(path string) (*lb.Usage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return UsageOfOutput(f)
}

// UsageOfOutput is UsageOfFile of an open file.
func UsageOfOutput(f *os.File) (*lb.Usage, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(0, fi.Size()-maxUsageRead)
	data, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return nil, err
	}
	u, _, ok := UsageOf(data, UsageCursor{})
	if !ok {
		return nil, nil
	}
	u.Calls = 1
	return &u, nil
}
