/**
 * One server's connection life cycle: lazy single-flight connect, reuse, drop detection, reconnect with
 * backoff, closing, status, error mapping. The call path (`call-path.ts`), the tool cache
 * (`tool-cache.ts`) and the health check (`health-check.ts`) are composed in and reach the connection
 * through `ConnectionCore` (`connection-types.ts`). The manager owns one per configured server.
 */
import { join, resolve } from "node:path";
import {
  MCPError,
  type MCPHttpServerConfig,
  type MCPServerConfig,
  type MCPStdioServerConfig,
} from "@agentforge/mcp-config";
import type { Client } from "@modelcontextprotocol/client";
import type { DiscoveredTool } from "../../discover-tools.js";
import { MCPConnectionError, MCPRequestError } from "../../errors.js";
import type {
  CallToolResult,
  MCPCallToolOptions,
  MCPClientManagerEvents,
  MCPConnectionStatus,
  MCPDisconnectReason,
  MCPServerHealth,
} from "../../types.js";
import { isUnauthorizedError, MAX_LOGINS_PER_OPERATION } from "../auth/authorization-code.js";
import { CallPath } from "../calls/call-path.js";
import type {
  ConnectionCore,
  ConnectionSettings,
  EventPayload,
  FailureContext,
  Live,
} from "../connection/connection-types.js";
import {
  closeQuietly,
  completeByDefault,
  terminateSession,
  withDeadline,
} from "../connection/connection-utils.js";
import { backoffDelay } from "../shared/backoff.js";
import { Redactor } from "../shared/redactor.js";
import { CACHEABLE_LIST_METHODS, cacheHintOf, ListCache } from "../tools/list-cache.js";
import { ToolCache } from "../tools/tool-cache.js";
import {
  type BuiltHttp,
  type BuiltTransport,
  buildHttpTransport,
  buildStdioTransport,
  DEFAULT_LOG_DIR,
  type HttpTransportKind,
} from "../transport/build-transport.js";
import {
  backoffMessage,
  httpStartupError,
  httpStatusOf,
  isConnectionGone,
  requestError,
  stdioStartupError,
} from "./classify-error.js";
import { createClient } from "./client-setup.js";
import { HealthMonitor } from "./health-check.js";
import { ListListener } from "./list-listener.js";
import { HttpServerLog } from "./server-log.js";

/** The lifecycle of one configured server. */
export class ServerConnection implements ConnectionCore {
  private open: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private connectAbort: AbortController | undefined;
  private pending: BuiltTransport | undefined;
  private generation = 0;
  private attempts = 0;
  private failures = 0;
  private nextAttemptAt = 0;
  private lastError: MCPConnectionError | undefined;
  private connectedAt: number | undefined;
  private redactor: Redactor;
  private readonly retiring = new Set<Promise<void>>();
  private httpLog: HttpServerLog | undefined;
  private readonly cache: ToolCache;
  private readonly calls: CallPath;
  private readonly monitor: HealthMonitor;
  private readonly lists = new ListCache();
  private readonly listener: ListListener;

  constructor(
    readonly config: MCPServerConfig,
    readonly settings: ConnectionSettings,
  ) {
    this.redactor = new Redactor();
    this.cache = new ToolCache(this, this.lists);
    this.calls = new CallPath(this, this.cache);
    this.monitor = new HealthMonitor(this, this.cache);
    this.listener = new ListListener({
      serverName: config.name,
      timeoutMs: config.connectionTimeout * 1000,
      isCurrent: (live) => this.open === live,
      reopened: () => {
        this.lists.invalidate();
        if (this.cache.tools !== undefined) this.cache.refreshTools(true);
      },
      log: (line) => this.writeLog(line),
    });
  }

  /** The open connection, if any. */
  get live(): Live | undefined {
    return this.open;
  }

  /** Last discovered tools (undefined until the first discovery). */
  get tools(): DiscoveredTool[] | undefined {
    return this.cache.tools;
  }

  set tools(tools: DiscoveredTool[] | undefined) {
    this.cache.tools = tools;
  }

  /** Last health check. */
  get health(): MCPServerHealth | undefined {
    return this.monitor.health;
  }

  // Events are emitted from request callbacks, notification handlers and timers: the manager's
  // MCPEventEmitter never throws, so a listener that throws (or rejects) can't break the connection's
  // bookkeeping, stop the other listeners, or end the host (see MCPClientManager's listener errors).
  emit<K extends keyof MCPClientManagerEvents>(name: K, payload: EventPayload<K>): void {
    this.settings.events.emit(name, payload);
  }

  /** Call a tool with the server's limits; see `MCPClientManager.callTool`. */
  callTool(
    toolName: string,
    args: Record<string, unknown> | undefined,
    options: MCPCallToolOptions,
  ): Promise<CallToolResult> {
    return this.calls.callTool(toolName, args, options);
  }

  /**
   * One resources/prompts request; see `CallPath.serverRequest`. A list page the server marked reusable
   * (`ttlMs`/`cacheScope`) is answered from the list cache while it is fresh.
   */
  async serverRequest<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    capability: "resources" | "prompts",
    signal: AbortSignal | undefined,
    read: (reply: unknown) => T,
  ): Promise<T> {
    if (!CACHEABLE_LIST_METHODS.has(method)) {
      return this.calls.serverRequest(method, params, capability, signal, read);
    }
    const key = JSON.stringify(params ?? {});
    const live = this.open;
    if (live) {
      const cached = this.lists.get(live, method, key, await live.built.credential());
      if (cached !== undefined) return read(cached);
    }
    return this.calls.serverRequest(method, params, capability, signal, (reply) => {
      // Not connected before the request: it is kept on the connection the request opened.
      void this.keepList(method, key, reply, live ?? this.open);
      return read(reply);
    });
  }

  // The reply is kept under the credential in use now (an OAuth token cannot change between the reply
  // and this read without a request that would have failed first).
  private async keepList(
    method: string,
    key: string,
    reply: unknown,
    answeredOn: Live | undefined,
  ): Promise<void> {
    const hint = cacheHintOf(reply);
    if (!hint || !answeredOn || answeredOn !== this.open) return;
    try {
      const credential = await answeredOn.built.credential();
      this.lists.set(answeredOn, method, key, credential, reply, hint);
    } catch (error) {
      // Without the credential's fingerprint the reply cannot be kept apart: it is not kept.
      this.writeLog(
        `[client] ${method} reply not cached: the credential could not be read (${String(error)})`,
      );
    }
  }

  /** Every tool of the server (all pages); see `ToolCache.listTools`. */
  listTools(signal?: AbortSignal, emitOnFirst = false): Promise<DiscoveredTool[]> {
    return this.cache.listTools(signal, emitOnFirst);
  }

  /** Forget the tool list and announce that the server has none (removed or disabled). */
  clearTools(): void {
    this.cache.clearTools();
  }

  /** Ping and list tools; cache and return the result. */
  healthCheck(): Promise<MCPServerHealth> {
    return this.monitor.healthCheck();
  }

  private get name(): string {
    return this.config.name;
  }

  /**
   * Whether a call of `toolName` may be sent again after its kept-alive socket closed before any answer
   * (transport/keep-alive-fetch.ts): only when the server listed it read-only or idempotent.
   */
  private repeatable(toolName: string): boolean {
    const hints = this.cache.definition(toolName)?.annotations;
    return hints?.readOnlyHint === true || hints?.idempotentHint === true;
  }

  private get connectionTimeoutMs(): number {
    return this.config.connectionTimeout * 1000;
  }

  /** Whether a connection is open right now. */
  get connected(): boolean {
    return this.open !== undefined;
  }

  /** A snapshot for status displays. */
  status(): MCPConnectionStatus {
    const now = Date.now();
    const live = this.open;
    const state: MCPConnectionStatus["state"] = !this.config.enabled
      ? "disabled"
      : live
        ? "connected"
        : this.connecting
          ? "connecting"
          : this.failures > 0 && now < this.nextAttemptAt
            ? "backoff"
            : "idle";
    const out: MCPConnectionStatus = {
      serverName: this.name,
      enabled: this.config.enabled,
      state,
      failures: this.failures,
      toolCount: this.tools?.length ?? null,
    };
    if (live) {
      out.transport = live.built.kind;
      const pid = live.built.stdio?.pid;
      if (pid !== undefined) out.pid = pid;
      const protocolVersion = live.client.getNegotiatedProtocolVersion();
      if (protocolVersion) out.protocolVersion = protocolVersion;
    }
    if (live && this.connectedAt !== undefined) out.connectedAt = new Date(this.connectedAt).toISOString();
    if (state === "backoff") out.retryInMs = this.nextAttemptAt - now;
    if (this.lastError) out.lastError = this.lastError.message;
    const log = live?.built.stdio?.stderrLogPath;
    if (log) out.stderrLogPath = log;
    return out;
  }

  /** The connected SDK client, connecting first if needed (one attempt shared by concurrent callers). */
  async client(signal?: AbortSignal): Promise<Client> {
    return (await this.ensure(signal)).client;
  }

  ensure(signal?: AbortSignal): Promise<Live> {
    if (this.open) return Promise.resolve(this.open);
    if (!this.connecting) {
      const wait = this.nextAttemptAt - Date.now();
      if (this.failures > 0 && wait > 0 && this.lastError) return Promise.reject(this.backoffError(wait));
      const attempt = this.connect();
      this.connecting = attempt;
      attempt.then(
        () => {
          if (this.connecting === attempt) this.connecting = undefined;
        },
        () => {
          if (this.connecting === attempt) this.connecting = undefined;
        },
      );
    }
    const connecting = this.connecting;
    if (!signal) return connecting;
    if (signal.aborted) return Promise.reject(this.cancelledWhileConnecting());
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(this.cancelledWhileConnecting());
      signal.addEventListener("abort", onAbort, { once: true });
      connecting.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private cancelledWhileConnecting(): MCPRequestError {
    return new MCPRequestError(
      `Waiting for MCP server "${this.name}" to connect was cancelled by the caller; the connection attempt goes on for other callers.`,
      { code: "REQUEST_CANCELLED", serverName: this.name },
    );
  }

  private backoffError(waitMs: number): MCPConnectionError {
    const last = this.lastError as MCPConnectionError;
    return new MCPConnectionError(backoffMessage(last.message, waitMs, this.failures), {
      code: last.code,
      serverName: this.name,
      cause: last,
      ...(last.transport ? { transport: last.transport } : {}),
      ...(last.httpStatus !== undefined ? { httpStatus: last.httpStatus } : {}),
      ...(last.exitCode !== undefined ? { exitCode: last.exitCode } : {}),
      ...(last.signal !== undefined ? { signal: last.signal } : {}),
      ...(last.stderrLogPath ? { stderrLogPath: last.stderrLogPath } : {}),
    });
  }

  private newClient(generation: number): Client {
    const client: Client = createClient({
      settings: this.settings,
      serverName: this.name,
      protocolVersion: this.config.protocolVersion,
      probeTimeoutMs: this.connectionTimeoutMs,
      toolTimeoutMs: this.config.toolTimeout * 1000,
      onClose: () => this.onClientClosed(client, generation),
      onToolsChanged: () => {
        if (this.open?.client === client) this.cache.refreshTools(true);
      },
      onListChanged: (methods) => {
        if (this.open?.client === client) this.lists.invalidate(methods);
      },
      onLog: (line) => {
        if (generation === this.generation) this.writeLog(line);
      },
    });
    return client;
  }

  /** One line in this server's log (stdio: its stderr log; http: `<logDir>/<name>.stderr.log`), redacted. */
  private writeLog(line: string): void {
    const built = this.open?.built ?? this.pending;
    const redacted = this.redactor.redact(line);
    if (built?.stdio) built.stdio.appendLog(redacted);
    else this.httpLog?.write(redacted);
  }

  private async connect(): Promise<Live> {
    const generation = this.generation;
    const attempt = ++this.attempts;
    const started = performance.now();
    const abort = new AbortController();
    this.connectAbort = abort;
    try {
      const config = this.config;
      const { client, built } =
        config.transport === "stdio"
          ? await this.connectStdio(config, generation, abort.signal)
          : await this.connectHttp(config, generation, abort.signal);
      if (generation !== this.generation || !client.transport) {
        await closeQuietly(client, built);
        throw this.closedWhileConnecting(built.kind);
      }
      if (client.getProtocolEra() === "modern") completeByDefault(built.transport);
      const live: Live = { client, built, generation };
      this.open = live;
      this.failures = 0;
      this.nextAttemptAt = 0;
      this.lastError = undefined;
      this.connectedAt = Date.now();
      const pid = built.stdio?.pid;
      const protocolVersion = client.getNegotiatedProtocolVersion();
      this.emit("connected", {
        serverName: this.name,
        transport: built.kind,
        ...(pid !== undefined ? { pid } : {}),
        ...(protocolVersion ? { protocolVersion } : {}),
        attempt,
        durationMs: performance.now() - started,
      });
      // After a reconnect the server may have changed: fetch its tools again (in the background).
      if (attempt > 1 && this.cache.tools !== undefined) this.cache.refreshTools(false);
      await this.listener.start(live);
      return live;
    } catch (caught) {
      const error = MCPConnectionError.isInstance(caught)
        ? caught
        : new MCPConnectionError(
            `MCP server "${this.name}" could not be connected: ${this.redactor.redact(String(caught))}`,
            { code: "SERVER_START_FAILED", serverName: this.name },
          );
      if (generation === this.generation && error.code !== "CONNECTION_CLOSED") {
        this.failures++;
        const retryInMs = backoffDelay(this.failures, this.settings.backoff);
        this.nextAttemptAt = Date.now() + retryInMs;
        this.lastError = error;
        this.emit("connectionFailed", {
          serverName: this.name,
          error,
          failures: this.failures,
          retryInMs,
        });
      }
      throw error;
    } finally {
      if (this.connectAbort === abort) this.connectAbort = undefined;
    }
  }

  private closedWhileConnecting(kind: BuiltTransport["kind"]): MCPConnectionError {
    return new MCPConnectionError(
      `MCP server "${this.name}" was closed while it was connecting (close(), closeAll() or applyConfig()).`,
      { code: "CONNECTION_CLOSED", serverName: this.name, transport: kind },
    );
  }

  /** Keep a transport being connected: its redactor, the pending handle, and (http) the server log. */
  private track<B extends BuiltTransport>(built: B): B {
    this.redactor = built.redactor;
    this.pending = built;
    if (built.kind !== "stdio") {
      void this.httpLog?.close();
      const logDir = this.settings.transport.logDir ?? DEFAULT_LOG_DIR;
      this.httpLog = new HttpServerLog(
        logDir === false ? undefined : join(resolve(logDir), `${this.name}.stderr.log`),
        built.redactor,
      );
    }
    return built;
  }

  private async connectStdio(config: MCPStdioServerConfig, generation: number, signal: AbortSignal) {
    const built = this.track(buildStdioTransport(config, this.settings.transport));
    const stdio = built.stdio;
    const client = this.newClient(generation);
    try {
      await withDeadline(
        client.connect(built.transport, { timeout: this.connectionTimeoutMs, signal }),
        this.connectionTimeoutMs + 50,
        () => {},
      );
      return { client, built };
    } catch (error) {
      await closeQuietly(client, built);
      if (generation !== this.generation) throw this.closedWhileConnecting("stdio");
      throw stdioStartupError(error, {
        config,
        command: stdio.command,
        args: stdio.args,
        stdio,
        connectionTimeoutMs: this.connectionTimeoutMs,
        redactor: built.redactor,
      });
    } finally {
      this.pending = undefined;
    }
  }

  private async connectHttp(config: MCPHttpServerConfig, generation: number, signal: AbortSignal) {
    let deadline = performance.now() + this.connectionTimeoutMs;
    const attempt = async (kind: HttpTransportKind, made?: (built: BuiltHttp) => void) => {
      const built = this.track(
        await buildHttpTransport(config, kind, this.settings.transport, (toolName) =>
          this.repeatable(toolName),
        ),
      );
      made?.(built);
      const client = this.newClient(generation);
      const remaining = Math.max(1, Math.round(deadline - performance.now()));
      try {
        await withDeadline(client.connect(built.transport, { timeout: remaining, signal }), remaining, () => {
          void built.transport.close().catch(() => {});
        });
        return { client, built };
      } catch (error) {
        await closeQuietly(client, built);
        throw error;
      } finally {
        this.pending = undefined;
      }
    };
    const failure = (error: unknown, kind: HttpTransportKind, sseTried: boolean) => {
      if (generation !== this.generation) return this.closedWhileConnecting(kind);
      return httpStartupError(error, {
        config,
        url: config.url,
        kind,
        connectionTimeoutMs: this.connectionTimeoutMs,
        env: this.settings.env,
        redactor: this.redactor,
        sseTried,
      });
    };
    let built: BuiltHttp | undefined;
    const streamable = async () => {
      // grant authorization_code: the SDK stops with UnauthorizedError when a user must log in. The
      // login runs outside the connection timeout (it has its own), then the attempt starts again.
      for (let logins = 0; ; logins++) {
        try {
          return await attempt("streamable-http", (made) => {
            built = made;
          });
        } catch (error) {
          const oauth = built?.oauth;
          if (!oauth?.loginPending || !isUnauthorizedError(error) || logins >= MAX_LOGINS_PER_OPERATION) {
            throw error;
          }
          await oauth.completeLogin(built?.fetch, signal);
          if (generation !== this.generation) throw this.closedWhileConnecting("streamable-http");
          deadline = performance.now() + this.connectionTimeoutMs;
        }
      }
    };
    try {
      return await streamable();
    } catch (first) {
      if (MCPConnectionError.isInstance(first)) throw first;
      const status = httpStatusOf(first);
      // An old HTTP+SSE server answers a Streamable HTTP POST with 400, 404 or 405: try SSE.
      if ((status !== 400 && status !== 404 && status !== 405) || signal.aborted) {
        throw failure(first, "streamable-http", false);
      }
      try {
        return await attempt("sse");
      } catch (second) {
        if (MCPConnectionError.isInstance(second)) throw second;
        const secondStatus = httpStatusOf(second);
        const notSse = secondStatus === 404 || secondStatus === 405 || secondStatus === 400;
        throw notSse ? failure(first, "streamable-http", true) : failure(second, "sse", true);
      }
    }
  }

  private onClientClosed(client: Client, generation: number): void {
    const live = this.open;
    if (!live || live.client !== client || live.generation !== generation) return;
    this.open = undefined;
    // The transport may have declared the connection lost while its process still runs (a closed
    // stdout): end it, and let close()/closeAll() wait for that.
    this.retire(live.built.transport.close().catch(() => {}));
    void live.built.dispose().catch(() => {});
    this.emitDisconnected(live, "lost");
  }

  private emitDisconnected(live: Live, reason: MCPDisconnectReason): void {
    const stdio = live.built.stdio;
    this.emit("disconnected", {
      serverName: this.name,
      transport: live.built.kind,
      reason,
      ...(stdio?.pid !== undefined ? { pid: stdio.pid } : {}),
      ...(stdio?.exited ? { exitCode: stdio.exitCode ?? null, signal: stdio.signalCode ?? null } : {}),
    });
  }

  private retire(closing: Promise<void>): void {
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  /** Close the connection (and any attempt in progress); the next use reconnects. */
  async close(reason: MCPDisconnectReason = "closed"): Promise<void> {
    try {
      await this.closeLive(reason);
    } finally {
      await Promise.all([...this.retiring]);
    }
  }

  private async closeLive(reason: MCPDisconnectReason): Promise<void> {
    this.generation++;
    this.failures = 0;
    this.nextAttemptAt = 0;
    const connecting = this.connecting;
    if (connecting) {
      this.connectAbort?.abort(new Error("closed"));
      void this.pending?.transport.close().catch(() => {});
      await connecting.catch(() => {});
    }
    const live = this.open;
    this.open = undefined;
    await this.listener.stop();
    const log = this.httpLog;
    this.httpLog = undefined;
    await log?.close();
    if (!live) return;
    await terminateSession(live.built);
    await closeQuietly(live.client, live.built);
    this.emitDisconnected(live, reason);
  }

  /** Drop a connection found dead by a failed request (HTTP session lost, network gone). */
  private async drop(live: Live): Promise<void> {
    if (this.open !== live) return;
    this.open = undefined;
    await closeQuietly(live.client, live.built);
    this.emitDisconnected(live, "lost");
  }

  failed(error: unknown, live: Live | undefined, context: FailureContext): MCPError {
    if (MCPError.isInstance(error)) return error;
    if (live && live.generation !== this.generation) {
      return new MCPConnectionError(
        `${context.toolName ? `tools/call "${context.toolName}"` : context.method} on MCP server "${this.name}" failed because the connection was closed by the manager (close(), closeAll(), applyConfig() or a health recycle).`,
        { code: "CONNECTION_CLOSED", serverName: this.name, transport: live.built.kind, cause: error },
      );
    }
    const kind = live?.built.kind ?? "stdio";
    const mapped = requestError(error, {
      serverName: this.name,
      method: context.method,
      ...(context.toolName ? { toolName: context.toolName } : {}),
      kind,
      stdio: live?.built.stdio,
      redactor: this.redactor,
      timeoutMs: context.timeoutMs,
      elapsedMs: performance.now() - context.started,
      cancelled: context.cancelled,
      totalTimeoutMs: context.totalTimeoutMs,
      ...(context.timeoutSetting ? { timeoutSetting: context.timeoutSetting } : {}),
    });
    if (live && kind !== "stdio" && MCPConnectionError.isInstance(mapped) && isConnectionGone(error, kind)) {
      void this.drop(live);
    }
    return mapped;
  }

  /**
   * Run a request; when the server asks for more scopes (403 insufficient_scope) and the SDK stopped for
   * a login, run the login (step-up) and send the request again, at most MAX_LOGINS_PER_OPERATION times.
   */
  async withLogin<T>(live: Live, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    for (let logins = 0; ; logins++) {
      try {
        return await run();
      } catch (error) {
        const oauth = live.built.oauth;
        if (!oauth?.loginPending || !isUnauthorizedError(error) || logins >= MAX_LOGINS_PER_OPERATION) {
          throw error;
        }
        await oauth.completeLogin(live.built.fetch, signal);
      }
    }
  }
}
