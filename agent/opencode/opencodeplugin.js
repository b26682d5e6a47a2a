// loopbreaker's guard for OpenCode and the CLIs built on it: a plugin that
// asks `loopbreaker hook AGENT EVENT` about every tool call and turn end
// (AGENT is opencode, or kilocode for Kilo Code), and applies the answer.
// Installed by `loopbreaker hook install AGENT`; removed by `loopbreaker
// hook uninstall AGENT`. Generated: edits are overwritten by the next
// install.
//
// Each OpenCode hook becomes one event of loopbreaker's hook protocol, a
// JSON payload on the program's stdin:
//   tool.execute.before                 -> PreToolUse
//   tool.execute.after                  -> PostToolUse (a call that succeeded)
//   message.part.updated, tool "error"  -> PostToolUseFailure (OpenCode runs
//                                          no after hook for a failed call)
//   chat.message                        -> UserPromptSubmit
//   session.created                     -> SessionStart
//   session.idle                        -> Stop (with the agent's last text)
// and the answer (loopbreaker's JSON on stdout) is applied:
//   permissionDecision "deny", decision "block" -> the call or prompt fails
//                                          with the reason (the model reads it;
//                                          thrown, as Kilo Code needs even
//                                          after an abort)
//   additionalContext                   -> appended to the tool's output
//   continue: false                     -> the session is aborted: the run ends
//   systemMessage                       -> printed on stderr for the person
// A missing program, a crash, a timeout or an answer that is not JSON
// allows the call: loopbreaker never blocks the agent by failing.

import { spawn } from "node:child_process"

const PROGRAM = "@PROGRAM@"
const AGENT = "@AGENT@"
const MISSING = "@MISSING@"
// A hook call takes milliseconds; one that hangs is killed and allowed.
const TIMEOUT_MS = 30000
const MAX_OUTPUT = 1 << 20

export const LoopbreakerGuard = async ({ client, directory }) => {
  // Calls go to loopbreaker one at a time, in the order OpenCode reported
  // them: a failed call's event is answered before the next call starts.
  let queue = Promise.resolve()
  const serial = (fn) => {
    const next = queue.then(fn, fn)
    queue = next.catch(() => {})
    return next
  }
  // Calls refused here, and the call running when a session is aborted
  // here, also end as failed tool parts: they are loopbreaker's own doing,
  // not the agent's failures.
  const refused = new Set()
  const reported = new Set()
  // Sessions that worked since their last turn end: OpenCode reports a
  // session idle twice when it was aborted, and the turn ended once.
  const busy = new Set()
  // Sessions aborted in this turn: one abort is enough, and what fails
  // after it fails because of it.
  const aborted = new Set()
  let warnedMissing = false

  const say = (text) => {
    if (text) process.stderr.write(text.replace(/\n*$/, "\n"))
  }

  const ask = (event, payload) =>
    serial(
      () =>
        new Promise((resolve) => {
          let child
          try {
            child = spawn(PROGRAM, ["hook", AGENT, event], {
              cwd: directory,
              stdio: ["pipe", "pipe", "ignore"],
            })
          } catch (err) {
            missing(err)
            resolve(null)
            return
          }
          let out = ""
          let done = false
          const finish = (answer) => {
            if (done) return
            done = true
            clearTimeout(timer)
            resolve(answer)
          }
          const timer = setTimeout(() => {
            try {
              child.kill("SIGKILL")
            } catch {}
            say(`loopbreaker: \`${PROGRAM} hook opencode ${event}\` did not answer within ${TIMEOUT_MS / 1000}s; the call goes on unchecked`)
            finish(null)
          }, TIMEOUT_MS)
          child.on("error", (err) => {
            missing(err)
            finish(null)
          })
          child.stdout.on("data", (chunk) => {
            if (out.length < MAX_OUTPUT) out += chunk
          })
          child.on("close", () => {
            try {
              finish(out.trim() ? JSON.parse(out) : null)
            } catch {
              finish(null)
            }
          })
          child.stdin.on("error", () => {})
          child.stdin.end(JSON.stringify({ hook_event_name: event, cwd: directory, ...payload }))
        }),
    )

  const missing = (err) => {
    if (warnedMissing) return
    warnedMissing = true
    say(err && err.code === "ENOENT" ? MISSING : `${MISSING} (${err})`)
  }

  const abort = async (sessionID) => {
    if (!sessionID || aborted.has(sessionID)) return
    aborted.add(sessionID)
    try {
      await client.session.abort({ path: { id: sessionID } })
    } catch (err) {
      say(`loopbreaker: could not stop the OpenCode session ${sessionID}: ${err}`)
    }
  }

  // answerOf reads loopbreaker's answer: what to refuse, what to tell the
  // model and the person, whether to stop.
  const answerOf = (a) => {
    const h = (a && a.hookSpecificOutput) || {}
    return {
      deny: !!a && (h.permissionDecision === "deny" || a.decision === "block" || a.decision === "deny"),
      stop: !!a && a.continue === false,
      reason: (a && (h.permissionDecisionReason || a.reason || a.stopReason)) || "",
      context: h.additionalContext || "",
      notice: (a && a.systemMessage) || "",
    }
  }

  // refuse throws the reason: OpenCode fails the call (or the prompt) with
  // it, and the model reads it as the call's error.
  const refuse = async (ans, sessionID, callID) => {
    say(ans.notice)
    if (callID) refused.add(callID)
    if (ans.stop) await abort(sessionID)
    throw new Error(ans.reason || "loopbreaker refused this call")
  }

  // lastText is the text of the session's last assistant message: what
  // the agent said at the end of its turn ("" when it cannot be read).
  const lastText = async (sessionID) => {
    try {
      const res = await client.session.messages({ path: { id: sessionID } })
      const messages = (res && res.data) || []
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i]
        if (!m.info || m.info.role !== "assistant") continue
        const text = (m.parts || []).filter((p) => p.type === "text" && p.text).map((p) => p.text).join("\n")
        if (text) return text
      }
    } catch {}
    return ""
  }

  // call is the payload fields of one tool call.
  const call = (sessionID, tool, callID, args) => ({
    session_id: sessionID,
    tool_name: tool,
    tool_use_id: callID,
    tool_input: args,
  })

  return {
    "tool.execute.before": async (input, output) => {
      busy.add(input.sessionID)
      const ans = answerOf(await ask("PreToolUse", call(input.sessionID, input.tool, input.callID, output.args)))
      if (ans.deny || ans.stop) await refuse(ans, input.sessionID, input.callID)
      say(ans.notice)
    },

    "tool.execute.after": async (input, output) => {
      reported.add(input.callID)
      const ans = answerOf(
        await ask("PostToolUse", {
          ...call(input.sessionID, input.tool, input.callID, input.args),
          tool_response: { title: output.title, output: output.output, metadata: output.metadata },
        }),
      )
      const note = ans.context || (ans.stop ? ans.reason : "")
      if (note && typeof output.output === "string") output.output += "\n\n" + note
      say(ans.notice)
      if (ans.stop) await abort(input.sessionID)
    },

    "chat.message": async (input, output) => {
      aborted.delete(input.sessionID)
      busy.add(input.sessionID)
      const prompt = (output.parts || [])
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      const ans = answerOf(await ask("UserPromptSubmit", { session_id: input.sessionID, prompt }))
      if (ans.deny || ans.stop) await refuse(ans, input.sessionID)
      say(ans.notice)
    },

    event: async ({ event }) => {
      const p = event.properties || {}
      if (event.type === "message.part.updated") {
        const part = p.part
        if (!part || part.type !== "tool" || !part.state || part.state.status !== "error") return
        if (reported.has(part.callID) || refused.has(part.callID)) return
        if (aborted.has(part.sessionID)) return
        reported.add(part.callID)
        const ans = answerOf(
          await ask("PostToolUseFailure", {
            ...call(part.sessionID, part.tool, part.callID, part.state.input),
            error: part.state.error,
          }),
        )
        say(ans.notice)
        if (ans.stop) await abort(part.sessionID)
        return
      }
      if (event.type === "session.created") {
        const id = p.sessionID || (p.info && p.info.id)
        const ans = answerOf(await ask("SessionStart", { session_id: id, source: "startup" }))
        say(ans.notice)
        if (ans.stop) await abort(id)
        return
      }
      if (event.type === "session.idle") {
        if (!busy.delete(p.sessionID)) return
        const last = await lastText(p.sessionID)
        const ans = answerOf(await ask("Stop", { session_id: p.sessionID, last_assistant_message: last }))
        say(ans.notice)
      }
    },
  }
}
