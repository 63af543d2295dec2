/**
 * The public types of the manager and its transports (options, events, health, status), in a module of
 * their own so that the modules using them never import back from the modules that import them.
 */
import type { EnvSource } from "@agentforge/mcp-config";
import type { Progress, CallToolResult as SdkCallToolResult } from "@modelcontextprotocol/client";

/**
 * A tool's result as the manager returns it: the SDK's `CallToolResult`, with `structuredContent`
 * always a JSON object when present (a reply with any other value loses it; see `toCallToolResult`).
 */
export type CallToolResult = SdkCallToolResult & {
  structuredContent?: Record<string, unknown>;
};

import type { DiscoveredTool } from "./discover-tools.js";
import type { MCPConnectionError, MCPConnectionKind } from "./errors.js";
import type { MCPAuthorizeFunction, MCPOAuthTokenStore } from "./oauth-token-store.js";

/** Options of `createTransport` (the manager passes its own). */
export interface CreateTransportOptions {
  /** Where variable NAMES are looked up (default `process.env`). */
  env?: EnvSource;
  /** What `${NODE}` expands to (default `process.execPath`). */
  nodePath?: string;
  /** Folder of `<server>.stderr.log` files. Default `false`: no files, stderr is kept in memory only. */
  logDir?: string | false;
  /** Message-size limit for stdio servers without `maxMessageBytes` (default 64 MiB). */
  maxMessageBytes?: number;
  /** Extra variable names passed to stdio children, besides HOME, LOGNAME, PATH, SHELL, TERM, USER. */
  inheritEnv?: readonly string[];
  /** For http servers: which transport to build (default Streamable HTTP). */
  http?: "streamable-http" | "sse";
  /** stdio: grace period of each shutdown step (default 1000 ms). */
  shutdownGraceMs?: number;
  /** `grant: authorization_code`: where logins are kept (default: memory, per manager). */
  tokenStore?: MCPOAuthTokenStore;
  /**
   * `grant: authorization_code`: where a browser is opened for a login. Default: print the URL and try
   * the system browser when stdin is a terminal; otherwise (and with `false`) a login fails with
   * `AUTH_REQUIRED` ("needs login").
   */
  authorize?: MCPAuthorizeFunction | false;
  /** `grant: authorization_code`: how long a login may take (default 300000 ms). */
  loginTimeoutMs?: number;
}

/** Options of `MCPClientManager.callTool`. Defaults come from the server's config. */
export interface MCPCallToolOptions {
  /** Cancels the call: `notifications/cancelled` is sent and the call rejects with `REQUEST_CANCELLED`. */
  signal?: AbortSignal;
  /** Time without an answer before `MCPTimeoutError` (default `tool_timeout` × 1000). */
  timeoutMs?: number;
  /** Restart the timeout on each progress notification (default `reset_timeout_on_progress`). */
  resetTimeoutOnProgress?: boolean;
  /** Hard upper bound of the call, progress or not (default `max_total_timeout` × 1000, if set). */
  maxTotalTimeoutMs?: number;
  /** Receives the server's progress notifications for this call. */
  onprogress?: (progress: Progress) => void;
  /**
   * Extra `_meta` of this call's request (e.g. `io.agentforge/roots`). Protocol keys
   * (`io.modelcontextprotocol/...`, `progressToken`, `traceparent`, `tracestate`) are never taken from
   * it; at most 16 KiB as JSON (a larger one is a `RangeError`).
   */
  meta?: Record<string, unknown>;
  /** W3C trace context of this call, sent as `_meta.traceparent` / `_meta.tracestate`. */
  traceContext?: { traceparent: string; tracestate?: string };
  /**
   * Told of each `input_required` round of this call (2026-07-28: the server asks for input in its
   * answer and the client asks again with the answers), before the round is answered: its number and
   * modes only. A listener that throws is ignored (the call goes on).
   */
  onInputRound?: (round: MCPInputRound) => void;
}

/**
 * What one embedded input request of a round asks for: a form or URL elicitation, sampling, roots, or
 * something else (a method this client does not know).
 */
export type MCPInputRoundMode = "elicitation.form" | "elicitation.url" | "sampling" | "roots" | "other";

/** One `input_required` round of a call: never the server's message, schema, keys, values or state. */
export interface MCPInputRound {
  /** 1 for the first round, counting up to the client's limit (8). */
  round: number;
  /** One mode per input request of the round, sorted; empty when the round only carries state. */
  modes: MCPInputRoundMode[];
}

/** Status of a health check. */
export type MCPHealthStatus = "healthy" | "unhealthy" | "disabled";

/** The result of a health check, as cached and returned by `lastHealth`. */
export interface MCPServerHealth {
  /** The server's name. */
  serverName: string;
  /** `healthy`: ping and tools/list answered; `unhealthy`: see `error`; `disabled`: not checked. */
  status: MCPHealthStatus;
  /** Ping round trip when healthy; time until failure when unhealthy; null when disabled. */
  latencyMs: number | null;
  /** Number of tools (last known when unhealthy; null when never discovered). */
  toolCount: number | null;
  /** Why the server is unhealthy (no secret values). */
  error?: string;
  /** The error's code (e.g. `COMMAND_NOT_FOUND`, `HTTP_UNAUTHORIZED`, `REQUEST_TIMEOUT`). */
  errorCode?: string;
  /**
   * The MCP revision negotiated with the server (e.g. `2026-07-28`, or `2025-11-25` and older for the
   * initialize handshake), when connected. Set by `protocol_version` (`auto` negotiates).
   */
  protocolVersion?: string;
  /** ISO 8601 time of the check. */
  checkedAt: string;
}

/** A snapshot of one server's connection, for status displays. */
export interface MCPConnectionStatus {
  /** The server's name. */
  serverName: string;
  /** Whether the config enables it. */
  enabled: boolean;
  /** `backoff`: the last attempt failed and the next is not due yet. */
  state: "disabled" | "idle" | "connecting" | "connected" | "backoff";
  /** How it is connected, when it is. */
  transport?: MCPConnectionKind;
  /** stdio: the child's process id, when connected. */
  pid?: number;
  /**
   * The MCP revision negotiated with the server (e.g. `2026-07-28`, or `2025-11-25` and older for the
   * initialize handshake), when connected. Set by `protocol_version` (`auto` negotiates).
   */
  protocolVersion?: string;
  /** ISO 8601 time the current connection was made. */
  connectedAt?: string;
  /** Consecutive failed connection attempts. */
  failures: number;
  /** `backoff`: milliseconds until the next attempt is allowed. */
  retryInMs?: number;
  /** Message of the last failed attempt (no secret values). */
  lastError?: string;
  /** stdio: the stderr log of the current connection. */
  stderrLogPath?: string;
  /** Number of tools last discovered (null when never discovered). */
  toolCount: number | null;
}

/** Why a connection ended. */
export type MCPDisconnectReason = "closed" | "lost" | "recycled" | "reconfigured" | "removed";

/** Payload of `connected`. */
export interface MCPConnectedEvent {
  /** The server's name. */
  serverName: string;
  /** How it is connected (`sse` after a fallback). */
  transport: MCPConnectionKind;
  /** stdio: the child's process id. */
  pid?: number;
  /** Connection attempts made for this server so far, this one included. */
  attempt: number;
  /** The MCP revision negotiated with the server (see `MCPConnectionStatus.protocolVersion`). */
  protocolVersion?: string;
  /** Time the attempt took. */
  durationMs: number;
}

/** Payload of `disconnected`. */
export interface MCPDisconnectedEvent {
  /** The server's name. */
  serverName: string;
  /** How it was connected. */
  transport: MCPConnectionKind;
  /** `lost`: ended by the server or the network; otherwise ended by the manager. */
  reason: MCPDisconnectReason;
  /** stdio: the child's process id. */
  pid?: number;
  /** stdio: its exit code, when it exited. */
  exitCode?: number | null;
  /** stdio: the signal that ended it, if any. */
  signal?: string | null;
}

/** Payload of `connectionFailed`. */
export interface MCPConnectionFailedEvent {
  /** The server's name. */
  serverName: string;
  /** The classified failure (no secret values). */
  error: MCPConnectionError;
  /** Consecutive failures so far. */
  failures: number;
  /** Time before the next attempt is allowed. */
  retryInMs: number;
}

/** Payload of `toolsChanged`: the server's new full tool list and what changed by name. */
export interface MCPToolsChangedEvent {
  /** The server's name. */
  serverName: string;
  /** Its complete tool list now (empty when removed or disabled). */
  tools: DiscoveredTool[];
  /** Tool names that appeared. */
  added: string[];
  /** Tool names that disappeared. */
  removed: string[];
  /** Tool names whose definition changed. */
  changed: string[];
}

/** Payload of `healthChanged` (fired when a server's health status differs from the previous check). */
export interface MCPHealthChangedEvent {
  /** The server's name. */
  serverName: string;
  /** The new result. */
  health: MCPServerHealth;
  /** The previous result, if there was one. */
  previous?: MCPServerHealth;
}

/** Payload of `listenerError`: a listener of another event threw or returned a rejected promise. */
export interface MCPListenerErrorEvent {
  /** The event whose listener failed (e.g. `toolsChanged`). */
  event: MCPClientManagerEventName;
  /** The server the event was about. */
  serverName: string;
  /** What the listener threw (or the rejection reason), as it was. */
  error: unknown;
}

/**
 * The manager's events, each with its listener's type: `manager.on("toolsChanged", (event) => ...)`
 * returns the function that unsubscribes (one `MCPEventEmitter` of `@agentforge/mcp-config`).
 */
export interface MCPClientManagerEvents {
  /** A connection was established (first time or reconnect). */
  connected: (event: MCPConnectedEvent) => void;
  /** A connection ended (see `reason`). */
  disconnected: (event: MCPDisconnectedEvent) => void;
  /** A connection attempt failed; the next one waits `retryInMs`. */
  connectionFailed: (event: MCPConnectionFailedEvent) => void;
  /** A server's tool list differs from the one cached (list_changed, reconnect, health check, reload). */
  toolsChanged: (event: MCPToolsChangedEvent) => void;
  /** A server's health status changed. */
  healthChanged: (event: MCPHealthChangedEvent) => void;
  /**
   * A listener of another event threw or rejected. The error was contained (the host and the other
   * listeners were not affected); a `listenerError` listener that throws is a process warning.
   */
  listenerError: (event: MCPListenerErrorEvent) => void;
}

/** The name of one of the manager's events. */
export type MCPClientManagerEventName = keyof MCPClientManagerEvents;
