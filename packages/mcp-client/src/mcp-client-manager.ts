import {
  type EnvSource,
  MCPConfigError,
  type MCPConfigIssue,
  MCPEventEmitter,
  type MCPServerConfig,
  reportListenerError,
} from "@agentforge/mcp-config";
import type { Client } from "@modelcontextprotocol/client";
import {
  type DiscoveredTool,
  type DiscoverOptions,
  discoverAll,
  type MCPDiscoveryResult,
} from "./discover-tools.js";
import type { MCPElicitationHandler } from "./elicitation.js";
import { MCPServerNotFoundError } from "./errors.js";
import {
  readPromptPage,
  readPromptResult,
  readResourceContents,
  readResourcePage,
  readResourceTemplatePage,
} from "./internal/calls/read-resources.js";
import type { ConnectionSettings, ManagerEventPayloads } from "./internal/connection/connection-types.js";
import { ServerConnection } from "./internal/lifecycle/server-connection.js";
import { type BackoffOptions, DEFAULT_BACKOFF } from "./internal/shared/backoff.js";
import { PACKAGE_VERSION } from "./internal/shared/package-version.js";
import { stableStringify } from "./internal/shared/stable-stringify.js";
import {
  type MCPAuthorizeFunction,
  MCPMemoryTokenStore,
  type MCPOAuthTokenStore,
} from "./oauth-token-store.js";
import type {
  MCPGetPromptResult,
  MCPListOptions,
  MCPPromptPage,
  MCPReadOptions,
  MCPReadResourceResult,
  MCPResourcePage,
  MCPResourceTemplatePage,
} from "./resources.js";
import type {
  CallToolResult,
  CreateTransportOptions,
  MCPCallToolOptions,
  MCPClientManagerEventName,
  MCPClientManagerEvents,
  MCPConnectionStatus,
  MCPServerHealth,
} from "./types.js";

/** Options of `MCPClientManager`. */
export interface MCPClientManagerOptions {
  /** Where variable NAMES from the configs are looked up at connect time (default `process.env`). */
  env?: EnvSource;
  /** What `${NODE}` expands to (default `process.execPath`). */
  nodePath?: string;
  /**
   * Folder of the per-server `<name>.stderr.log` files. Default `false`: no log files; stderr is kept
   * in memory only, for the tails that error messages end with. Give a folder to keep the logs.
   */
  logDir?: string | false;
  /** Message-size limit for stdio servers without `maxMessageBytes` (default 64 MiB). */
  maxMessageBytes?: number;
  /** Extra variable names stdio children inherit, besides HOME, LOGNAME, PATH, SHELL, TERM, USER. */
  inheritEnv?: readonly string[];
  /** Name and version this client announces to servers (default `agentforge-mcp-client` and this package's version). */
  clientInfo?: { name: string; version: string };
  /** Backoff between failed connection attempts (default 250 ms doubling up to 30 s). */
  backoff?: Partial<BackoffOptions>;
  /** Timeout of the health-check ping (default: the server's connection timeout). */
  healthTimeoutMs?: number;
  /** stdio shutdown: wait this long after closing stdin, and after SIGTERM (default 1000 ms). */
  shutdownGraceMs?: number;
  /**
   * Called when one of the manager's event listeners throws or returns a promise that rejects (the
   * error is also announced as a `listenerError` event). Listener errors never reach the code that
   * caused the event, never stop the other listeners and never become uncaught exceptions. With
   * neither this nor a `listenerError` listener, the error is a process warning
   * (`AGENTFORGE_LISTENER_ERROR`); so is an error thrown by this function.
   */
  onListenerError?: (error: unknown, event: MCPClientManagerEventName, serverName: string) => void;
  /**
   * `grant: authorization_code`: where logins (tokens, dynamic client registrations) are kept, by server
   * name. Default: an `MCPMemoryTokenStore` of this manager, so a login lasts as long as the process.
   */
  tokenStore?: MCPOAuthTokenStore;
  /**
   * `grant: authorization_code`: called with the authorization URL when a user must log in (open a
   * browser there). The manager listens on the loopback redirect URL, checks `state` and finishes the
   * login. Default: print the URL and try the system browser when stdin is a terminal; when it is not,
   * or with `false`, connecting fails with `AUTH_REQUIRED` ("needs login") instead of waiting.
   */
  authorize?: MCPAuthorizeFunction | false;
  /** `grant: authorization_code`: how long a login may take before `LOGIN_TIMEOUT` (default 300000 ms). */
  loginTimeoutMs?: number;
  /**
   * Answers servers that ask the user for input while a tool runs (`elicitation/create`, form and URL
   * mode). Given: the manager declares the `elicitation` capability (servers may then list tools that
   * need it); absent: it declares nothing and servers get "method not found". A handler that throws,
   * answers content that breaks the requested schema, or takes longer than `elicitationTimeoutMs`
   * answers `decline`.
   */
  elicitation?: MCPElicitationHandler;
  /** How long the `elicitation` handler may take per request (default: the server's `tool_timeout`). */
  elicitationTimeoutMs?: number;
}

/** What `applyConfig` did. */
export interface MCPConfigChanges {
  /** Servers that are new. */
  added: string[];
  /** Servers that are gone (closed). */
  removed: string[];
  /** Servers whose entry changed (closed; reconnected right away when they were connected). */
  changed: string[];
  /** Servers left as they were (connections kept). */
  unchanged: string[];
}

/** What the manager announces to servers by default: its name and this package's version. */
const PACKAGE_CLIENT_INFO = { name: "agentforge-mcp-client", version: PACKAGE_VERSION };

function validateConfigs(configs: readonly MCPServerConfig[]): void {
  if (!Array.isArray(configs)) {
    throw new MCPConfigError("MCPClientManager: configs must be an array of MCPServerConfig", {
      code: "CONFIG_INVALID",
    });
  }
  const issues: MCPConfigIssue[] = [];
  const seen = new Set<string>();
  configs.forEach((config: Partial<MCPServerConfig> | null, i) => {
    if (typeof config !== "object" || config === null) {
      issues.push({ path: `configs[${i}]`, message: "expected an MCPServerConfig object" });
      return;
    }
    if (typeof config.name !== "string" || config.name === "") {
      issues.push({ path: `configs[${i}].name`, message: "expected a non-empty server name" });
    } else if (seen.has(config.name)) {
      issues.push({ path: `configs[${i}].name`, message: `duplicate server name "${config.name}"` });
    } else seen.add(config.name);
    if (config.transport !== "stdio" && config.transport !== "http") {
      issues.push({ path: `configs[${i}].transport`, message: 'expected "stdio" or "http"' });
    }
    for (const field of ["connectionTimeout", "toolTimeout"] as const) {
      const value = config[field];
      if (typeof value !== "number" || !(value > 0)) {
        issues.push({
          path: `configs[${i}].${field}`,
          message: "expected a number of seconds greater than 0",
        });
      }
    }
  });
  if (issues.length) {
    throw new MCPConfigError("MCPClientManager: invalid server configs", { code: "CONFIG_INVALID", issues });
  }
}

function cursorParams(options: MCPListOptions): Record<string, unknown> | undefined {
  if (options.cursor === undefined) return undefined;
  if (typeof options.cursor !== "string")
    throw new TypeError("options.cursor must be a string (a nextCursor)");
  return { cursor: options.cursor };
}

function positive(value: number | undefined, name: string, min = 1): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < min)) {
    throw new RangeError(`${name} must be a finite number >= ${min}, got ${String(value)}`);
  }
}

/**
 * Owns one MCP client per configured server: created lazily on first use, connected within
 * `connection_timeout`, **kept open and reused**; concurrent first uses share one connection attempt
 * (one child process). A dropped connection is re-established on the next use, with bounded exponential
 * backoff after failed attempts. Typed events: `manager.on(event, listener)` returns the function that
 * unsubscribes; only the manager emits them. Node.js only (it spawns processes).
 *
 * Unknown or disabled names throw `MCPServerNotFoundError` before any connection attempt.
 */
export class MCPClientManager {
  private connections = new Map<string, ServerConnection>();
  private readonly settings: ConnectionSettings;
  /** The manager's own emitter: subscribing goes through `on`, emitting is for the connections only. */
  private readonly events: MCPEventEmitter<ManagerEventPayloads>;
  /** Where `grant: authorization_code` logins are kept (the `tokenStore` option, or memory). */
  readonly tokenStore: MCPOAuthTokenStore;
  private pollTimer: NodeJS.Timeout | undefined;
  private pollRun: Promise<unknown> | undefined;

  /** `configs` are typically `(await loadMCPConfig(path)).servers`; disabled entries are kept but never connected. */
  constructor(configs: readonly MCPServerConfig[], options: MCPClientManagerOptions = {}) {
    validateConfigs(configs);
    positive(options.maxMessageBytes, "MCPClientManager: options.maxMessageBytes", 1024);
    positive(options.healthTimeoutMs, "MCPClientManager: options.healthTimeoutMs");
    positive(options.shutdownGraceMs, "MCPClientManager: options.shutdownGraceMs", 0);
    positive(options.backoff?.initialDelayMs, "MCPClientManager: options.backoff.initialDelayMs", 0);
    positive(options.backoff?.maxDelayMs, "MCPClientManager: options.backoff.maxDelayMs", 0);
    const onListenerError = options.onListenerError;
    if (onListenerError !== undefined && typeof onListenerError !== "function") {
      throw new TypeError("MCPClientManager: options.onListenerError must be a function");
    }
    this.events = new MCPEventEmitter<ManagerEventPayloads>({
      onListenerError: (error, event, payload) =>
        this.listenerFailed(error, event, payload.serverName, onListenerError),
    });
    positive(options.loginTimeoutMs, "MCPClientManager: options.loginTimeoutMs");
    if (
      options.authorize !== undefined &&
      options.authorize !== false &&
      typeof options.authorize !== "function"
    ) {
      throw new TypeError("MCPClientManager: options.authorize must be a function or false");
    }
    this.tokenStore = options.tokenStore ?? new MCPMemoryTokenStore();
    if (options.elicitation !== undefined && typeof options.elicitation !== "function") {
      throw new TypeError(
        "MCPClientManager: options.elicitation must be a function (request, context) => result",
      );
    }
    positive(options.elicitationTimeoutMs, "MCPClientManager: options.elicitationTimeoutMs");
    if (options.logDir !== undefined && options.logDir !== false && typeof options.logDir !== "string") {
      throw new TypeError("MCPClientManager: options.logDir must be a folder path or false");
    }
    const transport: CreateTransportOptions = {
      ...(options.env ? { env: options.env } : {}),
      ...(options.nodePath ? { nodePath: options.nodePath } : {}),
      ...(options.logDir !== undefined ? { logDir: options.logDir } : {}),
      ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
      ...(options.inheritEnv ? { inheritEnv: options.inheritEnv } : {}),
      ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
      tokenStore: this.tokenStore,
      ...(options.authorize !== undefined ? { authorize: options.authorize } : {}),
      ...(options.loginTimeoutMs !== undefined ? { loginTimeoutMs: options.loginTimeoutMs } : {}),
    };
    this.settings = {
      transport,
      env: options.env ?? process.env,
      clientInfo: options.clientInfo ?? PACKAGE_CLIENT_INFO,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      healthTimeoutMs: options.healthTimeoutMs,
      events: this.events,
      ...(options.elicitation ? { elicitation: options.elicitation } : {}),
      ...(options.elicitationTimeoutMs !== undefined
        ? { elicitationTimeoutMs: options.elicitationTimeoutMs }
        : {}),
    };
    for (const config of configs)
      this.connections.set(config.name, new ServerConnection(config, this.settings));
  }

  /**
   * Subscribe to one of the manager's events; returns the function that unsubscribes (calling it again
   * does nothing). Each call is its own subscription, even for the same function. Listeners run in the
   * order they subscribed. A listener that throws or rejects never reaches the code that caused the
   * event nor stops the other listeners: its error is announced as `listenerError` and passed to
   * `onListenerError`, or becomes a process warning when neither is there.
   */
  on<K extends MCPClientManagerEventName>(event: K, listener: MCPClientManagerEvents[K]): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`MCPClientManager.on("${String(event)}"): listener must be a function`);
    }
    // A function of its own per subscription: the emitter keeps one subscription per function, and
    // subscribing the same listener twice gives two independent handles here.
    const call = listener as (payload: ManagerEventPayloads[K]) => unknown;
    return this.events.on(event, (payload) => call(payload));
  }

  /**
   * A listener of `event` threw or rejected: announce it as `listenerError` and pass it to
   * `onListenerError`; with neither, it is a process warning (AGENTFORGE_LISTENER_ERROR). A failing
   * `listenerError` listener (or `onListenerError` itself) is a process warning too.
   */
  private listenerFailed(
    error: unknown,
    event: MCPClientManagerEventName,
    serverName: string,
    onListenerError: MCPClientManagerOptions["onListenerError"],
  ): void {
    if (event === "listenerError") {
      reportListenerError(error, "MCPClientManager listenerError");
      return;
    }
    const announced = this.events.listenerCount("listenerError") > 0;
    if (announced) this.events.emit("listenerError", { event, serverName, error });
    if (onListenerError) onListenerError(error, event, serverName);
    else if (!announced) reportListenerError(error, `MCPClientManager ${event}`);
  }

  private entry(name: string, allowDisabled = false): ServerConnection {
    if (typeof name !== "string") throw new TypeError("server name must be a string");
    const connection = this.connections.get(name);
    if (!connection) {
      const known = [...this.connections.keys()];
      throw new MCPServerNotFoundError(
        `No MCP server named "${name}" is configured${known.length ? ` (configured: ${known.join(", ")})` : ""}.`,
        { code: "SERVER_NOT_FOUND", serverName: name },
      );
    }
    if (!allowDisabled && !connection.config.enabled) {
      throw new MCPServerNotFoundError(
        `MCP server "${name}" is disabled; set enabled: true in its config to use it.`,
        { code: "SERVER_DISABLED", serverName: name },
      );
    }
    return connection;
  }

  /** Names of the enabled servers, in config order. */
  serverNames(): string[] {
    return [...this.connections.values()].filter((c) => c.config.enabled).map((c) => c.config.name);
  }

  /** The config of a server (enabled or not). Throws `MCPServerNotFoundError` for an unknown name. */
  getConfig(name: string): MCPServerConfig {
    return this.entry(name, true).config;
  }

  /**
   * The connected SDK `Client` of a server, connecting it first if needed. Prefer `callTool`, which
   * applies the server's timeouts and maps errors; the client stays owned by the manager (don't close it).
   */
  getClient(name: string, options: { signal?: AbortSignal } = {}): Promise<Client> {
    try {
      return this.entry(name).client(options.signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Call a tool on a server over its reused connection, with the server's `tool_timeout` (restarted on
   * progress when `reset_timeout_on_progress`), `max_total_timeout` and `max_concurrent_calls`. Resolves
   * with the MCP result — including tool-level failures (`isError: true`), which are the caller's to map.
   * Rejects with `MCPServerNotFoundError`, `MCPConnectionError` (start-up failure, `CONNECTION_LOST`),
   * `MCPTimeoutError` (`TOOL_TIMEOUT`, cancellation sent), or `MCPRequestError` (`RPC_ERROR`,
   * `REPLY_TOO_LARGE`, `REQUEST_CANCELLED`, `INVALID_REPLY`).
   */
  callTool(
    name: string,
    toolName: string,
    args?: Record<string, unknown>,
    options: MCPCallToolOptions = {},
  ): Promise<CallToolResult> {
    try {
      const connection = this.entry(name);
      if (typeof toolName !== "string" || toolName === "") {
        throw new TypeError("callTool: toolName must be a non-empty string");
      }
      if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
        throw new TypeError(
          `callTool: args must be a plain object of tool arguments, got ${Array.isArray(args) ? "an array" : typeof args}`,
        );
      }
      positive(options.timeoutMs, "callTool: options.timeoutMs");
      positive(options.maxTotalTimeoutMs, "callTool: options.maxTotalTimeoutMs");
      return connection.callTool(toolName, args, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The tools of one server (all pages), connecting if needed; updates the cache. See `discoverTools`. */
  listTools(name: string, options: DiscoverOptions = {}): Promise<DiscoveredTool[]> {
    try {
      return this.entry(name).listTools(options.signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One page of a server's resources (`resources/list`): `{resources, nextCursor?, skipped, truncated}`.
   * Pass `nextCursor` back as `cursor` for the next page. At most `MAX_LIST_ITEMS` entries per page;
   * malformed entries are skipped and counted. Runs with the server's `tool_timeout`. Rejects with
   * `MCPCapabilityError` (`CAPABILITY_NOT_SUPPORTED`) when the server offers no resources, and otherwise
   * with the errors of `callTool`.
   */
  listResources(name: string, options: MCPListOptions = {}): Promise<MCPResourcePage> {
    return this.serverRequest(
      name,
      "resources/list",
      () => cursorParams(options),
      "resources",
      options.signal,
      (reply) => readResourcePage(name, reply),
    );
  }

  /** One page of a server's resource templates (`resources/templates/list`); see `listResources`. */
  listResourceTemplates(name: string, options: MCPListOptions = {}): Promise<MCPResourceTemplatePage> {
    return this.serverRequest(
      name,
      "resources/templates/list",
      () => cursorParams(options),
      "resources",
      options.signal,
      (reply) => readResourceTemplatePage(name, reply),
    );
  }

  /**
   * Read one resource (`resources/read`): `{contents: [{uri, mimeType?, text | blob}], truncated, skipped}`.
   * At most `MAX_CONTENT_CHARS` characters of text and base64 in all (`truncated` says when cut). Errors
   * as `listResources`.
   */
  readResource(name: string, uri: string, options: MCPReadOptions = {}): Promise<MCPReadResourceResult> {
    if (typeof uri !== "string" || uri === "") {
      return Promise.reject(new TypeError("readResource: uri must be a non-empty string"));
    }
    return this.serverRequest(
      name,
      "resources/read",
      () => ({ uri }),
      "resources",
      options.signal,
      (reply) => readResourceContents(name, uri, reply),
    );
  }

  /** One page of a server's prompts (`prompts/list`); see `listResources`. */
  listPrompts(name: string, options: MCPListOptions = {}): Promise<MCPPromptPage> {
    return this.serverRequest(
      name,
      "prompts/list",
      () => cursorParams(options),
      "prompts",
      options.signal,
      (reply) => readPromptPage(name, reply),
    );
  }

  /**
   * Get one prompt filled in with `args` (`prompts/get`): `{description?, messages: [{role, content}],
   * truncated, skipped}`, bounded like `readResource`. Errors as `listResources`.
   */
  getPrompt(
    name: string,
    promptName: string,
    args?: Record<string, string>,
    options: MCPReadOptions = {},
  ): Promise<MCPGetPromptResult> {
    if (typeof promptName !== "string" || promptName === "") {
      return Promise.reject(new TypeError("getPrompt: promptName must be a non-empty string"));
    }
    if (args !== undefined) {
      const bad =
        typeof args !== "object" || args === null || Array.isArray(args)
          ? "args"
          : Object.entries(args).find(([, value]) => typeof value !== "string")?.[0];
      if (bad !== undefined) {
        return Promise.reject(
          new TypeError(
            bad === "args"
              ? "getPrompt: args must be an object of string values"
              : `getPrompt: args.${bad} must be a string (prompt arguments are strings)`,
          ),
        );
      }
    }
    const params = args ? { name: promptName, arguments: args } : { name: promptName };
    return this.serverRequest(
      name,
      "prompts/get",
      () => params,
      "prompts",
      options.signal,
      (reply) => readPromptResult(name, promptName, reply),
    );
  }

  private serverRequest<T>(
    name: string,
    method: string,
    params: () => Record<string, unknown> | undefined,
    capability: "resources" | "prompts",
    signal: AbortSignal | undefined,
    read: (reply: unknown) => T,
  ): Promise<T> {
    try {
      return this.entry(name).serverRequest(method, params(), capability, signal, read);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The tools last discovered for a server, without any I/O (undefined when never discovered). */
  cachedTools(name: string): DiscoveredTool[] | undefined {
    return this.entry(name, true).tools;
  }

  /** A snapshot of a server's connection state (no I/O). */
  connectionStatus(name: string): MCPConnectionStatus {
    return this.entry(name, true).status();
  }

  /**
   * Check one server: connect if needed, ping, list tools. Never throws for a failing server (the
   * result says `unhealthy`, with the error); a ping that hangs recycles the connection. Disabled
   * servers return `disabled`. Fires `healthChanged` when the status changes.
   */
  healthCheck(name: string): Promise<MCPServerHealth> {
    try {
      return this.entry(name, true).healthCheck();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Check every configured server in parallel (disabled ones report `disabled`). */
  healthCheckAll(): Promise<MCPServerHealth[]> {
    return Promise.all([...this.connections.values()].map((connection) => connection.healthCheck()));
  }

  /** The cached result of the last health check of a server, if any. */
  lastHealth(name: string): MCPServerHealth | undefined {
    return this.entry(name, true).health;
  }

  /**
   * Check every server now and then every `intervalMs` on an unref'd timer (it never keeps the process
   * alive). Servers that failed are retried with backoff. Returns a function that stops polling.
   */
  startHealthPolling(intervalMs: number): () => void {
    positive(intervalMs, "startHealthPolling: intervalMs", 10);
    this.stopHealthPolling();
    const tick = () => {
      if (this.pollRun) return;
      this.pollRun = this.healthCheckAll()
        .catch(() => [])
        .finally(() => {
          this.pollRun = undefined;
        });
    };
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    this.pollTimer = timer;
    tick();
    return () => {
      if (this.pollTimer === timer) this.stopHealthPolling();
    };
  }

  /** Stop health polling (a check already running finishes). */
  stopHealthPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  /** Close every connection, then reconnect and rediscover every enabled server in parallel. */
  async refresh(options: DiscoverOptions = {}): Promise<MCPDiscoveryResult> {
    await Promise.all(
      [...this.connections.values()].filter((c) => c.config.enabled).map((c) => c.close("reconfigured")),
    );
    return discoverAll(this, options);
  }

  /**
   * Reload: servers whose entry changed are closed (and reconnected right away if they were connected),
   * new ones are added (connected lazily), removed ones are closed; unchanged ones keep their connection.
   * Servers that disappear or get disabled fire `toolsChanged` with an empty list.
   */
  async applyConfig(configs: readonly MCPServerConfig[]): Promise<MCPConfigChanges> {
    validateConfigs(configs);
    const changes: MCPConfigChanges = { added: [], removed: [], changed: [], unchanged: [] };
    const next = new Map<string, ServerConnection>();
    const wanted = new Set(configs.map((config) => config.name));
    const closing: Promise<void>[] = [];
    for (const [name, connection] of this.connections) {
      if (wanted.has(name)) continue;
      changes.removed.push(name);
      closing.push(connection.close("removed").then(() => connection.clearTools()));
    }
    const reconnect: ServerConnection[] = [];
    for (const config of configs) {
      const existing = this.connections.get(config.name);
      if (!existing) {
        changes.added.push(config.name);
        next.set(config.name, new ServerConnection(config, this.settings));
      } else if (stableStringify(existing.config) === stableStringify(config)) {
        changes.unchanged.push(config.name);
        next.set(config.name, existing);
      } else {
        changes.changed.push(config.name);
        const replacement = new ServerConnection(config, this.settings);
        const wasConnected = existing.connected;
        replacement.tools = existing.tools;
        next.set(config.name, replacement);
        closing.push(
          existing.close("reconfigured").then(() => {
            if (!config.enabled) replacement.clearTools();
          }),
        );
        if (wasConnected && config.enabled) reconnect.push(replacement);
      }
    }
    this.connections = next;
    await Promise.all(closing);
    await Promise.all(reconnect.map((connection) => connection.listTools().catch(() => undefined)));
    return changes;
  }

  /** Close one server's connection (ending its child process); the next use reconnects. */
  async close(name: string): Promise<void> {
    await this.entry(name, true).close("closed");
  }

  /**
   * Forget a server's OAuth login (`grant: authorization_code`): close its connection and delete its
   * record (tokens, client registration) from the token store. The next use asks for a new login.
   */
  async logout(name: string): Promise<void> {
    await this.entry(name, true).close("closed");
    await this.tokenStore.delete(name);
  }

  /**
   * Stop health polling and close every connection and connection attempt; resolves once every child
   * process has exited. The manager stays usable: a later call reconnects.
   */
  async closeAll(): Promise<void> {
    this.stopHealthPolling();
    const all = () =>
      Promise.all([...this.connections.values()].map((connection) => connection.close("closed")));
    await all();
    if (this.pollRun) {
      await this.pollRun;
      await all();
    }
  }
}
