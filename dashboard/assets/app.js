// loopbreaker dashboard: polls the JSON API, renders the breakers, resets
// them for an admin. No framework, no build step; text is always set with
// textContent, so nothing from the API is ever parsed as HTML.
"use strict";

(() => {
  const meta = (name) => (document.querySelector(`meta[name="${name}"]`) || {}).content || "";
  const API = (meta("loopbreaker-api") || "/v1").replace(/\/+$/, "");
  const POLL_MS = Math.max(1000, parseInt(meta("loopbreaker-poll-ms"), 10) || 3000);
  // The tokens the server has ("admin", "read"): a token box only where a
  // token can do something; without an admin token resets are off.
  const TOKENS = meta("loopbreaker-tokens").split(" ").filter(Boolean);
  const ADMIN_TOKEN = TOKENS.includes("admin");
  const ANY_TOKEN = TOKENS.length > 0;
  const TOKEN_KEY = "loopbreaker.adminToken";
  // Detail rows open by themselves for non-CLOSED breakers, unless there
  // are so many that fetching each one's history would be wasteful.
  const AUTO_EXPAND_MAX = 6;
  const ORDER = { ERROR: -1, OPEN: 0, HALF_OPEN: 1, CLOSED: 2 };

  const $ = (id) => document.getElementById(id);

  const state = {
    breakers: [],
    lastOk: 0, // client time of the last good answer
    error: null, // the last refresh's error, null when it worked
    offset: 0, // server clock minus client clock, ms
    details: new Map(), // scope -> {breaker} | {error}
    userExpanded: new Map(), // scope -> bool, the user's own choice
    rows: new Map(), // scope -> row record
    order: "",
    resetScope: null,
    timer: 0,
  };

  // ---- the token: this tab only, sent as a header, never a cookie ----
  const storage = (() => {
    try {
      return window.sessionStorage;
    } catch {
      return null; // storage disabled: the token lives until reload
    }
  })();
  let memoryToken = "";
  const token = () => (storage ? storage.getItem(TOKEN_KEY) || "" : memoryToken);
  const setToken = (t) => {
    if (storage) {
      if (t) storage.setItem(TOKEN_KEY, t);
      else storage.removeItem(TOKEN_KEY);
    } else {
      memoryToken = t;
    }
  };

  // ---- the API ----
  class ApiError extends Error {
    constructor(status, message, code) {
      super(message);
      this.status = status;
      this.code = code || "";
    }
  }

  // The API answers errors as {"error": {"code", "message", "fields"}}.
  function errorCode(data) {
    return data && data.error && typeof data.error.code === "string" ? data.error.code : "";
  }

  function errorMessage(res, data, text) {
    let msg = "";
    if (data && typeof data === "object") {
      const e = data.error;
      if (typeof e === "string") msg = e;
      else if (e && typeof e.message === "string") msg = e.message;
      else if (typeof data.message === "string") msg = data.message;
      const fields = data.fields || (e && e.fields);
      if (fields && typeof fields === "object") {
        const parts = Object.keys(fields).map((k) => `${k} ${fields[k]}`);
        if (parts.length) msg += (msg ? ": " : "") + parts.join("; ");
      }
    }
    if (!msg && text && text.length < 300) msg = text.trim();
    return msg || `${res.status} ${res.statusText}`;
  }

  async function request(method, path, body) {
    const headers = { Accept: "application/json" };
    const t = token();
    if (t) headers.Authorization = "Bearer " + t;
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(API + path, init);
    } catch {
      throw new ApiError(0, `cannot reach the loopbreaker server at ${location.host}`);
    }
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, errorMessage(res, data, text), errorCode(data));
    if (path === "/breakers") noteServerClock(res, data);
    return data;
  }

  // Countdowns use the server's clock: from the list's "time" when the
  // answer has one, else its Date header (whole seconds, so offsets under
  // two seconds are taken as noise).
  function noteServerClock(res, data) {
    let server = NaN;
    if (data && typeof data === "object" && typeof data.time === "string") server = Date.parse(data.time);
    if (Number.isNaN(server)) server = Date.parse(res.headers.get("Date") || "");
    if (Number.isNaN(server)) return;
    const off = server - Date.now();
    state.offset = Math.abs(off) > 2000 ? off : 0;
  }

  const serverNow = () => Date.now() + state.offset;
  const scopePath = (scope) => "/breakers/" + encodeURIComponent(scope);

  function listOf(data) {
    if (Array.isArray(data)) return data;
    if (data && Array.isArray(data.breakers)) return data.breakers;
    return [];
  }
  const breakerOf = (data) => (data && data.breaker && typeof data.breaker === "object" ? data.breaker : data);

  // ---- refresh loop ----
  async function refresh() {
    try {
      // The server answers in pages (up to 1000 breakers each).
      let page = await request("GET", "/breakers");
      const list = listOf(page);
      for (let n = 0; page && page.next && n < 50; n++) {
        page = await request("GET", "/breakers?after=" + encodeURIComponent(page.next));
        list.push(...listOf(page));
      }
      state.breakers = list.filter((b) => b && typeof b.scope === "string");
      state.lastOk = Date.now();
      state.error = null;
      const wanted = state.breakers.filter(isExpanded).map((b) => b.scope);
      await Promise.all(wanted.map(loadDetail));
    } catch (e) {
      state.error = e;
    }
    render();
  }

  async function loadDetail(scope) {
    try {
      state.details.set(scope, { breaker: breakerOf(await request("GET", scopePath(scope))) });
    } catch (e) {
      state.details.set(scope, { error: e });
    }
  }

  function loop() {
    clearTimeout(state.timer);
    refresh().finally(() => {
      // Clear again: a refresh started meanwhile (after a reset, a new
      // token) must not leave two timer chains.
      clearTimeout(state.timer);
      state.timer = setTimeout(loop, POLL_MS);
    });
  }

  // ---- formatting ----
  // duration writes ms as "1h 05m", "4m 09s" or "12s"; with seconds,
  // hours show seconds too (a countdown that visibly moves).
  function duration(ms, seconds) {
    const s = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = s % 60;
    const pad = (n) => String(n).padStart(2, "0");
    if (h > 0) return seconds ? `${h}h ${pad(m)}m ${pad(sec)}s` : `${h}h ${pad(m)}m`;
    if (m > 0) return `${m}m ${pad(sec)}s`;
    return `${sec}s`;
  }

  // span writes a configured length: "1d", "1h", "30m", "1h 30m".
  function span(seconds) {
    if (!seconds) return "0s";
    const units = [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]];
    for (const [u, n] of units) if (seconds >= n && seconds % n === 0) return `${seconds / n}${u}`;
    return duration(seconds * 1000);
  }

  // clock writes a time with its date and zone: "2 Jun 2025, 14:00:00 UTC"
  // in the browser's locale and time zone. A time without its date or
  // zone is ambiguous to someone reading it later or elsewhere.
  function clock(iso) {
    const t = new Date(iso);
    if (Number.isNaN(t.getTime())) return "";
    return t.toLocaleString(undefined, {
      year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", second: "2-digit",
      timeZoneName: "short",
    });
  }

  // shown makes text from agents and the server safe to look at: control
  // characters (an ESC[31m from a test's output, a carriage return, the
  // bidirectional overrides) are written out as \x1b, \u009b, ... as
  // the CLI does (package termsafe), and Go durations read as people
  // write them ("1h0m0s" becomes "1h", "1m30s" "1m 30s").
  function shown(text) {
    if (typeof text !== "string") return "";
    const escaped = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
      const n = c.charCodeAt(0);
      return n < 0x80 ? "\\x" + n.toString(16).padStart(2, "0") : "\\u" + n.toString(16).padStart(4, "0");
    });
    return escaped.replace(/\b(\d+h)?(\d+m)?(\d+(?:\.\d+)?s)\b/g, (m, h, mi, sec) => {
      if (!h && !mi) return m; // "12s" is fine as it is
      const parts = [h, mi && mi !== "0m" ? mi : "", sec !== "0s" ? sec : ""].filter(Boolean);
      return parts.join(" ");
    });
  }

  // Detector names as words: no_progress -> "no progress".
  const detectorLabel = (name) => String(name || "").replace(/_/g, " ");

  // figure writes a counter's value in its unit: budgets count tokens,
  // calls or US dollar cents.
  function figure(c, v) {
    const n = Number(v) || 0;
    if (c && c.unit === "cents") return "$" + (n / 100).toFixed(2);
    if (c && (c.unit === "tokens" || c.unit === "calls")) return n.toLocaleString("en-US");
    return String(n);
  }

  // spendText sums up what the breaker's agent spent ("" when unknown).
  function spendText(sp) {
    if (!sp || typeof sp !== "object") return "";
    const calls = Number(sp.calls) || 0;
    if (sp.unmeasured_calls && sp.unmeasured_calls === calls) return `spent: ${calls} calls, tokens not reported`;
    const parts = [`${(Number(sp.tokens) || 0).toLocaleString("en-US")} tokens`];
    parts.push(sp.unpriced_tokens && sp.unpriced_tokens === sp.tokens ? "cost not known" : "$" + (Number(sp.cost_usd) || 0).toFixed(2));
    parts.push(`${calls} calls`);
    parts.push(`${(Number(sp.since_progress) || 0).toLocaleString("en-US")} since the last progress`);
    return "spent: " + parts.join(", ");
  }

  function ago(iso) {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return "";
    return duration(serverNow() - t) + " ago";
  }

  const stateClass = (s) => (s === "OPEN" || s === "ERROR" ? "open" : s === "HALF_OPEN" ? "half-open" : "closed");
  const stateLabel = (s) => (s === "HALF_OPEN" ? "HALF-OPEN" : s || "UNKNOWN");

  const present = (c) => c !== null && c !== undefined && c !== false;

  // put replaces node's children, skipping the absent ones (the DOM would
  // write them as "null").
  function put(node, ...children) {
    node.replaceChildren(...children.filter(present));
  }

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        else if (k in e && typeof v !== "string") e[k] = v;
        else e.setAttribute(k, v === true ? "" : v);
      }
    }
    e.append(...children.filter(present));
    return e;
  }

  // ---- rendering ----
  function sorted(list) {
    return [...list].sort(
      (a, b) => (ORDER[a.state] ?? 3) - (ORDER[b.state] ?? 3) || a.scope.localeCompare(b.scope),
    );
  }

  function nonClosedCount() {
    return state.breakers.filter((b) => b.state !== "CLOSED").length;
  }

  function isExpanded(b) {
    if (state.userExpanded.has(b.scope)) return state.userExpanded.get(b.scope);
    return b.state !== "CLOSED" && nonClosedCount() <= AUTO_EXPAND_MAX;
  }

  function render() {
    renderHeader();
    const list = sorted(state.breakers);
    const counts = { OPEN: 0, HALF_OPEN: 0, CLOSED: 0 };
    for (const b of list) if (b.state in counts) counts[b.state]++;
    const have = state.lastOk > 0;
    $("count-open").textContent = have ? counts.OPEN : "–";
    $("count-half-open").textContent = have ? counts.HALF_OPEN : "–";
    $("count-closed").textContent = have ? counts.CLOSED : "–";
    document.title = have && counts.OPEN > 0 ? `(${counts.OPEN} open) loopbreaker` : "loopbreaker";

    const tbody = $("rows");
    const seen = new Set();
    for (const b of list) {
      seen.add(b.scope);
      let rec = state.rows.get(b.scope);
      if (!rec) {
        rec = makeRow(b.scope);
        state.rows.set(b.scope, rec);
      }
      fillRow(rec, b);
    }
    for (const [scope, rec] of state.rows) {
      if (!seen.has(scope)) {
        rec.tr.remove();
        rec.detail.remove();
        state.rows.delete(scope);
        state.details.delete(scope);
      }
    }
    // Move rows only when the order changed: moving a row loses the focus
    // of a button inside it.
    const order = list.map((b) => b.scope).join("\n");
    if (order !== state.order) {
      for (const b of list) {
        const rec = state.rows.get(b.scope);
        tbody.append(rec.tr, rec.detail);
      }
      state.order = order;
    }
    $("breakers").hidden = have && list.length === 0;
    $("empty").hidden = !(have && list.length === 0);
    $("breakers").classList.toggle("stale", !!state.error && have);
    tick();
  }

  function renderHeader() {
    const alert = $("alert");
    const e = state.error;
    if (e) {
      let text;
      if (e.status === 0) {
        text = `Cannot reach the loopbreaker server at ${location.host}: is it still running?`;
      } else if (e.status === 401) {
        text = `The server needs a token to show the breakers: ${e.message}. Use "Enter admin token".`;
      } else {
        text = `The server answered ${e.status}: ${e.message}.`;
      }
      if (state.lastOk) text += ` The table shows its last answer; retrying every ${Math.round(POLL_MS / 1000)} s.`;
      else text += ` Retrying every ${Math.round(POLL_MS / 1000)} s.`;
      alert.textContent = text;
      alert.hidden = false;
    } else {
      alert.hidden = true;
      alert.textContent = "";
    }
    const admin = !!token();
    let who = admin ? "Admin token set (this tab)" : "Viewing without a token";
    if (!ANY_TOKEN) who = "No tokens on this server: resets are off (start it with LOOPBREAKER_ADMIN_TOKEN to allow them)";
    $("admin-state").textContent = who;
    $("admin-state").classList.toggle("admin", admin);
    $("sign-in").hidden = admin || !ANY_TOKEN;
    $("sign-out").hidden = !admin;
  }

  function makeRow(scope) {
    const rec = { scope };
    rec.tr = el("tr", { class: "breaker", "data-scope": scope });
    rec.cells = ["state", "scope", "failures", "cooldown", "reason", "actions"].map((name) =>
      el("td", { class: name + "-cell" }),
    );
    rec.tr.append(...rec.cells);
    const detailId = "detail-" + Math.random().toString(36).slice(2);
    rec.toggle = el("button", { type: "button", class: "link", "aria-controls": detailId });
    rec.toggle.addEventListener("click", () => {
      const b = state.breakers.find((x) => x.scope === scope);
      if (!b) return;
      const open = !isExpanded(b);
      state.userExpanded.set(scope, open);
      if (open) loadDetail(scope).then(render);
      else render();
    });
    rec.reset = el("button", { type: "button", class: "btn btn-danger reset" });
    rec.reset.textContent = "Reset…";
    rec.reset.addEventListener("click", () => openReset(scope));
    rec.needsAdmin = el("span", { class: "needs-admin", text: "admin token required" });
    rec.cells[5].classList.add("actions-cell");
    rec.cells[5].append(rec.reset, rec.needsAdmin, rec.toggle);
    rec.detailCell = el("td", { colspan: "6" });
    rec.detail = el("tr", { class: "detail", id: detailId }, rec.detailCell);
    return rec;
  }

  function fillRow(rec, b) {
    rec.b = b;
    const cls = stateClass(b.state);
    rec.tr.className = `breaker state-${cls}`;
    rec.detail.className = `detail state-${cls}`;
    const [cState, cScope, cFail, cCool, cReason] = rec.cells;

    let mode = null;
    if (b.state === "HALF_OPEN") {
      mode = b.mode === "warning" ? "warning" : b.probe ? "probe taken" : "waiting for a probe";
    }
    put(cState,
      el("span", { class: `badge badge-${cls}`, text: stateLabel(b.state) }),
      mode && el("span", { class: "mode", text: mode }),
    );

    put(cScope,
      el("span", { class: "scope", text: b.scope }),
      b.kind === "template" || (!b.kind && b.configured === false)
        ? el("span", { class: "tag", title: "made from breaker_template on first use; evicted when idle", text: "template" })
        : null,
      b.kind === "loop" ? el("span", { class: "tag", title: "a session or slice of the CLI, the hooks or run", text: "loop" }) : null,
      el("span", {
        class: "small",
        // A loop breaker counts iterations and tool calls, not outcomes in
        // a window: only the cooldown is its.
        text: b.kind === "loop"
          ? `cooldown ${span(b.cooldown_seconds)}`
          : `window ${span(b.window_seconds)} · cooldown ${span(b.cooldown_seconds)}`,
      }),
    );
    if (b.error) cScope.append(el("span", { class: "small error-text", text: "unusable: " + shown(b.error) }));

    // The figure of the detector that decides (the one that opened the
    // breaker: "no progress 3 / 3"), else the outcomes' failure window.
    const c = b.counter && typeof b.counter === "object" ? b.counter : null;
    const n = c ? Number(c.value) || 0 : Number(b.failures) || 0;
    const max = c ? Number(c.threshold) || 0 : Number(b.failure_threshold) || 0;
    const what = c ? detectorLabel(c.name) : b.kind === "loop" ? "" : "failure window";
    const frac = max > 0 ? Math.min(1, n / max) : 0;
    const bar = el("div", {
      class: "bar" + (n >= max && max > 0 ? " full" : frac >= 0.6 ? " warn" : ""),
      role: "img",
      "aria-label": what ? `${what}: ${n} of ${max}` : `${n} of ${max}`,
    });
    const fill = el("span");
    fill.style.width = `${Math.round(frac * 100)}%`; // CSSOM: allowed under the CSP
    bar.append(fill);
    const recent = Array.isArray(b.recent_failures) ? b.recent_failures : [];
    const last = recent[recent.length - 1];
    let note;
    if (c && c.detail) note = shown(c.detail);
    else if (c && c.name !== "failure_window") note = "";
    else if (b.kind === "loop" && !c) note = "nothing counted yet";
    else note = last ? `last failure ${ago(last.time)}` : "no failure in the window";
    put(cFail,
      what ? el("span", { class: "detector-name", text: what }) : null,
      b.kind === "loop" && !c ? null : el("span", { class: "failures-text", text: `${figure(c, n)} / ${figure(c, max)}` }),
      b.kind === "loop" && !c ? null : bar,
      note ? el("span", { class: "small", text: note }) : null,
    );

    rec.countdown = el("span", { class: "countdown" });
    rec.countdownNote = el("span", { class: "small" });
    cCool.replaceChildren(rec.countdown, rec.countdownNote);

    const reasonBits = [];
    if (b.opened_at && b.state !== "CLOSED") reasonBits.push(`opened ${clock(b.opened_at)}`);
    if (b.total_opens) reasonBits.push(`${b.total_opens} ${b.total_opens === 1 ? "open" : "opens"} in total`);
    const spent = spendText(b.spend);
    if (spent) reasonBits.push(spent);
    put(cReason,
      b.reason ? el("div", { class: "reason", text: shown(b.reason) }) : el("span", { class: "none", text: "—" }),
      reasonBits.length ? el("span", { class: "small", text: reasonBits.join(" · ") }) : null,
    );
    cReason.classList.toggle("empty-cell", !b.reason && !reasonBits.length);

    const expanded = isExpanded(b);
    rec.toggle.textContent = expanded ? "Hide history" : "History";
    rec.toggle.setAttribute("aria-expanded", String(expanded));
    const resettable = b.state !== "CLOSED";
    const admin = !!token() && ADMIN_TOKEN;
    rec.reset.hidden = !resettable;
    rec.reset.disabled = !admin;
    rec.reset.setAttribute("aria-disabled", String(!admin));
    rec.reset.title = admin
      ? `Reset ${b.scope}`
      : ADMIN_TOKEN
        ? "admin token required: use Enter admin token at the top"
        : "resets are off on this server: start it with LOOPBREAKER_ADMIN_TOKEN";
    rec.needsAdmin.textContent = ADMIN_TOKEN ? "admin token required" : "resets off on this server";
    rec.needsAdmin.hidden = !resettable || admin;

    rec.tr.classList.toggle("has-detail", expanded);
    rec.detail.hidden = !expanded;
    if (expanded) fillDetail(rec, b);
  }

  function fillDetail(rec, b) {
    const d = state.details.get(b.scope);
    const full = d && d.breaker ? d.breaker : null;
    const transitions = full && Array.isArray(full.transitions) ? full.transitions.slice(-8).reverse() : [];
    const failures = (full && Array.isArray(full.recent_failures) ? full.recent_failures : b.recent_failures || [])
      .slice()
      .reverse();

    const tList = el("ol");
    if (d && d.error) tList.append(el("li", { class: "none", text: "history unavailable: " + d.error.message }));
    else if (!full) tList.append(el("li", { class: "none", text: "loading…" }));
    else if (!transitions.length) tList.append(el("li", { class: "none", text: "no transition yet" }));
    for (const t of transitions) {
      tList.append(
        el(
          "li",
          null,
          el("time", { datetime: t.time, text: clock(t.time) }),
          el(
            "span",
            null,
            el("strong", { text: `${stateLabel(t.from)} → ${stateLabel(t.to)}` }),
            t.reason ? " " + shown(t.reason) : "",
          ),
        ),
      );
    }
    const fList = el("ol");
    if (!failures.length) fList.append(el("li", { class: "none", text: "none in the window" }));
    for (const f of failures) {
      fList.append(
        el(
          "li",
          null,
          el("time", { datetime: f.time, text: clock(f.time) }),
          el("span", { class: "decision", text: f.decision_id || "(no decision id)" }),
        ),
      );
    }
    rec.detailCell.replaceChildren(
      el(
        "div",
        { class: "detail-grid detail" },
        el("div", null, el("h3", { text: "Recent transitions" }), tList),
        b.kind === "loop"
          ? el("div", null, el("h3", { text: "What it counts" }), loopCounts(b))
          : el("div", null, el("h3", { text: "Failures in the window (decision ids)" }), fList),
      ),
    );
  }

  // loopCounts is a loop breaker's own vocabulary: it counts iterations
  // and tool calls against its detectors, not outcomes in a window.
  function loopCounts(b) {
    const list = el("ul");
    const c = b.counter && typeof b.counter === "object" ? b.counter : null;
    if (c) {
      list.append(el("li", { text: `${detectorLabel(c.name)}: ${figure(c, Number(c.value) || 0)} / ${figure(c, Number(c.threshold) || 0)}${c.detail ? " (" + shown(c.detail) + ")" : ""}` }));
    } else {
      list.append(el("li", { class: "none", text: "nothing counted yet" }));
    }
    const session = b.scope.startsWith("session:") ? `--session ${b.scope.slice("session:".length)}` : `--scope ${b.scope}`;
    list.append(el("li", { class: "small", text: `every counter: loopbreaker status ${session}, in the project` }));
    return list;
  }

  // tick updates what moves with time alone: countdowns and freshness.
  function tick() {
    const now = serverNow();
    for (const rec of state.rows.values()) {
      const b = rec.b;
      if (!b || !rec.countdown) continue;
      const retry = b.retry_at ? Date.parse(b.retry_at) : NaN;
      let main = "—";
      let note = "";
      let due = false;
      if (b.state === "OPEN") {
        if (Number.isNaN(retry)) {
          main = "until reset";
        } else if (retry > now) {
          main = duration(retry - now, true);
          note = `probe from ${clock(b.retry_at)}`;
        } else {
          main = "cooldown over";
          note = "the next check takes the probe";
          due = true;
        }
      } else if (b.state === "HALF_OPEN") {
        if (b.probe && !Number.isNaN(retry) && retry > now) {
          main = `probe ${duration(retry - now, true)}`;
          note = "left to report its outcome";
        } else if (b.probe) {
          main = "probe expired";
          note = "the next check takes a new probe";
          due = true;
        } else {
          main = b.mode === "warning" ? "—" : "probe free";
          note = b.mode === "warning" ? "" : "the next check takes it";
        }
      }
      rec.countdown.textContent = main;
      rec.countdown.classList.toggle("due", due);
      rec.countdown.classList.toggle("none", main === "—");
      rec.cells[3].classList.toggle("empty-cell", main === "—");
      rec.countdownNote.textContent = note;
    }
    const fresh = $("freshness");
    if (!state.lastOk) {
      fresh.textContent = state.error ? "server unreachable" : "loading…";
    } else {
      const secs = Math.max(0, Math.round((Date.now() - state.lastOk) / 1000));
      fresh.textContent = state.error ? `server unreachable · last update ${secs}s ago` : `updated ${secs}s ago`;
    }
    fresh.classList.toggle("stale", !!state.error);
  }

  // ---- dialogs ----
  function say(text, kind) {
    const m = $("message");
    m.textContent = text;
    m.className = "message" + (kind ? " " + kind : "");
  }

  function openReset(scope) {
    const b = state.breakers.find((x) => x.scope === scope);
    if (!b) return;
    if (!ADMIN_TOKEN) {
      say(`Resets are off on this server: start it with LOOPBREAKER_ADMIN_TOKEN to reset ${scope} here, or run loopbreaker reset where the breaker lives.`, "error");
      return;
    }
    if (!token()) {
      say(`Admin token required to reset ${scope}: use "Enter admin token" at the top.`, "error");
      return;
    }
    state.resetScope = scope;
    $("reset-scope").textContent = scope;
    const parts = [`It is ${stateLabel(b.state)}`];
    if (b.failure_threshold && b.kind !== "loop") parts.push(`with ${b.failures} of ${b.failure_threshold} failures in its window`);
    if (b.counter && b.counter.name !== "failure_window") parts.push(`on ${detectorLabel(b.counter.name)} ${figure(b.counter, b.counter.value)} / ${figure(b.counter, b.counter.threshold)}`);
    $("reset-now").textContent = parts.join(" ") + (b.reason ? `: ${shown(b.reason)}` : ".");
    $("reset-form").reset();
    $("reset-error").hidden = true;
    $("reset-confirm").disabled = false;
    $("reset-dialog").showModal();
  }

  async function confirmReset(ev) {
    ev.preventDefault();
    const scope = state.resetScope;
    if (!scope) return;
    const form = $("reset-form");
    const probeFirst = form.elements.mode.value === "probe";
    const reason = form.elements.reason.value.trim();
    const body = { mode: probeFirst ? "probe_first" : "force", by: "dashboard" };
    if (reason) body.reason = reason;
    const btn = $("reset-confirm");
    btn.disabled = true;
    btn.textContent = "Resetting…";
    try {
      const b = breakerOf(await request("POST", scopePath(scope) + "/reset", body));
      $("reset-dialog").close();
      const to = b && b.state ? stateLabel(b.state) : probeFirst ? "HALF-OPEN" : "CLOSED";
      say(`${scope} was reset: it is now ${to}.`, "ok");
      state.userExpanded.delete(scope);
      await refresh();
    } catch (e) {
      let text;
      if (e.status === 401 || e.code === "forbidden") {
        // Kept on 403: it may still be a valid read token.
        text = `Not reset: admin token required. The server says: ${e.message}.`;
        if (e.status === 401) setToken("");
      } else if (e.code === "reset_disabled") {
        text = `Not reset: ${e.message}.`;
      } else if (e.status === 0) {
        text = `Not reset: ${e.message}.`;
      } else {
        text = `Not reset (${e.status}): ${e.message}.`;
      }
      $("reset-error").textContent = text;
      $("reset-error").hidden = false;
      say(text, "error");
      render();
    } finally {
      btn.disabled = false;
      btn.textContent = "Reset";
    }
  }

  function openToken() {
    $("token-form").reset();
    $("token-dialog").showModal();
    $("token-input").focus();
  }

  function saveToken(ev) {
    ev.preventDefault();
    const t = $("token-input").value.trim();
    if (!t) return;
    setToken(t);
    $("token-dialog").close();
    say("Admin token set for this tab. Reset buttons are enabled; the server checks the token on each reset.", "ok");
    loop();
  }

  function init() {
    $("api-base").textContent = API;
    $("sign-in").addEventListener("click", openToken);
    $("sign-out").addEventListener("click", () => {
      setToken("");
      say("Token forgotten.", "");
      render();
    });
    $("token-form").addEventListener("submit", saveToken);
    $("reset-form").addEventListener("submit", confirmReset);
    for (const b of document.querySelectorAll("dialog [data-close]")) {
      b.addEventListener("click", () => b.closest("dialog").close());
    }
    $("reset-dialog").addEventListener("close", () => {
      state.resetScope = null;
    });
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) loop();
    });
    setInterval(tick, 1000);
    renderHeader();
    loop();
  }

  init();
})();
