// The /mcp page: server cards, health checks, tools, and the live events of a docs run.
// Plain browser JavaScript, no build step. Server data is only ever inserted as text (never as HTML).

(() => {
  const API = "/api/v1";
  /** How often the server list is read again (the page stays current without a reload). */
  const LIVE_MS = 2000;
  const TOKEN_KEY = "agentforge-api-token";
  const $ = (id) => document.getElementById(id);

  /** Create an element: h("p", { class: "x" }, "text", child). */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) if (child !== null && child !== undefined) el.append(child);
    return el;
  }

  class HttpError extends Error {
    constructor(status, body) {
      super(body?.error?.message || `HTTP ${status}`);
      this.status = status;
      this.code = body?.error?.code || "HTTP_ERROR";
    }
  }

  function authHeaders() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  async function api(path, options = {}) {
    const response = await fetch(`${API}${path}`, {
      ...options,
      headers: { Accept: "application/json", ...authHeaders(), ...(options.headers || {}) },
    });
    if (response.status === 401) showAuth();
    if (!response.ok) {
      let body;
      try {
        body = await response.json();
      } catch {
        body = undefined;
      }
      throw new HttpError(response.status, body);
    }
    return response;
  }
  const getJson = async (path) => (await api(path)).json();
  const postJson = async (path, body) =>
    (
      await api(path, {
        method: "POST",
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json();

  // ---- Authentication (only when the server requires a token) ----
  function showAuth() {
    $("auth").hidden = false;
    $("auth-token").focus();
  }
  $("auth-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("auth-token").value);
    $("auth").hidden = true;
    loadServers();
  });

  // ---- Server cards ----
  const servers = new Map();
  let pollTimer;

  function formatTime(iso) {
    if (!iso) return "never";
    const date = new Date(iso);
    return `${date.toLocaleDateString()} ${date.toLocaleTimeString()}`;
  }

  function badgeFor(server) {
    if (server.checking) return { status: "checking", text: "checking…" };
    if (!server.enabled) return { status: "disabled", text: "disabled" };
    if (!server.health) return { status: "unknown", text: "not checked" };
    return { status: server.health.status, text: server.health.status };
  }

  function renderCard(server) {
    const id = `server-${server.name}`;
    const badge = badgeFor(server);
    const health = server.health;
    const error = health?.error;
    // The live connection's revision, else the one the last health check saw.
    const protocol = server.connection?.protocolVersion ?? health?.protocolVersion ?? null;
    const checkButton = h(
      "button",
      {
        type: "button",
        "data-action": "check",
        "aria-label": `Check health of ${server.name}`,
        // aria-disabled (not disabled) while checking, so keyboard focus stays on the button.
        disabled: !server.enabled,
        "aria-disabled": server.checking ? "true" : undefined,
        onclick: () => checkHealth(server.name),
      },
      "Check health",
    );
    const toolsButton = h(
      "button",
      {
        type: "button",
        "data-action": "tools",
        "aria-label": `Show tools of ${server.name}`,
        "aria-controls": "tools-panel",
        "aria-expanded": String(openTools === server.name),
        disabled: !server.enabled,
        onclick: () => showTools(server.name),
      },
      "Show tools",
    );
    return h(
      "li",
      {
        class: "card",
        id,
        "data-server": server.name,
        "data-status": badge.status,
        "aria-labelledby": `${id}-name`,
      },
      h(
        "div",
        { class: "card-header" },
        h("h3", { id: `${id}-name` }, server.name),
        h("span", { class: "badge", "data-status": badge.status, "data-field": "status" }, badge.text),
      ),
      server.displayName !== server.name ? h("p", { class: "muted" }, server.displayName) : null,
      server.description ? h("p", { "data-field": "description" }, server.description) : null,
      h(
        "dl",
        {},
        h("dt", {}, "Transport"),
        h("dd", { "data-field": "transport" }, server.transport),
        h("dt", {}, "Tools"),
        h("dd", { "data-field": "tools" }, server.toolCount === null ? "–" : String(server.toolCount)),
        h("dt", {}, "Last check"),
        h(
          "dd",
          {},
          health
            ? h("time", { datetime: health.checkedAt, "data-field": "checked" }, formatTime(health.checkedAt))
            : h("span", { "data-field": "checked" }, "never"),
        ),
        health && health.latencyMs !== null ? h("dt", {}, "Latency") : null,
        health && health.latencyMs !== null ? h("dd", {}, `${health.latencyMs.toFixed(1)} ms`) : null,
        protocol ? h("dt", {}, "MCP revision") : null,
        protocol ? h("dd", { "data-field": "protocol" }, protocol) : null,
      ),
      error
        ? h(
            "div",
            { class: "error", "data-field": "error" },
            h("p", {}, h("strong", {}, error.code), `: ${error.message}`),
            error.stderrTail
              ? h(
                  "details",
                  {},
                  h("summary", {}, "stderr (end)"),
                  h("pre", { "data-field": "stderr" }, error.stderrTail),
                )
              : null,
          )
        : null,
      h("div", { class: "actions" }, checkButton, toolsButton),
    );
  }

  function renderServers() {
    const list = $("servers");
    // Keep keyboard focus on the same button across re-renders.
    const focused = document.activeElement;
    const focusKey = focused?.closest?.(".card")
      ? [focused.closest(".card").dataset.server, focused.dataset.action]
      : null;
    list.replaceChildren(...[...servers.values()].map(renderCard));
    list.setAttribute("aria-busy", "false");
    if (focusKey)
      list
        .querySelector(`[data-server="${CSS.escape(focusKey[0])}"] [data-action="${focusKey[1]}"]`)
        ?.focus();
    const all = [...servers.values()];
    const count = (status) =>
      all.filter((s) => s.enabled && s.health?.status === status && !s.checking).length;
    const checking = all.filter((s) => s.checking).length;
    $("summary").textContent =
      `${all.length} servers: ${count("healthy")} healthy, ${count("unhealthy")} unhealthy` +
      (checking ? `, ${checking} being checked` : "");
  }

  async function loadServers() {
    try {
      const body = await getJson("/mcp/servers");
      servers.clear();
      for (const server of body.servers) servers.set(server.name, server);
      renderServers();
      if ($("servers-status").dataset.kind === "load-error") {
        $("servers-status").textContent = "";
        delete $("servers-status").dataset.kind;
      }
      // Stay current: the server checks every server on an interval (health polling) and on demand;
      // the list is read again every few seconds (every second while checks are running).
      clearTimeout(pollTimer);
      pollTimer = setTimeout(loadServers, body.servers.some((s) => s.checking) ? 1000 : LIVE_MS);
    } catch (error) {
      $("servers-status").textContent = `Could not load the servers: ${error.message}`;
      $("servers-status").dataset.kind = "load-error";
      clearTimeout(pollTimer);
      pollTimer = setTimeout(loadServers, LIVE_MS * 2);
    }
  }

  async function checkHealth(name) {
    const server = servers.get(name);
    if (!server || server.checking) return;
    servers.set(name, { ...server, checking: true });
    renderServers();
    $("servers-status").textContent = `Checking ${name}…`;
    try {
      const health = await postJson(`/mcp/servers/${encodeURIComponent(name)}/health-check`);
      const { name: _ignored, ...view } = health;
      servers.set(name, {
        ...server,
        checking: false,
        health: view,
        toolCount: view.toolCount ?? server.toolCount,
      });
      $("servers-status").textContent = `${name} is ${view.status} (checked ${formatTime(view.checkedAt)}).`;
    } catch (error) {
      servers.set(name, { ...server, checking: false });
      $("servers-status").textContent = `Checking ${name} failed: ${error.message}`;
    }
    renderServers();
  }

  $("refresh-all").addEventListener("click", async () => {
    const button = $("refresh-all");
    button.disabled = true;
    button.textContent = "Refreshing…";
    $("servers-status").textContent = "Reconnecting and rediscovering every server…";
    try {
      const result = await postJson("/mcp/refresh");
      const failed = result.servers.filter((s) => s.status === "failed").length;
      $("servers-status").textContent =
        `Refreshed: ${result.toolCount} tools rediscovered in ${Math.round(result.durationMs)} ms` +
        (failed ? `, ${failed} servers failed.` : ".");
    } catch (error) {
      $("servers-status").textContent = `Refresh failed: ${error.message}`;
    }
    button.disabled = false;
    button.textContent = "Refresh all";
    await loadServers();
  });

  // ---- Tools of one server ----
  let openTools = null;

  async function showTools(name) {
    if (openTools === name) {
      closeTools();
      return;
    }
    openTools = name;
    renderServers();
    const panel = $("tools-panel");
    panel.hidden = false;
    $("tools-heading").textContent = `Tools of ${name}`;
    $("tools").replaceChildren();
    $("tools-status").textContent = `Loading the tools of ${name}…`;
    $("tools-heading").focus();
    try {
      // A POST: listing may start or connect the server, which a GET never does.
      const view = await postJson(`/mcp/servers/${encodeURIComponent(name)}/tools`);
      if (openTools !== name) return;
      // A server whose list failed or was rejected (a tool name listed twice: none is callable) says why.
      const problem = view.servers.find((server) => server.status !== "ok" && server.error);
      $("tools-status").textContent = problem
        ? `${problem.status === "rejected" ? "Tools rejected" : "Could not list the tools"} (${problem.error.code}): ${problem.error.message}`
        : `${view.tools.length} tools.`;
      const rows = view.tools.map((tool) =>
        h(
          "tr",
          { "data-tool": tool.identity },
          h("th", { scope: "row" }, h("code", {}, tool.name)),
          h("td", {}, tool.description || "–"),
          h(
            "td",
            {},
            tool.unavailable
              ? `not offered to models: ${tool.unavailable}`
              : tool.agents.length
                ? tool.agents.join(", ")
                : "none (deny by default)",
          ),
        ),
      );
      $("tools").replaceChildren(
        h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, `Tools of ${name}`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Tool"),
              h("th", { scope: "col" }, "Description"),
              h("th", { scope: "col" }, "Agents allowed"),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
      );
      await loadServers();
    } catch (error) {
      if (openTools === name)
        $("tools-status").textContent = `Could not list the tools of ${name}: ${error.message}`;
    }
  }

  function closeTools() {
    const name = openTools;
    openTools = null;
    $("tools-panel").hidden = true;
    renderServers();
    if (name) document.querySelector(`[data-server="${CSS.escape(name)}"] [data-action="tools"]`)?.focus();
  }
  $("tools-close").addEventListener("click", closeTools);

  // ---- Docs runs and their live events (SSE read with fetch, so the token header can be sent) ----
  let currentRun = null;
  let streamAbort = null;
  // The last event shown: a resume (or a reconnect) continues from it instead of replaying everything.
  let lastSeen = 0;

  function describe(event) {
    const d = event.data;
    switch (event.type) {
      case "run_started":
        return `run ${d.resumed ? "resumed" : "started"} on ${d.folder} (${d.model})`;
      case "server_unavailable":
        return `server ${d.server} unavailable: ${d.message}`;
      case "round_saved":
        return `round ${d.round} saved`;
      case "tool_progress": {
        const amount =
          typeof d.total === "number" && d.total > 0
            ? `${d.progress}/${d.total} (${Math.min(100, Math.round((d.progress / d.total) * 100))}%)`
            : String(d.progress);
        return `… ${d.identity} ${amount}`;
      }
      case "confirmation_requested":
        return `${d.identity} waits for a person's confirmation (see "Waiting for confirmation")`;
      case "confirmation_resolved":
        return `${d.identity} ${d.status === "expired" ? "not confirmed in time: denied" : d.decision === "allow" ? "allowed" : "denied"}${d.answeredBy ? ` by ${d.answeredBy}` : ""}`;
      case "MCP_TOOL_CALL_CONFIRMATION_REQUESTED":
        return `? ${d.identity} needs a person's confirmation`;
      case "MCP_TOOL_CALL_CONFIRMATION_RESOLVED":
        return `${d.decision === "allow" ? "✓" : "✗"} ${d.identity} ${d.decision === "allow" ? "confirmed" : "not confirmed"} (${d.source})`;
      case "elicitation_declined":
        return `server ${d.server} asked for input (${d.mode} mode); declined (nobody at a terminal to answer)`;
      case "run_finished":
        return `run ${d.status} (${d.calls} tool calls)${d.error ? `: ${d.error}` : ""}`;
      case "MCP_TOOL_CALL_STARTED":
        return `→ ${d.identity}`;
      case "MCP_TOOL_CALL_COMPLETED":
        return `✓ ${d.identity} ${d.outcome} in ${Math.round(d.durationMs)} ms`;
      case "MCP_TOOL_CALL_FAILED":
        return `✗ ${d.identity} ${d.outcome}${d.errorCode ? ` ${d.errorCode}` : ""}${d.message ? `: ${d.message}` : ""}`;
      default:
        return event.type;
    }
  }

  function appendEvent(event) {
    const time = new Date(event.data.timestamp || Date.now()).toLocaleTimeString();
    // A call's progress updates one line (its latest value) instead of adding a line per report.
    if (event.type === "tool_progress") {
      const call = String(event.data.callId);
      const existing = [...$("run-log").querySelectorAll('li[data-event="tool_progress"]')].find(
        (li) => li.dataset.call === call,
      );
      const text = `${time} tool_progress — ${describe(event)}`;
      if (existing) {
        existing.textContent = text;
        existing.dataset.id = event.id;
        return;
      }
      const li = h("li", { "data-event": event.type, "data-id": event.id }, text);
      li.dataset.call = call;
      $("run-log").append(li);
      return;
    }
    const outcome = event.type === "MCP_TOOL_CALL_FAILED" ? "failed" : undefined;
    $("run-log").append(
      h(
        "li",
        { "data-event": event.type, "data-id": event.id, "data-outcome": outcome },
        `${time} ${event.type} — ${describe(event)}`,
      ),
    );
    const log = $("run-log");
    log.scrollTop = log.scrollHeight;
  }

  function parseSse(block) {
    const event = { id: 0, type: "message", data: "" };
    const data = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") event.id = Number(value);
      else if (field === "event") event.type = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0) return null;
    event.data = JSON.parse(data.join("\n"));
    return event;
  }

  async function followRun(run) {
    streamAbort?.abort();
    const controller = new AbortController();
    streamAbort = controller;
    let finished = false;
    for (let attempt = 0; attempt < 5 && !finished && !controller.signal.aborted; attempt++) {
      try {
        const response = await api(`/runs/${run.id}/events`, {
          headers: { Accept: "text/event-stream", "Last-Event-ID": String(lastSeen) },
          signal: controller.signal,
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const event = parseSse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
            if (!event) continue;
            if (event.id <= lastSeen) continue;
            lastSeen = event.id;
            appendEvent(event);
            if (event.type === "run_finished") finished = true;
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        $("run-status").textContent = `Event stream interrupted (${error.message}); reconnecting…`;
      }
      if (!finished) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!controller.signal.aborted) await showRun(run.id);
  }

  async function showRun(id) {
    try {
      const run = await getJson(`/runs/${id}`);
      currentRun = run;
      $("run-status").textContent =
        `Run ${run.id}: ${run.status}, ${run.calls.length} tool calls in ${run.round} rounds.${run.error ? ` ${run.error}` : ""}`;
      $("run-resume").hidden = run.status !== "paused" && run.status !== "failed";
      $("run-document").hidden = !run.document;
      $("run-document-text").textContent = run.document || "";
    } catch (error) {
      $("run-status").textContent = `Could not load run ${id}: ${error.message}`;
    }
  }

  $("run-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = $("run-start");
    const body = { folder: $("run-folder").value };
    const pause = $("run-pause").value;
    if (pause) body.pauseAfter = Number(pause);
    button.disabled = true;
    $("run-log").replaceChildren();
    lastSeen = 0;
    $("run-document").hidden = true;
    $("run-resume").hidden = true;
    $("run-status").textContent = "Starting…";
    try {
      const run = await postJson("/runs", body);
      currentRun = run;
      $("run-status").textContent = `Run ${run.id}: ${run.status}`;
      button.disabled = false;
      await followRun(run);
    } catch (error) {
      $("run-status").textContent = `Could not start the run: ${error.message}`;
      button.disabled = false;
    }
  });

  $("run-resume").addEventListener("click", async () => {
    if (!currentRun) return;
    $("run-resume").hidden = true;
    $("run-status").textContent = `Resuming ${currentRun.id}…`;
    try {
      const run = await postJson(`/runs/${currentRun.id}/resume`, {});
      $("run-status").textContent = `Run ${run.id}: ${run.status}`;
      await followRun(run);
    } catch (error) {
      $("run-status").textContent = `Could not resume: ${error.message}`;
    }
  });

  // ---- Confirmations the runs wait for (answered here: Allow / Deny) ----
  let confirmationTimer;
  /** Calls being answered right now (their buttons stay disabled until the list is read again). */
  const answering = new Set();

  function annotationWords(annotations) {
    const words = [];
    if (annotations?.destructiveHint === true) words.push("destructive");
    if (annotations?.destructiveHint === false) words.push("not destructive");
    if (annotations?.readOnlyHint === true) words.push("read-only");
    if (annotations?.readOnlyHint === false) words.push("not read-only");
    if (annotations?.idempotentHint === true) words.push("idempotent");
    if (annotations?.openWorldHint === true) words.push("reaches outside systems");
    return words.length ? words.join(", ") : "none stated";
  }

  function renderConfirmation(item) {
    const key = `${item.runId}/${item.callId}`;
    const busy = answering.has(key);
    const button = (decision, label) =>
      h(
        "button",
        {
          type: "button",
          class: decision === "deny" ? "danger" : "primary",
          "data-action": decision,
          "aria-label": `${label} ${item.identity} (run ${item.runId})`,
          disabled: busy,
          onclick: () => answerConfirmation(item, decision),
        },
        label,
      );
    return h(
      "li",
      { class: "confirmation", "data-run": item.runId, "data-call": item.callId },
      h("p", {}, h("strong", {}, item.identity), item.title ? ` — ${item.title}` : ""),
      h(
        "dl",
        {},
        h("dt", {}, "Agent"),
        h("dd", {}, item.agent),
        h("dt", {}, "Annotations"),
        h(
          "dd",
          { "data-field": "annotations" },
          `${annotationWords(item.annotations)} (as the server states them)`,
        ),
        h("dt", {}, "Expires"),
        h("dd", {}, h("time", { datetime: item.expiresAt }, formatTime(item.expiresAt))),
      ),
      h("p", { class: "muted" }, "Arguments:"),
      h("pre", { "data-field": "preview" }, item.argumentsPreview),
      h("div", { class: "actions" }, button("allow", "Allow"), button("deny", "Deny")),
    );
  }

  function renderConfirmations(items) {
    const byRun = new Map();
    for (const item of items) {
      if (!byRun.has(item.runId)) byRun.set(item.runId, []);
      byRun.get(item.runId).push(item);
    }
    const focused = document.activeElement?.closest?.(".confirmation");
    const focusKey = focused
      ? [focused.dataset.run, focused.dataset.call, document.activeElement.dataset.action]
      : null;
    $("confirmations").replaceChildren(
      ...[...byRun].map(([runId, list]) =>
        h(
          "section",
          { class: "confirmation-run", "data-run": runId, "aria-label": `Run ${runId}` },
          h("h3", {}, `Run ${runId}`),
          h("ul", { class: "confirmation-list" }, ...list.map(renderConfirmation)),
        ),
      ),
    );
    if (focusKey) {
      document
        .querySelector(
          `.confirmation[data-run="${CSS.escape(focusKey[0])}"][data-call="${CSS.escape(focusKey[1])}"] [data-action="${focusKey[2]}"]`,
        )
        ?.focus();
    }
    $("confirmations-summary").textContent = items.length
      ? `${items.length} tool call${items.length === 1 ? "" : "s"} waiting for confirmation.`
      : "Nothing is waiting for confirmation.";
  }

  async function loadConfirmations() {
    clearTimeout(confirmationTimer);
    try {
      const body = await getJson("/confirmations");
      renderConfirmations(body.confirmations);
    } catch (error) {
      $("confirmations-summary").textContent = `Could not load the confirmations: ${error.message}`;
    }
    confirmationTimer = setTimeout(loadConfirmations, LIVE_MS);
  }

  async function answerConfirmation(item, decision) {
    const key = `${item.runId}/${item.callId}`;
    if (answering.has(key)) return;
    answering.add(key);
    const status = $("confirmations-status");
    status.textContent = `${decision === "allow" ? "Allowing" : "Denying"} ${item.identity}…`;
    document
      .querySelectorAll(
        `.confirmation[data-run="${CSS.escape(item.runId)}"][data-call="${CSS.escape(item.callId)}"] button`,
      )
      .forEach((b) => {
        b.disabled = true;
      });
    try {
      const result = await postJson(item.links.answer.replace(/^\/api\/v1/, ""), { decision, scope: "call" });
      status.textContent = `${item.identity} ${decision === "allow" ? "allowed" : "denied"}${result.resumed ? "; the run continues." : result.resumeError ? `; the run was not resumed: ${result.resumeError.message}` : "."}`;
      if (result.resumed && currentRun?.id === item.runId) followRun(result.run);
    } catch (error) {
      status.textContent = `Could not answer: ${error.message}`;
    } finally {
      answering.delete(key);
      await loadConfirmations();
    }
  }

  loadServers();
  loadConfirmations();
})();
