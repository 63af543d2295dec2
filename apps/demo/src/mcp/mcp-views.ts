// The JSON shapes of the management surface, shared by `agentforge mcp --json` and the REST API.
// They are documented in the app's README ("JSON shapes"); change them only together with it.
import { type DiscoveredTool, type MCPServerHealth, toolUnavailableReason } from "@agentforge/mcp-client";
import type { MCPServerConfig, RedactedMCPServerConfig } from "@agentforge/mcp-config";

/** Why a server is unhealthy or an operation failed: a stable code, a message, the server's stderr tail. */
export interface ErrorView {
  /** The library's error code, e.g. `HTTP_DNS`, `SERVER_EXITED`, `COMMAND_NOT_FOUND`. */
  code: string;
  /** What failed and what to try (never a secret value). */
  message: string;
  /** stdio servers: the end of the server's stderr, when it wrote any. */
  stderrTail: string | null;
}

/** The result of a health check. */
export interface HealthView {
  /** `healthy`: it answered; `unhealthy`: see `error`; `disabled`: `enabled: false`, not checked. */
  status: "healthy" | "unhealthy" | "disabled";
  /** ISO 8601 time of the check. */
  checkedAt: string;
  /** Health check: the ping round trip; `test` and `refresh`: connect + tools/list. Null when disabled. */
  latencyMs: number | null;
  /** Tools listed (last known when unhealthy; null when never listed). */
  toolCount: number | null;
  /** Set when unhealthy. */
  error: ErrorView | null;
  /** The MCP revision negotiated with the server (`2026-07-28`, `2025-11-25`, ...), when it answered. */
  protocolVersion?: string;
}

/** A health result with its server's name. */
export interface NamedHealthView extends HealthView {
  name: string;
}

/** One configured server as listed (no I/O to build it). */
export interface ServerView {
  name: string;
  /** `display_name`, else the name. */
  displayName: string;
  description: string | null;
  transport: MCPServerConfig["transport"];
  enabled: boolean;
  /** Tools last listed (live cache, else the last health record); null when never listed. */
  toolCount: number | null;
  /** The last known health (persisted across processes); null when never checked. */
  health: HealthView | null;
}

/** What the REST API adds to a listed server: the live connection of the serving process. */
export interface LiveServerView extends ServerView {
  connection: {
    state: "disabled" | "idle" | "connecting" | "connected" | "backoff";
    pid: number | null;
    connectedAt: string | null;
    failures: number;
    /** The MCP revision negotiated on this connection, when connected. */
    protocolVersion: string | null;
  };
  /** A health check of this server is running right now. */
  checking: boolean;
}

/** What the server said about itself when it was connected. */
export interface LiveInfo {
  /** The MCP revision negotiated with the server (`auto` negotiates, `protocol_version` pins it). */
  protocolVersion: string | null;
  serverInfo: { name: string; version: string; title: string | null } | null;
  capabilities: Record<string, unknown> | null;
  instructions: string | null;
}

/** `mcp inspect <name>` and `GET /api/v1/mcp/servers/{name}`. */
export interface InspectView<S extends ServerView = ServerView> {
  server: S;
  /** The config entry, camelCase, with variable NAMES and whether each is set — never a value. */
  config: RedactedMCPServerConfig;
  /** Null when not connected (unhealthy; or REST and not connected yet). */
  live: LiveInfo | null;
}

/** One tool, with the agents the policy lets call it. */
export interface ToolView {
  /** `<server>.<tool>`. */
  identity: string;
  server: string;
  name: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
  /** Agents whose grants allow calling it (deny by default: often empty). */
  agents: string[];
  /**
   * Why no model is offered it although its server lists it (e.g. it only runs as a task and the
   * connection negotiated 2026-07-28, where the client runs no tasks); null when it is offered.
   */
  unavailable: string | null;
}

/** How listing one server's tools went. */
export interface ServerToolsStatus {
  name: string;
  /**
   * `rejected`: the server answered, but its tool list breaks the registry's rules (none is callable);
   * `not_listed`: not listed in this process yet (a GET never connects; POST lists).
   */
  status: "ok" | "failed" | "rejected" | "not_listed";
  toolCount: number;
  error: ErrorView | null;
}

/** A grant that does not do what it says: a pattern that matches none of its server's tools. */
export interface GrantWarningView {
  code: "GRANT_MATCHES_NO_TOOL";
  agent: string;
  /** The pattern as written in the grant. */
  pattern: string;
  /** The closest tool identity, when one is close. */
  suggestion: string | null;
  /** The whole warning in words. */
  message: string;
}

/** `mcp tools [<name>]` and `GET /api/v1/mcp/servers/{name}/tools`. */
export interface ToolsView {
  tools: ToolView[];
  servers: ServerToolsStatus[];
  /** Grants naming the listed servers that match none of their tools. */
  warnings: GrantWarningView[];
}

/** `mcp tools --agent X --search "query"`: what a search of that agent's tools returns. */
export interface ToolSearchView {
  agent: string;
  query: string;
  /** How many tools were searched: the agent's granted ones. */
  candidates: number;
  /**
   * Whether a tool loop over the listed tools would give this agent search_tools (by its `tool_search:`
   * settings), and why.
   */
  search: { mode: "auto" | "on" | "off"; on: boolean; reason: string };
  hits: { identity: string; score: number; title: string | null; description: string }[];
  /** The servers listed for the search (failures reported per server). */
  servers: ServerToolsStatus[];
}

/** `mcp test <name>`. */
export interface TestView {
  name: string;
  ok: boolean;
  /** Connect + initialize + tools/list, in milliseconds. */
  latencyMs: number;
  toolCount: number | null;
  /** Tool names. */
  tools: string[];
  error: ErrorView | null;
}

/** `mcp health [<name>]`. */
export interface HealthReport {
  servers: NamedHealthView[];
  summary: { healthy: number; unhealthy: number; disabled: number };
}

/** One server in `refresh`. */
export interface RefreshEntry {
  name: string;
  status: "ok" | "failed" | "disabled";
  toolCount: number;
  durationMs: number;
  error: ErrorView | null;
}

/** `mcp refresh` and `POST /api/v1/mcp/refresh`. */
export interface RefreshView {
  servers: RefreshEntry[];
  /** Tools discovered across all servers. */
  toolCount: number;
  durationMs: number;
}

const STDERR_HEADER =
  /\n(?:Last \d+ characters of the stderr of "[^"\n]*"[^\n]*:\n|stderr of "[^"\n]*"[^\n]* was empty\.[^\n]*)/;
const MAX_TAIL_CHARS = 4000;

/**
 * Split a client error message into what happened and the stderr tail it ends with (stdio errors
 * end with `Last 4000 characters of the stderr of "<name>" (...):` and the tail).
 */
export function splitStderrSection(text: string): { message: string; stderrTail: string | null } {
  const match = STDERR_HEADER.exec(text);
  if (!match) return { message: text, stderrTail: null };
  const tail = text.slice(match.index + match[0].length).replace(/\s+$/, "");
  return {
    message: text.slice(0, match.index),
    stderrTail: tail === "" ? null : tail.slice(-MAX_TAIL_CHARS),
  };
}

/** An error as the views carry it. */
export function errorView(code: string, message: string): ErrorView {
  const split = splitStderrSection(message);
  return { code, message: split.message, stderrTail: split.stderrTail };
}

/** A view of any thrown value (MCP errors keep their code). */
export function errorViewOf(error: unknown): ErrorView {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : "FAILED";
  const serverName =
    typeof error === "object" &&
    error !== null &&
    "serverName" in error &&
    typeof error.serverName === "string"
      ? error.serverName
      : undefined;
  if (code === "AUTH_REQUIRED" && serverName) return errorView(code, needsLogin(serverName));
  return errorView(code, error instanceof Error ? error.message : String(error));
}

/** What a server behind an OAuth login that has none yet is shown as, everywhere (CLI, REST, page). */
export function needsLogin(serverName: string): string {
  return `needs login — run agentforge mcp login ${serverName}`;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The view of a client health result. */
export function healthView(health: MCPServerHealth): HealthView {
  return {
    status: health.status,
    checkedAt: health.checkedAt,
    latencyMs: health.latencyMs === null ? null : round(health.latencyMs),
    toolCount: health.toolCount,
    error:
      health.status !== "unhealthy"
        ? null
        : health.errorCode === "AUTH_REQUIRED"
          ? errorView("AUTH_REQUIRED", needsLogin(health.serverName))
          : errorView(health.errorCode ?? "FAILED", health.error ?? ""),
    ...(health.protocolVersion !== undefined ? { protocolVersion: health.protocolVersion } : {}),
  };
}

/** A health record from a `test` or `refresh` outcome (latency = connect + tools/list). */
export function outcomeHealth(
  outcome: { ok: true; toolCount: number } | { ok: false; error: ErrorView; toolCount: number | null },
  latencyMs: number,
  checkedAt = new Date().toISOString(),
): HealthView {
  return {
    status: outcome.ok ? "healthy" : "unhealthy",
    checkedAt,
    latencyMs: round(latencyMs),
    toolCount: outcome.toolCount,
    error: outcome.ok ? null : outcome.error,
  };
}

/** The listed view of a config entry. */
export function serverView(
  config: MCPServerConfig,
  health: HealthView | null,
  cachedToolCount?: number | null,
): ServerView {
  return {
    name: config.name,
    displayName: config.displayName ?? config.name,
    description: config.description ?? null,
    transport: config.transport,
    enabled: config.enabled,
    toolCount: cachedToolCount ?? health?.toolCount ?? null,
    health,
  };
}

/** A tool with the agents `decide` allows. */
export function toolView(tool: DiscoveredTool, agentsAllowed: (identity: string) => string[]): ToolView {
  return {
    identity: tool.identity,
    server: tool.serverName,
    name: tool.toolName,
    title: tool.title ?? null,
    description: tool.description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations: tool.annotations ? (tool.annotations as Record<string, unknown>) : null,
    agents: agentsAllowed(tool.identity),
    unavailable: toolUnavailableReason(tool) ?? null,
  };
}

/** The parts of an SDK client the live view reads. */
export interface LiveClient {
  getServerVersion(): { name: string; version: string; title?: string } | undefined;
  getServerCapabilities(): object | undefined;
  getInstructions(): string | undefined;
}

/** What a connected client learned from the server (initialize, or server/discover on 2026-07-28). */
export function liveInfo(client: LiveClient, protocolVersion: string | undefined): LiveInfo {
  const version = client.getServerVersion();
  const capabilities = client.getServerCapabilities();
  return {
    protocolVersion: protocolVersion ?? null,
    serverInfo: version
      ? { name: version.name, version: version.version, title: version.title ?? null }
      : null,
    capabilities: capabilities ? { ...(capabilities as Record<string, unknown>) } : null,
    instructions: client.getInstructions() ?? null,
  };
}
