// `agentforge mcp list|inspect|tools|test|health|refresh|reconnect|reload`: the MCP roster from the command line.
// Exit codes: 0 ok, 1 something unhealthy or failed, 2 usage or config error (thrown to cli.ts).

import { API_TOKEN_VARIABLE } from "../http/request-guard.js";
import type { CatalogSection, CatalogView } from "../mcp/catalog-views.js";
import type { MCPManagementOptions, ReconnectView, ReloadView } from "../mcp/mcp-management.js";
import type {
  ErrorView,
  HealthReport,
  HealthView,
  InspectView,
  RefreshView,
  ServerView,
  TestView,
  ToolSearchView,
  ToolsView,
} from "../mcp/mcp-views.js";
import { UnknownServerError } from "../mcp/unknown-server-error.js";
import { terminalJson, terminalSafe, writeJson, writeOut } from "../shared/terminal-safe.js";
import { UsageError } from "../shared/usage-error.js";
import { parseMCPArgs } from "./mcp-args.js";
import {
  type Cell,
  formatTable,
  indentTail,
  painter,
  type Style,
  shortTime,
  wantsColor,
} from "./terminal-output.js";
import { MCP_USAGE } from "./usage.js";

export { MCP_USAGE };

const VERBS = ["list", "inspect", "tools", "test", "health", "refresh", "reconnect", "reload"] as const;
type Verb = (typeof VERBS)[number];

const ARITY: Record<Verb, [min: number, max: number, usage: string]> = {
  list: [0, 0, "mcp list"],
  inspect: [1, 1, "mcp inspect <name>"],
  tools: [0, 1, "mcp tools [<name>]"],
  test: [1, 1, "mcp test <name>"],
  health: [0, 1, "mcp health [<name>]"],
  refresh: [0, 0, "mcp refresh"],
  reconnect: [1, 1, "mcp reconnect <name>"],
  reload: [0, 0, "mcp reload [--url URL]"],
};

interface Output {
  json: boolean;
  write(text: string): void;
  paint: (style: Style, text: string) => string;
  redact: (text: string) => string;
}

/** Run `agentforge mcp <argv...>`; resolves with the exit code, throws usage and config errors. */
export async function mcpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseMCPArgs(argv);
  if (values.help) {
    process.stdout.write(`${MCP_USAGE}\n`);
    return 0;
  }
  const json = values.json === true;
  try {
    const [verb, ...args] = positionals;
    if (verb === undefined)
      throw new UsageError(`mcp expects a verb: ${VERBS.join(", ")} (see agentforge mcp --help)`);
    if (!(VERBS as readonly string[]).includes(verb)) {
      throw new UsageError(
        `unknown mcp verb "${verb}"; verbs: ${VERBS.join(", ")} (see agentforge mcp --help)`,
      );
    }
    const [min, max, usage] = ARITY[verb as Verb];
    if (args.length < min || args.length > max) {
      throw new UsageError(`usage: agentforge ${usage} [--config FILE] [--state-dir DIR] [--json]`);
    }
    const options: MCPManagementOptions = {
      ...(values.config ? { configPath: values.config } : {}),
      ...(values["state-dir"] ? { stateDir: values["state-dir"] } : {}),
    };
    const out: Output = {
      json,
      // Human text is cleaned; JSON escapes what a terminal would act on (the value is unchanged).
      write: (text) => (json ? process.stdout.write(`${terminalJson(text)}\n`) : writeOut(text)),
      paint: painter(!json && wantsColor(process.stdout)),
      redact: (text) => text,
    };
    if (verb === "list") return await list(options, out);
    if (verb === "reload") return await reload(options, values.url, out);
    if (values.url !== undefined) throw new UsageError("--url is an option of mcp reload only");
    const search = searchOptions(verb as Verb, values);
    const { MCPManagement } = await import("../mcp/mcp-management.js");
    // A person at a terminal is asked when a server requests input; otherwise requests are declined.
    if (!json && process.stdin.isTTY && process.stderr.isTTY) {
      const { terminalElicitation } = await import("./elicitation-prompt.js");
      options.elicitation = terminalElicitation({ input: process.stdin, output: process.stderr });
    }
    const management = await MCPManagement.open(options);
    out.redact = (text) => management.redactor.redact(text);
    try {
      const name = args[0];
      if (name !== undefined) management.server(name);
      switch (verb as Exclude<Verb, "list" | "reload">) {
        case "inspect": {
          const view = await management.inspect(name as string, { connect: true });
          const catalog = view.live ? await management.catalog(name as string) : null;
          return inspect({ ...view, catalog }, out);
        }
        case "tools":
          if (search) {
            return searchResult(
              await management.searchTools(search.agent, search.query, {
                ...(name !== undefined ? { server: name } : {}),
                ...(search.limit !== undefined ? { limit: search.limit } : {}),
              }),
              out,
            );
          }
          return tools(await management.tools(name), out);
        case "test":
          return test(await management.test(name as string), out);
        case "health":
          return health(await management.checkAll(name === undefined ? undefined : [name]), out);
        case "refresh":
          return refresh(await management.refresh(), out);
        case "reconnect":
          return reconnect(await management.reconnect(name as string), out);
      }
    } finally {
      await management.close();
    }
  } catch (error) {
    if (json) writeJson({ error: await jsonError(error) }, 2);
    throw error;
  }
}

async function jsonError(error: unknown): Promise<Record<string, unknown>> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UnknownServerError) return { code: "SERVER_NOT_FOUND", message, known: error.known };
  if (error instanceof UsageError) return { code: "USAGE", message };
  // Loaded on this error path only: the config package (and zod) stay out of `mcp --help`.
  const { MCPError } = await import("@agentforge/mcp-config/core");
  if (MCPError.isInstance(error)) return { code: error.code, message };
  if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
    return { code: "USAGE", message };
  }
  return { code: "FAILED", message };
}

function emit(out: Output, value: unknown, text: () => string): void {
  out.write(out.redact(out.json ? JSON.stringify(value, null, 2) : text()));
}

function healthCell(health: HealthView | null): Cell {
  if (!health) return { text: "never checked", style: "dim" };
  const style: Style = health.status === "healthy" ? "green" : health.status === "unhealthy" ? "red" : "dim";
  return { text: health.status, style };
}

function errorLines(error: ErrorView, paint: Output["paint"], indent = "    "): string {
  const lines = [`${indent}${paint("red", error.code)}: ${error.message.split("\n").join(`\n${indent}`)}`];
  if (error.stderrTail)
    lines.push(
      `${indent}${paint("dim", "stderr (end):")}`,
      paint("dim", indentTail(error.stderrTail, `${indent}  `)),
    );
  return lines.join("\n");
}

async function list(options: MCPManagementOptions, out: Output): Promise<number> {
  const { listServers } = await import("../mcp/server-list.js");
  const { view: result, redactor } = await listServers(options);
  out.redact = (text) => redactor.redact(text);
  emit(out, result, () => {
    const rows = result.servers.map((s: ServerView): Cell[] => [
      s.name,
      s.displayName,
      s.transport,
      s.enabled ? "yes" : { text: "no", style: "dim" },
      healthCell(s.health),
      shortTime(s.health?.checkedAt),
      s.toolCount === null ? "-" : String(s.toolCount),
      s.health?.protocolVersion ?? { text: "-", style: "dim" },
      s.description ? firstLine(s.description, 60) : { text: "-", style: "dim" },
    ]);
    return `${formatTable(["NAME", "DISPLAY NAME", "TRANSPORT", "ENABLED", "HEALTH", "CHECKED", "TOOLS", "MCP", "DESCRIPTION"], rows, out.paint)}\n${out.paint("dim", `config: ${result.config}`)}`;
  });
  return 0;
}

function catalogLines(catalog: CatalogView, out: Output): string[] {
  const lines: string[] = [];
  const section = <T>(title: string, value: CatalogSection<T> | null, line: (item: T) => string): void => {
    lines.push("", out.paint("bold", title));
    if (value === null) lines.push(`  ${out.paint("dim", "(not offered)")}`);
    else if (value.error) lines.push(`  ${out.paint("red", value.error)}`);
    else if (value.items.length === 0) lines.push("  (none)");
    for (const item of value?.items ?? []) lines.push(`  ${line(item)}`);
    if (value?.more)
      lines.push(
        `  ${out.paint("dim", "… more (GET /api/v1/mcp/servers/<name>/resources|prompts pages through all)")}`,
      );
  };
  const about = (description: string | undefined) => (description ? ` — ${firstLine(description, 70)}` : "");
  section(
    "Resources",
    catalog.resources,
    (r) =>
      `${terminalSafe(r.uri, 200)}${r.mimeType ? ` (${terminalSafe(r.mimeType, 60)})` : ""}${about(r.description)}`,
  );
  section(
    "Resource templates",
    catalog.resourceTemplates,
    (t) => `${terminalSafe(t.uriTemplate, 200)}${about(t.description)}`,
  );
  section("Prompts", catalog.prompts, (p) => {
    const args = p.arguments.map((a) => `${a.name}${a.required ? "" : "?"}`).join(", ");
    return `${terminalSafe(p.name, 100)}(${terminalSafe(args, 200)})${about(p.description)}`;
  });
  return lines;
}

function inspect(view: InspectView & { catalog: CatalogView | null }, out: Output): number {
  emit(out, view, () => {
    const { server, config, live } = view;
    const lines = [
      `${out.paint("bold", server.name)} — ${server.displayName} (${server.transport}, ${server.enabled ? "enabled" : "disabled"})`,
    ];
    if (server.description) lines.push(server.description);
    lines.push("", out.paint("bold", "Config (redacted: variable names, never values)"));
    const { variables, ...rest } = config;
    for (const [key, value] of Object.entries(rest)) lines.push(`  ${key}: ${JSON.stringify(value)}`);
    lines.push("", out.paint("bold", "Variables"));
    if (variables.length === 0) lines.push("  (none)");
    for (const v of variables)
      lines.push(
        `  ${v.name} (${v.field}): ${v.set ? out.paint("green", "set") : out.paint("yellow", "unset")}`,
      );
    lines.push("", out.paint("bold", "Live"));
    if (live) {
      lines.push(
        `  server: ${live.serverInfo ? `${live.serverInfo.name} ${live.serverInfo.version}` : "(not reported)"}`,
        `  protocol version: ${live.protocolVersion ?? "(not known)"}`,
        `  capabilities: ${live.capabilities ? Object.keys(live.capabilities).join(", ") || "(none)" : "(not reported)"}`,
      );
      if (live.instructions) lines.push(`  instructions: ${live.instructions}`);
      if (view.catalog) lines.push(...catalogLines(view.catalog, out));
    } else lines.push(`  not connected`);
    const health = server.health;
    lines.push("", `${out.paint("bold", "Health")}: ${healthText(health, out)}`);
    if (health?.error) lines.push(errorLines(health.error, out.paint, "  "));
    return lines.join("\n");
  });
  return view.server.enabled && view.server.health?.status !== "healthy" ? 1 : 0;
}

function healthText(health: HealthView | null, out: Output): string {
  const cell = healthCell(health);
  const text = typeof cell === "string" ? cell : cell.style ? out.paint(cell.style, cell.text) : cell.text;
  if (!health || health.latencyMs === null) return text;
  const revision = health.protocolVersion ? `, MCP ${health.protocolVersion}` : "";
  return `${text} (${health.latencyMs.toFixed(1)} ms, ${health.toolCount ?? "?"} tools${revision}, ${shortTime(health.checkedAt)})`;
}

function tools(view: ToolsView, out: Output): number {
  emit(out, view, () => {
    const blocks = view.servers.map((server) => {
      // A server that failed, or whose tool list the registry rejected (none of its tools is callable).
      if (server.status !== "ok" && server.error)
        return `${out.paint("bold", server.name)}: ${out.paint("red", server.status)}\n${errorLines(server.error, out.paint)}`;
      const listed = view.tools.filter((t) => t.server === server.name);
      const rows = listed.map((t): Cell[] => [
        t.identity,
        t.unavailable !== null
          ? { text: "(not offered to models)", style: "yellow" }
          : t.agents.length
            ? t.agents.join(", ")
            : { text: "(none)", style: "dim" },
        firstLine(t.description),
      ]);
      // Listed but never offered to a model (e.g. task-only on a 2026-07-28 connection): say why.
      const reasons = listed
        .filter((t) => t.unavailable !== null)
        .map(
          (t) =>
            `  ${out.paint("yellow", "not offered")} ${terminalSafe(`${t.identity}: ${t.unavailable ?? ""}`, 500)}`,
        );
      return [
        `${out.paint("bold", server.name)} (${server.toolCount} tools)`,
        formatTable(["TOOL", "AGENTS", "DESCRIPTION"], rows, out.paint),
        ...reasons,
      ].join("\n");
    });
    // Grants that match none of the listed tools: a typo grants nothing, silently, unless said here.
    const warnings = view.warnings.map(
      (w) => `${out.paint("yellow", "warning")}: ${terminalSafe(w.message, 400)}`,
    );
    return [...blocks, ...(warnings.length > 0 ? [warnings.join("\n")] : [])].join("\n\n");
  });
  return view.servers.every((s) => s.status === "ok") ? 0 : 1;
}

/** `--agent X --search "query" [--limit N]`: only with `tools`, the three together. */
function searchOptions(
  verb: Verb,
  values: { agent?: string | undefined; search?: string | undefined; limit?: string | undefined },
): { agent: string; query: string; limit?: number } | undefined {
  const { agent, search, limit } = values;
  if (agent === undefined && search === undefined && limit === undefined) return undefined;
  if (verb !== "tools") throw new UsageError("--agent, --search and --limit are options of mcp tools only");
  if (agent === undefined || search === undefined) {
    throw new UsageError(
      'usage: agentforge mcp tools [<name>] --agent <agent> --search "<what to do>" [--limit N]',
    );
  }
  if (limit !== undefined && !/^(10|[1-9])$/.test(limit)) {
    throw new UsageError(`--limit expects an integer from 1 to 10, got "${limit}"`);
  }
  return { agent, query: search, ...(limit !== undefined ? { limit: Number(limit) } : {}) };
}

function searchResult(view: ToolSearchView, out: Output): number {
  emit(out, view, () => {
    const failed = view.servers
      .filter((s) => s.status !== "ok" && s.error)
      .map(
        (s) =>
          `${out.paint("bold", s.name)}: ${out.paint("red", s.status)}\n${errorLines(s.error as ErrorView, out.paint)}`,
      );
    const rows = view.hits.map((hit, i): Cell[] => [
      String(i + 1),
      hit.identity,
      hit.score.toFixed(2),
      firstLine(hit.description, 70),
    ]);
    const head = `Tools of agent ${out.paint("bold", terminalSafe(view.agent, 80))} for "${terminalSafe(view.query, 200)}" (${view.candidates} searched)`;
    const table =
      rows.length > 0
        ? formatTable(["#", "TOOL", "SCORE", "DESCRIPTION"], rows, out.paint)
        : out.paint(
            "dim",
            view.candidates === 0 ? "  (the agent is granted no tool)" : "  (no tool matched)",
          );
    const mode = `a run with these tools would search for them: ${view.search.on ? out.paint("green", "yes") : "no"} (${view.search.mode}: ${view.search.reason})`;
    return [...failed, head, table, out.paint("dim", mode)].join("\n");
  });
  return view.servers.every((s) => s.status === "ok") ? 0 : 1;
}

function firstLine(text: string, width = 80): string {
  const line = terminalSafe(text.split("\n")[0] ?? "", width * 4);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function reconnect(view: ReconnectView, out: Output): number {
  emit(out, view, () => {
    const pids =
      view.previousPid !== null || view.pid !== null
        ? ` (pid ${view.previousPid ?? "-"} → ${view.pid ?? "-"})`
        : "";
    const head = `${view.name}: reconnected${pids} — ${healthText(view, out)}`;
    return view.error ? `${head}\n${errorLines(view.error, out.paint)}` : head;
  });
  return view.status === "unhealthy" ? 1 : 0;
}

/**
 * \`mcp reload\`: a one-shot process has no running roster to reload, so without --url it checks the file
 * (exit 2 when it does not load) and lists what a running server would apply; with --url it asks that
 * \`agentforge serve\` to reload (POST /api/v1/mcp/reload, with AGENTFORGE_API_TOKEN when set).
 */
async function reload(options: MCPManagementOptions, url: string | undefined, out: Output): Promise<number> {
  if (url === undefined) {
    const { loadMCPConfig } = await import("@agentforge/mcp-config/node");
    const { SHIPPED_CONFIG } = await import("../app/shipped-config.js");
    const { resolve } = await import("node:path");
    const file = resolve(options.configPath ?? SHIPPED_CONFIG);
    // A grant naming a server the roster lacks already failed the load (file, line, did-you-mean).
    const config = await loadMCPConfig(file);
    const disabled = new Set(config.servers.filter((s) => !s.enabled).map((s) => s.name));
    // Grants of servers left `enabled: false` give no tools: legal, but worth saying.
    const warnings = Object.entries(config.permissions).flatMap(([agent, grant]) =>
      grant.allow
        .filter((pattern) => disabled.has(pattern.slice(0, pattern.indexOf("."))))
        .map((pattern) => ({
          code: "GRANT_OF_DISABLED_SERVER" as const,
          agent,
          pattern,
          message: `Grant "${pattern}" of agent "${agent}" names server "${pattern.slice(0, pattern.indexOf("."))}", which is disabled (enabled: false): it gives no tools, and a run of "${agent}" fails with SERVER_DISABLED.`,
        })),
    );
    const view = {
      configPath: file,
      valid: true,
      servers: config.servers.map((s) => ({ name: s.name, enabled: s.enabled, transport: s.transport })),
      warnings,
      applied: false,
    };
    emit(out, view, () =>
      [
        `${file}: valid, ${view.servers.length} servers (${view.servers
          .filter((s) => s.enabled)
          .map((s) => s.name)
          .join(", ")} enabled)`,
        ...warnings.map((w) => `${out.paint("yellow", "warning")}: ${terminalSafe(w.message, 400)}`),
        "Nothing is running in this process: reload a running server with --url URL, SIGHUP, or agentforge serve --watch-config.",
      ].join("\n"),
    );
    return 0;
  }
  let target: URL;
  try {
    target = new URL("/api/v1/mcp/reload", url);
  } catch {
    throw new UsageError(
      `--url expects the base URL of agentforge serve (e.g. http://127.0.0.1:8080), got "${url}"`,
    );
  }
  const token = process.env[API_TOKEN_VARIABLE];
  const response = await fetch(target, {
    method: "POST",
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const error = (body.error ?? {}) as { code?: string; message?: string };
    emit(
      out,
      body,
      () => `reload failed: ${error.code ?? response.status}: ${error.message ?? response.statusText}`,
    );
    return 1;
  }
  const view = body as unknown as ReloadView;
  emit(out, view, () => {
    const list = (names: string[]) => (names.length ? names.join(", ") : "-");
    const failed = Object.entries(view.failed);
    return [
      `reloaded ${view.configPath}`,
      `  added:     ${list(view.added)}`,
      `  removed:   ${list(view.removed)}`,
      `  restarted: ${list(view.changed)}`,
      `  unchanged: ${list(view.unchanged)}`,
      ...failed.map(([name, message]) => `  ${out.paint("red", name)}: ${message}`),
    ].join("\n");
  });
  return Object.keys(view.failed).length > 0 ? 1 : 0;
}

function test(view: TestView, out: Output): number {
  emit(out, view, () =>
    view.ok
      ? `${view.name}: ${out.paint("green", "ok")} — ${view.toolCount} tools in ${view.latencyMs.toFixed(1)} ms (connect + tools/list)\n  ${view.tools.join(", ")}`
      : `${view.name}: ${out.paint("red", "failed")} after ${view.latencyMs.toFixed(1)} ms\n${errorLines(view.error as ErrorView, out.paint)}`,
  );
  return view.ok ? 0 : 1;
}

function health(report: HealthReport, out: Output): number {
  emit(out, report, () => {
    const rows = report.servers.map((s): Cell[] => [
      s.name,
      healthCell(s),
      s.latencyMs === null ? "-" : `${s.latencyMs.toFixed(1)} ms`,
      s.toolCount === null ? "-" : String(s.toolCount),
      s.protocolVersion ?? "-",
      s.error?.code ?? "",
    ]);
    const details = report.servers
      .filter((s) => s.error)
      .map((s) => `${out.paint("bold", s.name)}\n${errorLines(s.error as ErrorView, out.paint)}`);
    const { healthy, unhealthy, disabled } = report.summary;
    return [
      formatTable(["NAME", "STATUS", "LATENCY", "TOOLS", "MCP", "ERROR"], rows, out.paint),
      ...(details.length ? ["", ...details] : []),
      "",
      `${healthy} healthy, ${unhealthy} unhealthy, ${disabled} disabled`,
    ].join("\n");
  });
  return report.summary.unhealthy > 0 ? 1 : 0;
}

function refresh(view: RefreshView, out: Output): number {
  emit(out, view, () => {
    const rows = view.servers.map((s): Cell[] => [
      s.name,
      { text: s.status, style: s.status === "ok" ? "green" : s.status === "failed" ? "red" : "dim" },
      String(s.toolCount),
      `${s.durationMs.toFixed(1)} ms`,
      s.error?.code ?? "",
    ]);
    const details = view.servers
      .filter((s) => s.error)
      .map((s) => `${out.paint("bold", s.name)}\n${errorLines(s.error as ErrorView, out.paint)}`);
    return [
      formatTable(["NAME", "STATUS", "TOOLS", "TIME", "ERROR"], rows, out.paint),
      ...(details.length ? ["", ...details] : []),
      "",
      `${view.toolCount} tools rediscovered in ${view.durationMs.toFixed(1)} ms`,
    ].join("\n");
  });
  return view.servers.some((s) => s.status === "failed") ? 1 : 0;
}
