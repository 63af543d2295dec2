/**
 * One server's connection life cycle: lazy single-flight connect, reuse, drop detection, backoff,
 * tool cache, health. The manager owns one per configured server.
 */
import { join, resolve } from "node:path";
import { MCPError, type MCPServerConfig } from "@agentforge/mcp-config";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  type CallToolResult,
  PaginatedResultSchema,
  type Progress,
  ResultSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { EventEmitter } from "eventemitter3";
import type { CreateTransportOptions } from "../create-transport.js";
import type { DiscoveredTool } from "../discover-tools.js";
import { MCPCapabilityError, MCPConnectionError, MCPRequestError, MCPTimeoutError } from "../errors.js";
import type {
  MCPCallToolOptions,
  MCPClientManagerEvents,
  MCPConnectionStatus,
  MCPDisconnectReason,
  MCPServerHealth,
} from "../mcp-client-manager.js";
import { isUnauthorizedError, MAX_LOGINS_PER_OPERATION } from "./authorization-code.js";
import { backoffDelay } from "./backoff.js";
import { type BuiltTransport, buildTransport, DEFAULT_LOG_DIR } from "./build-transport.js";
import {
  httpStartupError,
  httpStatusOf,
  isConnectionGone,
  isSdkTimeout,
  requestError,
  stdioStartupError,
} from "./classify-error.js";
import { createClient } from "./client-setup.js";
import type { ConnectionSettings, Live } from "./connection-types.js";
import {
  closeQuietly,
  guardedProgress,
  ignoreProgress,
  runsToolTasks,
  terminateSession,
  timeoutError,
  withDeadline,
} from "./connection-utils.js";
import { MalformedReply } from "./read-resources.js";
import { Redactor } from "./redactor.js";
import { safeEmit } from "./safe-emit.js";
import { Semaphore } from "./semaphore.js";
import { HttpServerLog } from "./server-log.js";
import { callToolAsTask } from "./task-call.js";
import { toCallToolResult } from "./tool-result.js";
import { diffTools, hasChanges, readTools } from "./tools.js";

const MAX_TOOL_PAGES = 1000;
/** A tool list that changed again while it was being fetched is fetched once the server is this quiet... */
const REFRESH_QUIET_MS = 300;
/** ...or this long after the first of those changes, whichever comes first. */
const REFRESH_MAX_WAIT_MS = 5000;

/** The SDK's private cache of output-schema validators (filled by its own listTools). */
interface ToolMetadataCache {
  cacheToolMetadata(tools: Tool[]): void;
}

/** The lifecycle of one configured server. */
export class ServerConnection {
  /** Last discovered tools (undefined until the first discovery). */
  tools: DiscoveredTool[] | undefined;
  /** Last health check. */
  health: MCPServerHealth | undefined;

  private live: Live | undefined;
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
  private readonly slots: Semaphore | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly retiring = new Set<Promise<void>>();
  private refreshAgain = false;
  private lastChangeAt = 0;
  private firstPendingAt: number | undefined;
  private httpLog: HttpServerLog | undefined;

  constructor(
    readonly config: MCPServerConfig,
    private readonly settings: ConnectionSettings,
  ) {
    this.redactor = new Redactor();
    this.slots = config.maxConcurrentCalls ? new Semaphore(config.maxConcurrentCalls) : undefined;
  }

  // Events are emitted from request callbacks, notification handlers and timers: a listener that throws
  // (or rejects) must never break the connection's bookkeeping, stop the other listeners, or become an
  // uncaught exception that ends the host. Its error goes to `listenerError` and `onListenerError`.
  private emit<K extends keyof MCPClientManagerEvents>(
    name: K,
    payload: Parameters<MCPClientManagerEvents[K]>[0],
  ): void {
    const events = this.settings.events as unknown as EventEmitter;
    safeEmit(events, name, payload, (error) => {
      if (name === "listenerError") return;
      safeEmit(events, "listenerError", { event: name, serverName: this.name, error }, () => {});
      this.settings.onListenerError?.(error, name, this.name);
    });
  }

  private get name(): string {
    return this.config.name;
  }

  private get connectionTimeoutMs(): number {
    return this.config.connectionTimeout * 1000;
  }

  /** Whether a connection is open right now. */
  get connected(): boolean {
    return this.live !== undefined;
  }

  /** A snapshot for status displays. */
  status(): MCPConnectionStatus {
    const now = Date.now();
    const live = this.live;
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
      name: this.name,
      enabled: this.config.enabled,
      state,
      failures: this.failures,
      toolCount: this.tools?.length ?? null,
    };
    if (live) {
      out.transport = live.built.kind;
      const pid = live.built.stdio?.pid;
      if (pid !== undefined) out.pid = pid;
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

  private ensure(signal?: AbortSignal): Promise<Live> {
    if (this.live) return Promise.resolve(this.live);
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
    return new MCPConnectionError(
      `Not retrying MCP server "${this.name}" for another ${Math.ceil(waitMs)} ms (backoff after ${this.failures} failed attempt${this.failures === 1 ? "" : "s"}). Last failure: ${last.message}`,
      {
        code: last.code,
        serverName: this.name,
        cause: last,
        ...(last.transport ? { transport: last.transport } : {}),
        ...(last.httpStatus !== undefined ? { httpStatus: last.httpStatus } : {}),
        ...(last.exitCode !== undefined ? { exitCode: last.exitCode } : {}),
        ...(last.signal !== undefined ? { signal: last.signal } : {}),
        ...(last.stderrLogPath ? { stderrLogPath: last.stderrLogPath } : {}),
      },
    );
  }

  private newClient(generation: number): Client {
    const client: Client = createClient({
      settings: this.settings,
      serverName: this.name,
      toolTimeoutMs: this.config.toolTimeout * 1000,
      onClose: () => this.onClientClosed(client, generation),
      onToolsChanged: () => {
        if (this.live?.client === client) this.refreshTools(true);
      },
      onLog: (line) => {
        if (generation === this.generation) this.writeLog(line);
      },
    });
    return client;
  }

  /** One line in this server's log (stdio: its stderr log; http: `<logDir>/<name>.stderr.log`), redacted. */
  private writeLog(line: string): void {
    const built = this.live?.built ?? this.pending;
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
      const { client, built } =
        this.config.transport === "stdio"
          ? await this.connectStdio(generation, abort.signal)
          : await this.connectHttp(generation, abort.signal);
      if (generation !== this.generation || !client.transport) {
        await closeQuietly(client, built);
        throw this.closedWhileConnecting(built.kind);
      }
      const live: Live = { client, built, generation };
      this.live = live;
      this.failures = 0;
      this.nextAttemptAt = 0;
      this.lastError = undefined;
      this.connectedAt = Date.now();
      const pid = built.stdio?.pid;
      this.emit("connected", {
        serverName: this.name,
        transport: built.kind,
        ...(pid !== undefined ? { pid } : {}),
        attempt,
        durationMs: performance.now() - started,
      });
      // After a reconnect the server may have changed: fetch its tools again (in the background).
      if (attempt > 1 && this.tools !== undefined) this.refreshTools(false);
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

  private async build(options: CreateTransportOptions): Promise<BuiltTransport> {
    const built = await buildTransport(this.config, options);
    this.redactor = built.redactor;
    this.pending = built;
    if (!built.stdio) {
      void this.httpLog?.close();
      const logDir = this.settings.transport.logDir ?? DEFAULT_LOG_DIR;
      this.httpLog = new HttpServerLog(
        logDir === false ? undefined : join(resolve(logDir), `${this.name}.stderr.log`),
        built.redactor,
      );
    }
    return built;
  }

  private async connectStdio(generation: number, signal: AbortSignal) {
    const built = await this.build(this.settings.transport);
    const stdio = built.stdio as NonNullable<BuiltTransport["stdio"]>;
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
        config: this.config as MCPServerConfig & { transport: "stdio" },
        command: stdio.command,
        stdio,
        connectionTimeoutMs: this.connectionTimeoutMs,
        redactor: built.redactor,
      });
    } finally {
      this.pending = undefined;
    }
  }

  private async connectHttp(generation: number, signal: AbortSignal) {
    const config = this.config as MCPServerConfig & { transport: "http" };
    let deadline = performance.now() + this.connectionTimeoutMs;
    const attempt = async (kind: "streamable-http" | "sse", made?: (built: BuiltTransport) => void) => {
      const built = await this.build({ ...this.settings.transport, http: kind });
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
    const failure = (error: unknown, kind: "streamable-http" | "sse", sseTried: boolean) => {
      if (generation !== this.generation) return this.closedWhileConnecting(kind);
      return httpStartupError(error, {
        config,
        url: this.resolvedUrl(),
        kind,
        connectionTimeoutMs: this.connectionTimeoutMs,
        env: this.settings.env,
        redactor: this.redactor,
        sseTried,
      });
    };
    let built: BuiltTransport | undefined;
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

  private resolvedUrl(): string {
    return this.config.transport === "http" ? this.config.url : "";
  }

  private onClientClosed(client: Client, generation: number): void {
    const live = this.live;
    if (!live || live.client !== client || live.generation !== generation) return;
    this.live = undefined;
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
    const live = this.live;
    this.live = undefined;
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
    if (this.live !== live) return;
    this.live = undefined;
    await closeQuietly(live.client, live.built);
    this.emitDisconnected(live, "lost");
  }

  private failed(
    error: unknown,
    live: Live | undefined,
    context: {
      method: string;
      toolName?: string;
      timeoutMs: number;
      started: number;
      cancelled: boolean;
      totalTimeoutMs: number | undefined;
      timeoutSetting?: string;
    },
  ): MCPError {
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
  private async withLogin<T>(live: Live, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
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

  /** Call a tool with the server's limits; see `MCPClientManager.callTool`. */
  async callTool(
    toolName: string,
    args: Record<string, unknown> | undefined,
    options: MCPCallToolOptions,
  ): Promise<CallToolResult> {
    const timeoutMs = options.timeoutMs ?? this.config.toolTimeout * 1000;
    const totalTimeoutMs =
      options.maxTotalTimeoutMs ??
      (this.config.maxTotalTimeout !== undefined ? this.config.maxTotalTimeout * 1000 : undefined);
    const resetTimeoutOnProgress = options.resetTimeoutOnProgress ?? this.config.resetTimeoutOnProgress;
    const signal = options.signal;
    const started = performance.now();
    let cancelled = false;
    let totalFired = false;
    const failure = (error: unknown, live: Live | undefined) =>
      this.failed(error, live, {
        method: "tools/call",
        toolName,
        timeoutMs,
        started,
        cancelled,
        totalTimeoutMs: totalFired ? totalTimeoutMs : undefined,
      });
    if (signal?.aborted) {
      cancelled = true;
      throw failure(signal.reason, undefined);
    }
    let release: (() => void) | undefined;
    if (this.slots) release = await this.acquireSlot(toolName, timeoutMs, signal, started);
    let live: Live | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // Built by hand rather than with spreads: this is the hot path of every tool call.
    const request: RequestOptions = { timeout: timeoutMs, resetTimeoutOnProgress };
    // The SDK only asks for progress (and so can only reset the timeout) when onprogress is set.
    if (options.onprogress || resetTimeoutOnProgress)
      request.onprogress = options.onprogress ? guardedProgress(options.onprogress) : ignoreProgress;
    const params: CallToolRequest["params"] = args ? { name: toolName, arguments: args } : { name: toolName };
    try {
      live = this.live ?? (await this.ensure(signal));
      if (runsToolTasks(live.client) && (await this.taskSupport(toolName, signal)) === "required") {
        const raw = await this.callAsTask(live, params, {
          timeoutMs,
          totalTimeoutMs,
          resetTimeoutOnProgress,
          signal,
          onprogress: options.onprogress,
          onCancelled: () => {
            cancelled = true;
          },
          onTotalTimeout: () => {
            totalFired = true;
          },
        });
        return this.toolResult(raw, toolName);
      }
      if (signal || totalTimeoutMs !== undefined) {
        // A per-call controller: the caller's signal may be long-lived, and the SDK never removes the
        // abort listener it adds to the signal it is given.
        const inner = new AbortController();
        request.signal = inner.signal;
        if (signal) {
          onAbort = () => {
            cancelled = true;
            inner.abort(signal.reason);
          };
          signal.addEventListener("abort", onAbort, { once: true });
        }
        if (totalTimeoutMs !== undefined) {
          const left = Math.max(1, totalTimeoutMs - (performance.now() - started));
          timer = setTimeout(() => {
            totalFired = true;
            inner.abort(new Error("max total timeout exceeded"));
          }, left);
        }
      }
      // Read loosely, then repaired part by part: one unknown content type or bad image must not fail
      // the whole result (the SDK still checks structuredContent against the tool's output schema).
      const current = live;
      const raw: unknown = await this.withLogin(current, signal, () =>
        current.client.callTool(
          params,
          ResultSchema as unknown as Parameters<Client["callTool"]>[1],
          request,
        ),
      );
      return this.toolResult(raw, toolName);
    } catch (error) {
      throw failure(error, live);
    } finally {
      release?.();
      if (timer) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  private toolResult(raw: unknown, toolName: string): CallToolResult {
    const result = toCallToolResult(raw);
    if (!result) {
      throw new MCPRequestError(
        `tools/call "${toolName}" on MCP server "${this.name}" returned a reply that is not a valid MCP tool result.`,
        { code: "INVALID_REPLY", serverName: this.name, toolName, method: "tools/call" },
      );
    }
    return result;
  }

  /** The tool's `execution.taskSupport`, discovering the tools first when they never were. */
  private async taskSupport(toolName: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (this.tools === undefined) await this.listTools(signal).catch(() => undefined);
    return this.tools?.find((tool) => tool.toolName === toolName)?.execution?.taskSupport;
  }

  /**
   * A task-required tool: create the task and wait for its result, with the same limits as a plain call:
   * `timeoutMs` bounds the whole task (restarted on progress when `resetTimeoutOnProgress`), the max
   * total timeout is a hard bound, and the caller's signal cancels; each of them also sends tasks/cancel.
   */
  private async callAsTask(
    live: Live,
    params: CallToolRequest["params"],
    limits: {
      timeoutMs: number;
      totalTimeoutMs: number | undefined;
      resetTimeoutOnProgress: boolean;
      signal: AbortSignal | undefined;
      onprogress: MCPCallToolOptions["onprogress"];
      onCancelled: () => void;
      onTotalTimeout: () => void;
    },
  ): Promise<unknown> {
    const inner = new AbortController();
    const { signal, timeoutMs } = limits;
    const expire = () => inner.abort(timeoutError(timeoutMs));
    let idle = setTimeout(expire, timeoutMs);
    let total: NodeJS.Timeout | undefined;
    if (limits.totalTimeoutMs !== undefined) {
      total = setTimeout(() => {
        limits.onTotalTimeout();
        inner.abort(new Error("max total timeout exceeded"));
      }, limits.totalTimeoutMs);
    }
    const onAbort = () => {
      limits.onCancelled();
      inner.abort(signal?.reason);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const progress = limits.onprogress ? guardedProgress(limits.onprogress) : undefined;
    const onprogress =
      progress || limits.resetTimeoutOnProgress
        ? (value: Progress) => {
            if (limits.resetTimeoutOnProgress && !inner.signal.aborted) {
              clearTimeout(idle);
              idle = setTimeout(expire, timeoutMs);
            }
            progress?.(value);
          }
        : undefined;
    try {
      return await callToolAsTask(live.client, {
        params,
        signal: inner.signal,
        ...(onprogress ? { onprogress } : {}),
        send: (run) => this.withLogin(live, signal, run),
      });
    } finally {
      clearTimeout(idle);
      if (total) clearTimeout(total);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private async acquireSlot(
    toolName: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    started: number,
  ): Promise<() => void> {
    const slots = this.slots as Semaphore;
    try {
      return await slots.acquire(timeoutMs, signal);
    } catch (reason) {
      if (reason === "aborted") {
        return Promise.reject(
          new MCPRequestError(
            `tools/call "${toolName}" on MCP server "${this.name}" was cancelled by the caller while waiting for a free call slot.`,
            { code: "REQUEST_CANCELLED", serverName: this.name, toolName, method: "tools/call" },
          ),
        );
      }
      return Promise.reject(
        new MCPTimeoutError(
          `tools/call "${toolName}" on MCP server "${this.name}" waited ${Math.round(performance.now() - started)} ms for a free call slot (max_concurrent_calls = ${slots.limit}) and gave up.`,
          {
            code: "TOOL_TIMEOUT",
            serverName: this.name,
            toolName,
            method: "tools/call",
            timeoutMs,
            elapsedMs: performance.now() - started,
          },
        ),
      );
    }
  }

  /**
   * One request of the resources/prompts API: needs the server `capability`, runs with the tool timeout,
   * a per-request abort controller (the caller's signal may be long-lived) and the same error mapping as
   * tools/call; `read` turns the untrusted reply into plain data (a MalformedReply → INVALID_REPLY).
   */
  async serverRequest<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    capability: "resources" | "prompts",
    signal: AbortSignal | undefined,
    read: (reply: unknown) => T,
  ): Promise<T> {
    const started = performance.now();
    const timeoutMs = this.config.toolTimeout * 1000;
    const mapping = {
      method,
      timeoutMs,
      started,
      cancelled: false,
      totalTimeoutMs: undefined,
      timeoutSetting: "tool_timeout",
    };
    if (signal?.aborted) throw this.failed(signal.reason, undefined, { ...mapping, cancelled: true });
    const live = await this.ensure(signal);
    if (live.client.getServerCapabilities()?.[capability] === undefined) {
      throw new MCPCapabilityError(
        `MCP server "${this.name}" does not offer ${capability} (it did not declare the "${capability}" capability), so ${method} cannot be used with it.`,
        { code: "CAPABILITY_NOT_SUPPORTED", serverName: this.name, capability, method },
      );
    }
    const inner = new AbortController();
    const onAbort = () => {
      mapping.cancelled = true;
      inner.abort(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const reply: unknown = await this.withLogin(live, signal, () =>
        live.client.request(
          params === undefined ? { method } : ({ method, params } as Parameters<Client["request"]>[0]),
          ResultSchema,
          { timeout: timeoutMs, signal: inner.signal },
        ),
      );
      try {
        return read(reply);
      } catch (error) {
        if (!(error instanceof MalformedReply)) throw error;
        throw new MCPRequestError(
          `${method} on MCP server "${this.name}" returned a reply that is not valid: ${error.message}.`,
          { code: "INVALID_REPLY", serverName: this.name, method },
        );
      }
    } catch (error) {
      throw this.failed(error, live, mapping);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Every tool of the server (all pages); updates the cache and fires `toolsChanged` on a difference. */
  async listTools(signal?: AbortSignal, emitOnFirst = false): Promise<DiscoveredTool[]> {
    const live = await this.ensure(signal);
    const started = performance.now();
    const timeoutMs = this.connectionTimeoutMs;
    const raw: unknown[] = [];
    try {
      let cursor: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        // Read loosely: one tool with a malformed schema must not make the whole list fail.
        const params = cursor === undefined ? {} : { params: { cursor } };
        const result = await this.withLogin(live, signal, () =>
          live.client.request({ method: "tools/list", ...params }, PaginatedResultSchema, {
            timeout: timeoutMs,
            ...(signal ? { signal } : {}),
          }),
        );
        const tools = (result as { tools?: unknown }).tools;
        if (!Array.isArray(tools)) {
          throw new MCPRequestError(
            `MCP server "${this.name}" answered tools/list without a tools array; its tools could not be read.`,
            { code: "INVALID_REPLY", serverName: this.name, method: "tools/list" },
          );
        }
        for (const tool of tools) raw.push(tool);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
        if (seen.has(cursor)) {
          throw new MCPRequestError(
            `MCP server "${this.name}" returned the tools/list cursor ${JSON.stringify(cursor)} twice; pagination stopped.`,
            { code: "INVALID_REPLY", serverName: this.name, method: "tools/list" },
          );
        }
        seen.add(cursor);
      }
    } catch (error) {
      throw this.failed(error, live, {
        method: "tools/list",
        timeoutMs,
        started,
        cancelled: signal?.aborted ?? false,
        totalTimeoutMs: undefined,
      });
    }
    const { tools, valid } = readTools(this.name, raw);
    this.cacheValidators(live.client, valid, tools);
    this.updateTools(tools, emitOnFirst);
    return tools;
  }

  // Give the SDK the output schemas of the whole list (its own listTools keeps only the last page's);
  // a schema that cannot be compiled (e.g. a $ref loop) is left out and flagged instead of failing all.
  private cacheValidators(client: Client, valid: Tool[], tools: DiscoveredTool[]): void {
    const cache = client as unknown as ToolMetadataCache;
    if (typeof cache.cacheToolMetadata !== "function") return;
    try {
      cache.cacheToolMetadata(valid);
      return;
    } catch {
      // One schema does not compile: find which, below.
    }
    const good: Tool[] = [];
    for (const tool of valid) {
      try {
        cache.cacheToolMetadata([tool]);
        good.push(tool);
      } catch {
        for (const discovered of tools) {
          if (discovered.toolName !== tool.name) continue;
          discovered.problems = [
            ...(discovered.problems ?? []),
            {
              code: "OUTPUT_SCHEMA_INVALID",
              message: "outputSchema cannot be compiled; results are not checked against it",
            },
          ];
        }
      }
    }
    try {
      cache.cacheToolMetadata(good);
    } catch {
      cache.cacheToolMetadata([]);
    }
  }

  private updateTools(tools: DiscoveredTool[], emitOnFirst: boolean): void {
    const previous = this.tools;
    this.tools = tools;
    if (previous === undefined && !emitOnFirst) return;
    const diff = diffTools(previous ?? [], tools);
    if (hasChanges(diff)) this.emit("toolsChanged", { serverName: this.name, tools, ...diff });
  }

  /** Forget the tool list and announce that the server has none (removed or disabled). */
  clearTools(): void {
    const previous = this.tools;
    this.tools = undefined;
    if (previous?.length) {
      this.emit("toolsChanged", {
        serverName: this.name,
        tools: [],
        added: [],
        removed: previous.map((tool) => tool.toolName),
        changed: [],
      });
    }
  }

  /**
   * Re-fetch the tool list in the background. The first change is fetched at once; changes that arrive
   * while a fetch is in flight are coalesced into one more fetch, made once the server has been quiet
   * for REFRESH_QUIET_MS (or REFRESH_MAX_WAIT_MS after the first of them, for a server that never stops),
   * so a storm of list_changed costs a handful of tools/list, not one per notification.
   */
  refreshTools(emitOnFirst: boolean): void {
    this.lastChangeAt = Date.now();
    if (this.refreshing) {
      this.refreshAgain = true;
      this.firstPendingAt ??= this.lastChangeAt;
      return;
    }
    // Runs from a notification handler: nothing here may reject (that would be an unhandled rejection).
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          this.firstPendingAt = undefined;
          if (!this.live) break;
          await this.listTools(undefined, emitOnFirst).catch(() => {});
          if (this.refreshAgain) await this.quietPeriod();
        } while (this.refreshAgain);
      } catch {
        // listTools already maps its failures; a failed background refresh leaves the cache as it was.
      } finally {
        this.refreshing = undefined;
      }
    })();
  }

  private async quietPeriod(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const wait = Math.min(
        this.lastChangeAt + REFRESH_QUIET_MS - now,
        (this.firstPendingAt ?? now) + REFRESH_MAX_WAIT_MS - now,
      );
      if (wait <= 0 || !this.live) return;
      await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
    }
  }

  /** Ping and list tools; cache and return the result. A hanging ping recycles the connection. */
  async healthCheck(): Promise<MCPServerHealth> {
    const checkedAt = new Date().toISOString();
    const started = performance.now();
    let health: MCPServerHealth;
    if (!this.config.enabled) {
      health = { name: this.name, status: "disabled", latencyMs: null, toolCount: null, checkedAt };
    } else {
      try {
        const live = await this.ensure();
        const timeoutMs = this.settings.healthTimeoutMs ?? this.connectionTimeoutMs;
        const pingStarted = performance.now();
        try {
          await live.client.ping({ timeout: timeoutMs });
        } catch (error) {
          if (!isSdkTimeout(error)) throw error;
          await this.close("recycled");
          throw new MCPTimeoutError(
            `MCP server "${this.name}" did not answer ping within ${timeoutMs} ms; its connection was recycled (the next use reconnects).`,
            {
              code: "REQUEST_TIMEOUT",
              serverName: this.name,
              method: "ping",
              timeoutMs,
              elapsedMs: timeoutMs,
            },
          );
        }
        const latencyMs = performance.now() - pingStarted;
        const tools = await this.listTools();
        health = { name: this.name, status: "healthy", latencyMs, toolCount: tools.length, checkedAt };
      } catch (error) {
        const mapped = MCPError.isInstance(error)
          ? error
          : this.failed(error, this.live, {
              method: "ping",
              timeoutMs: this.connectionTimeoutMs,
              started,
              cancelled: false,
              totalTimeoutMs: undefined,
            });
        health = {
          name: this.name,
          status: "unhealthy",
          latencyMs: performance.now() - started,
          toolCount: this.tools?.length ?? null,
          error: mapped.message,
          errorCode: mapped.code,
          checkedAt,
        };
      }
    }
    const previous = this.health;
    this.health = health;
    if (!previous || previous.status !== health.status) {
      this.emit("healthChanged", {
        serverName: this.name,
        health,
        ...(previous ? { previous } : {}),
      });
    }
    return health;
  }
}
