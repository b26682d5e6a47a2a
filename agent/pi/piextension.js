// loopbreaker's extension for pi, written by `loopbreaker hook install pi`
// and removed by `loopbreaker hook uninstall pi`: do not edit (a reinstall
// writes it again).
//
// It asks `loopbreaker hook pi` about every prompt, tool call and tool
// result (a JSON payload on stdin, a JSON answer on stdout) and applies the
// answer: a refused call is blocked, a warning is added to the tool result
// the model reads, and a halt replaces the result and aborts the run.
// Whatever goes wrong on loopbreaker's side (the program moved or deleted,
// a crash, a timeout, an answer that is not JSON) lets the agent go on:
// an extension that throws in tool_call would block the call.
import { spawn } from "node:child_process";

const PROGRAM = __PROGRAM__;
const MISSING = __MISSING__;
// A hook call takes milliseconds; a hung loopbreaker must not hang pi.
const TIMEOUT_MS = 10000;

export default function loopbreaker(pi) {
	let warnedMissing = false;
	const noted = new Set();
	// Text for the model from SessionStart or UserPromptSubmit, given with
	// the prompt (before_agent_start).
	let pending = [];
	// Calls this extension refused (no tool_result follows them) and calls
	// that got a tool_result: the others failed before they ran.
	const refused = new Set();
	const resulted = new Set();
	const args = new Map();
	// The results of calls that failed before they ran, held until the
	// calls of their message are over (see tool_execution_end).
	let unran = [];
	// Set once this run was halted. The calls of the halted batch that
	// still report, and the turn end, are answered that the breaker is
	// OPEN, in the same words each time; their hooks run at once, so the
	// answer with the halt message may even come after such a refusal.
	// Each text is shown once from then on.
	let stopped = false;
	const shown = new Set();

	function tell(ctx, text) {
		if (!text) return;
		try {
			if (ctx && ctx.hasUI) ctx.ui.notify(text, "warning");
			else process.stderr.write(text.endsWith("\n") ? text : text + "\n");
		} catch {}
	}

	function ask(ctx, event, fields) {
		return new Promise((resolve) => {
			let done = false;
			const finish = (answer) => {
				if (!done) {
					done = true;
					resolve(answer);
				}
			};
			let payload;
			try {
				const sm = ctx && ctx.sessionManager;
				payload = JSON.stringify({
					hook_event_name: event,
					session_id: (sm && sm.getSessionId && sm.getSessionId()) || "",
					transcript_path: (sm && sm.getSessionFile && sm.getSessionFile()) || "",
					cwd: (ctx && ctx.cwd) || process.cwd(),
					...fields,
				});
			} catch {
				return finish(null);
			}
			let child;
			try {
				child = spawn(PROGRAM, ["hook", "pi"], {
					cwd: (ctx && ctx.cwd) || process.cwd(),
					stdio: ["pipe", "pipe", "pipe"],
				});
			} catch {
				return finish(missing(ctx));
			}
			const out = [];
			const err = [];
			const timer = setTimeout(() => {
				try {
					child.kill("SIGKILL");
				} catch {}
				tell(ctx, "loopbreaker: the hook did not answer within " + TIMEOUT_MS / 1000 + " s; the call goes on unguarded");
				finish(null);
			}, TIMEOUT_MS);
			child.on("error", () => {
				clearTimeout(timer);
				finish(missing(ctx));
			});
			child.stdout.on("data", (b) => out.push(b));
			child.stderr.on("data", (b) => err.push(b));
			child.on("close", () => {
				clearTimeout(timer);
				// loopbreaker's notes on stderr (an inactive project, a
				// warning) are the same on every call: each is shown once.
				const stderr = Buffer.concat(err).toString().trim();
				if (stderr && !noted.has(stderr)) {
					noted.add(stderr);
					tell(ctx, stderr);
				}
				const text = Buffer.concat(out).toString().trim();
				if (!text) return finish(null);
				try {
					finish(JSON.parse(text));
				} catch {
					finish(null);
				}
			});
			child.stdin.on("error", () => {});
			child.stdin.end(payload);
		});
	}

	function missing(ctx) {
		if (!warnedMissing) {
			warnedMissing = true;
			tell(ctx, MISSING);
		}
		return null;
	}

	function context(a) {
		return (a && a.hookSpecificOutput && a.hookSpecificOutput.additionalContext) || "";
	}

	function halted(a) {
		return a && a.continue === false;
	}

	function guard(handler) {
		return async (event, ctx) => {
			try {
				return await handler(event, ctx);
			} catch (e) {
				tell(ctx, "loopbreaker: extension error (the agent goes on): " + (e && e.message ? e.message : String(e)));
				return undefined;
			}
		};
	}

	// say shows the person loopbreaker's message, once per text once the
	// run was halted.
	function say(ctx, text) {
		if (!text || (stopped && shown.has(text))) return;
		if (stopped) shown.add(text);
		tell(ctx, text);
	}

	function stop(ctx, a) {
		stopped = true;
		say(ctx, a.systemMessage || a.stopReason);
		try {
			ctx.abort();
		} catch {}
	}

	function text(content) {
		if (!Array.isArray(content)) return "";
		return content
			.filter((c) => c && c.type === "text")
			.map((c) => c.text)
			.join("\n");
	}

	pi.on(
		"session_start",
		guard(async (event, ctx) => {
			const a = await ask(ctx, "SessionStart", { source: event.reason || "" });
			if (!a) return;
			say(ctx, a.systemMessage);
			if (context(a)) pending.push(context(a));
		}),
	);

	pi.on(
		"input",
		guard(async (event, ctx) => {
			stopped = false;
			shown.clear();
			const a = await ask(ctx, "UserPromptSubmit", { prompt: event.text || "" });
			if (!a) return;
			if (a.decision === "block") {
				say(ctx, a.systemMessage || a.reason);
				return { action: "handled" };
			}
			say(ctx, a.systemMessage);
			if (context(a)) pending.push(context(a));
		}),
	);

	pi.on(
		"before_agent_start",
		guard(async () => {
			if (pending.length === 0) return;
			const content = pending.join("\n\n");
			pending = [];
			return { message: { customType: "loopbreaker", content, display: true } };
		}),
	);

	pi.on(
		"tool_call",
		guard(async (event, ctx) => {
			const a = await ask(ctx, "PreToolUse", {
				tool_name: event.toolName,
				tool_input: event.input,
				tool_use_id: event.toolCallId,
			});
			if (!a) return;
			const h = a.hookSpecificOutput || {};
			if (h.permissionDecision === "deny" || halted(a)) {
				refused.add(event.toolCallId);
				if (halted(a)) stop(ctx, a);
				else say(ctx, a.systemMessage);
				return { block: true, reason: h.permissionDecisionReason || a.stopReason || "refused by loopbreaker" };
			}
			say(ctx, a.systemMessage);
		}),
	);

	pi.on(
		"tool_result",
		guard(async (event, ctx) => {
			resulted.add(event.toolCallId);
			const a = await ask(ctx, "PostToolUse", {
				tool_name: event.toolName,
				tool_input: event.input,
				tool_use_id: event.toolCallId,
				tool_response: { content: text(event.content), is_error: !!event.isError },
			});
			if (!a) return;
			if (halted(a)) {
				stop(ctx, a);
				return { content: [{ type: "text", text: a.stopReason || "halted by loopbreaker" }], isError: true };
			}
			say(ctx, a.systemMessage);
			if (context(a)) {
				return { content: [...(event.content || []), { type: "text", text: context(a) }] };
			}
		}),
	);

	pi.on(
		"tool_execution_start",
		guard(async (event) => {
			args.set(event.toolCallId, event.args);
		}),
	);

	// A call that failed before it ran (unknown tool, invalid arguments,
	// blocked by another extension) gets no tool_result: report its error.
	// pi ends such a call while it still asks tool_call about the later
	// calls of the same message, which run together after that: reported
	// then, its result would tell loopbreaker that the batch is over (a
	// result came), cutting the message's calls in two and taking a later
	// call identical to an earlier one for the repeat of a call that
	// failed. So it is reported once the message's calls are over
	// (turn_end, which pi sends after every tool_result of the message and
	// before the next tool_call), as Claude Code's PostToolBatch lists
	// such calls after the batch.
	pi.on(
		"tool_execution_end",
		guard(async (event) => {
			const id = event.toolCallId;
			const input = args.get(id);
			args.delete(id);
			if (resulted.delete(id) || refused.delete(id)) return;
			const r = event.result || {};
			unran.push({
				tool_name: event.toolName,
				tool_input: input,
				tool_use_id: id,
				tool_response: { content: text(r.content), is_error: true },
			});
		}),
	);

	async function reportUnran(ctx) {
		const calls = unran;
		unran = [];
		for (const fields of calls) {
			const a = await ask(ctx, "PostToolUse", fields);
			if (halted(a)) stop(ctx, a);
			else if (a) say(ctx, a.systemMessage);
		}
	}

	// pi hands tool_execution_end and turn_end to extensions through a
	// queue it waits for only at a tool_call: a message whose calls all
	// failed before they ran (the model calling a tool pi does not have,
	// again and again) has none, and pi would ask the model again before
	// loopbreaker heard of the calls. Before each model request (context,
	// which pi awaits) the extension therefore waits, at most TIMEOUT_MS,
	// until the turn_end of the request before is handled: a halt answered
	// there aborts the run before the model is asked. A flag, not a count
	// of requests against turn ends: a request that never gets its
	// turn_end (a retried or failed one) delays the next request once at
	// most, never every request after it.
	let turnOpen = false;
	let wake = () => {};
	pi.on(
		"turn_end",
		guard(async (event, ctx) => {
			try {
				await reportUnran(ctx);
			} finally {
				turnOpen = false;
				wake();
			}
		}),
	);
	pi.on(
		"context",
		guard(async () => {
			if (turnOpen) {
				let timer;
				await Promise.race([
					new Promise((resolve) => (wake = resolve)),
					new Promise((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS))),
				]);
				clearTimeout(timer);
				wake = () => {};
			}
			turnOpen = true;
		}),
	);

	// The turn ends at agent_end, which pi hands to extensions from a
	// queue it does not wait for: headless, it may shut down first. It
	// does wait for session_shutdown's handlers, so a turn that started
	// (before_agent_start) is awaited there until its agent_end is
	// answered (at most TIMEOUT_MS).
	let turnEnd = null;
	let endTurn = () => {};
	pi.on(
		"agent_start",
		guard(async () => {
			turnEnd = new Promise((resolve) => {
				endTurn = resolve;
			});
		}),
	);
	pi.on(
		"agent_end",
		guard(async (event, ctx) => {
			try {
				await reportUnran(ctx);
				// A run that failed ends without the turn_end of its last
				// request: the next run's first request does not wait.
				turnOpen = false;
				let last = "";
				for (const m of event.messages || []) {
					if (m && m.role === "assistant") last = text(m.content);
				}
				const a = await ask(ctx, "Stop", { last_assistant_message: last });
				if (a) say(ctx, a.systemMessage);
			} finally {
				endTurn();
			}
		}),
	);
	pi.on(
		"session_shutdown",
		guard(async () => {
			if (!turnEnd) return;
			let timer;
			await Promise.race([turnEnd, new Promise((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS)))]);
			clearTimeout(timer);
		}),
	);
}
