/**
 * One server's call path: `tools/call` with the server's limits (tool timeout restarted on progress,
 * max total timeout, call slots, cancellation), the task path for task-required tools, and the
 * resources/prompts requests; every failure is mapped by the lifecycle's `failed`.
 */
import type { CallToolRequest, CallToolRequestOptions, Client, Progress } from "@modelcontextprotocol/client";
import { ResultSchema } from "@modelcontextprotocol/core";
import { MCPCapabilityError, MCPRequestError, MCPTimeoutError } from "../../errors.js";
import type { CallToolResult, MCPCallToolOptions } from "../../types.js";
import type { ConnectionCore, Live } from "../connection/connection-types.js";
import {
  guardedCallback,
  guardedProgress,
  ignoreProgress,
  runsToolTasks,
  timeoutError,
} from "../connection/connection-utils.js";
import { Semaphore } from "../shared/semaphore.js";
import type { ToolCache } from "../tools/tool-cache.js";
import { taskUnsupportedMessage } from "../tools/tool-definitions.js";
import { plainToolResult } from "../wire/fast-read.js";
import { listenToInputRounds } from "./input-rounds.js";
import { MalformedReply } from "./read-resources.js";
import { callToolAsTask } from "./task-call.js";
import { toCallToolResult, UNCHECKED_RESULT } from "./tool-result.js";

/** The most a caller's `_meta` may weigh, as JSON. */
export const MAX_CALLER_META_BYTES = 16 * 1024;
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;
const isProtocolKey = (key: string) =>
  key.startsWith("io.modelcontextprotocol/") ||
  key === "progressToken" ||
  key === "traceparent" ||
  key === "tracestate";

/** The `_meta` of a call from the caller's `meta` and `traceContext` (see `MCPCallToolOptions`). */
function callMeta(options: MCPCallToolOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options.meta !== undefined) {
    if (typeof options.meta !== "object" || options.meta === null || Array.isArray(options.meta)) {
      throw new TypeError("callTool options.meta: expected a plain object of _meta keys");
    }
    for (const [key, value] of Object.entries(options.meta)) if (!isProtocolKey(key)) out[key] = value;
    const size = Buffer.byteLength(JSON.stringify(out));
    if (size > MAX_CALLER_META_BYTES) {
      throw new RangeError(
        `callTool options.meta is ${size} bytes as JSON; expected at most ${MAX_CALLER_META_BYTES}`,
      );
    }
  }
  const trace = options.traceContext;
  if (trace) {
    if (!TRACEPARENT.test(trace.traceparent)) {
      throw new RangeError(
        "callTool options.traceContext.traceparent: expected a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)",
      );
    }
    out.traceparent = trace.traceparent;
    if (trace.tracestate !== undefined) {
      if (!TRACESTATE.test(trace.tracestate)) {
        throw new RangeError(
          "callTool options.traceContext.tracestate: expected at most 512 printable ASCII characters",
        );
      }
      out.tracestate = trace.tracestate;
    }
  }
  return out;
}

/** Sends one server's tool calls and resource/prompt requests. */
export class CallPath {
  private readonly slots: Semaphore | undefined;

  constructor(
    private readonly core: ConnectionCore,
    private readonly cache: ToolCache,
  ) {
    const max = core.config.maxConcurrentCalls;
    this.slots = max ? new Semaphore(max) : undefined;
  }

  /** Call a tool with the server's limits; see `MCPClientManager.callTool`. */
  async callTool(
    toolName: string,
    args: Record<string, unknown> | undefined,
    options: MCPCallToolOptions,
  ): Promise<CallToolResult> {
    const timeoutMs = options.timeoutMs ?? this.core.config.toolTimeout * 1000;
    const totalTimeoutMs =
      options.maxTotalTimeoutMs ??
      (this.core.config.maxTotalTimeout !== undefined ? this.core.config.maxTotalTimeout * 1000 : undefined);
    const resetTimeoutOnProgress = options.resetTimeoutOnProgress ?? this.core.config.resetTimeoutOnProgress;
    const signal = options.signal;
    const started = performance.now();
    let cancelled = false;
    let totalFired = false;
    if (signal?.aborted) {
      throw this.callFailed(signal.reason, undefined, toolName, timeoutMs, started, true, undefined);
    }
    let release: (() => void) | undefined;
    if (this.slots) release = await this.acquireSlot(this.slots, toolName, timeoutMs, signal, started);
    let live: Live | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // Built by hand rather than with spreads: this is the hot path of every tool call.
    const request: CallToolRequestOptions = { timeout: timeoutMs, resetTimeoutOnProgress };
    // The SDK only asks for progress (and so can only reset the timeout) when onprogress is set.
    if (options.onprogress || resetTimeoutOnProgress)
      request.onprogress = options.onprogress
        ? guardedProgress(options.onprogress, this.core.config.name, toolName)
        : ignoreProgress;
    const params: CallToolRequest["params"] = args ? { name: toolName, arguments: args } : { name: toolName };
    const meta = options.meta || options.traceContext ? callMeta(options) : undefined;
    if (meta) params._meta = meta;
    if (options.onInputRound)
      listenToInputRounds(
        params,
        guardedCallback(options.onInputRound, "onInputRound", this.core.config.name, toolName),
      );
    try {
      live = this.core.live ?? (await this.core.ensure(signal));
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
      const current = live;
      const client = current.client;
      let send: () => Promise<unknown>;
      const modern = client.getProtocolEra() === "modern";
      if (modern) {
        // No await on the hot path once the tools are known.
        const support =
          this.cache.tools === undefined
            ? await this.taskSupport(toolName, signal)
            : this.knownTaskSupport(toolName);
        if (support === "required") throw this.tasksUnsupported(toolName);
      }
      const overHttp2026 = modern && current.built.kind !== "stdio";
      const definition = overHttp2026 ? this.cache.definition(toolName) : undefined;
      if (overHttp2026 && (!definition || this.cache.mirrorsHeaders(toolName))) {
        // 2026-07-28 over HTTP, a tool with `x-mcp-header` parameters: the SDK's callTool mirrors them
        // into `Mcp-Param-*` headers (and checks structuredContent against the definition it is given).
        // A tool not in the last list goes there too: the SDK then takes the definition from its own
        // cache and, on a header mismatch, lists the tools again and retries once.
        if (definition) request.toolDefinition = definition;
        send = () => client.callTool(params, request);
      } else {
        // Every other call: the reply is taken as it is (the SDK still decodes it and runs the input
        // rounds), then checked and repaired part by part in toolResult (one unknown content type or bad
        // image must not fail the whole result), structuredContent against the output schema. The
        // SDK's callTool would add nothing here but a second schema check and, on 2026-07-28, a
        // per-call compile of the output schema and a result-schema probe (measured in bench:eras).
        send = () => client.request({ method: "tools/call", params }, UNCHECKED_RESULT, request);
      }
      // A step-up login can only be pending on a transport with OAuth: the others call the SDK directly.
      const raw: unknown = current.built.oauth
        ? await this.core.withLogin(current, signal, send)
        : await send();
      return this.toolResult(raw, toolName);
    } catch (error) {
      throw this.callFailed(
        error,
        live,
        toolName,
        timeoutMs,
        started,
        cancelled,
        totalFired ? totalTimeoutMs : undefined,
      );
    } finally {
      release?.();
      if (timer) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  private callFailed(
    error: unknown,
    live: Live | undefined,
    toolName: string,
    timeoutMs: number,
    started: number,
    cancelled: boolean,
    totalTimeoutMs: number | undefined,
  ) {
    return this.core.failed(error, live, {
      method: "tools/call",
      toolName,
      timeoutMs,
      started,
      cancelled,
      totalTimeoutMs,
    });
  }

  private toolResult(raw: unknown, toolName: string): CallToolResult {
    // The common all-text result is recognised exactly without the schema walk (see fast-read).
    const result = plainToolResult(raw) ?? toCallToolResult(raw);
    if (!result) {
      throw new MCPRequestError(
        `tools/call "${toolName}" on MCP server "${this.core.config.name}" returned a reply that is not a valid MCP tool result.`,
        { code: "INVALID_REPLY", serverName: this.core.config.name, toolName, method: "tools/call" },
      );
    }
    const check = result.isError ? undefined : this.cache.outputCheck(toolName);
    if (check) {
      const problem =
        result.structuredContent === undefined
          ? "it has no structuredContent although the tool declares an output schema"
          : check(result.structuredContent);
      if (problem !== undefined) {
        throw new MCPRequestError(
          `tools/call "${toolName}" on MCP server "${this.core.config.name}" returned a result that does not match the tool's output schema: ${problem.slice(0, 300)}.`,
          { code: "INVALID_REPLY", serverName: this.core.config.name, toolName, method: "tools/call" },
        );
      }
    }
    return result;
  }

  /** A task-required tool on a 2026-07-28 connection: this client runs tasks only on 2025-11-25 ones. */
  private tasksUnsupported(toolName: string): MCPCapabilityError {
    return new MCPCapabilityError(taskUnsupportedMessage(this.core.config.name, toolName), {
      code: "TASK_EXECUTION_UNSUPPORTED",
      serverName: this.core.config.name,
      capability: "tasks",
      method: "tools/call",
    });
  }

  /** The tool's `execution.taskSupport`, discovering the tools first when they never were. */
  private async taskSupport(toolName: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (this.cache.tools === undefined) await this.cache.listTools(signal).catch(() => undefined);
    return this.knownTaskSupport(toolName);
  }

  /** The tool's `execution.taskSupport` in the last discovered list. */
  private knownTaskSupport(toolName: string): string | undefined {
    return this.cache.tools?.find((tool) => tool.toolName === toolName)?.execution?.taskSupport;
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
    const progress = limits.onprogress
      ? guardedProgress(limits.onprogress, this.core.config.name, params.name)
      : undefined;
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
        serverName: this.core.config.name,
        params,
        signal: inner.signal,
        ...(onprogress ? { onprogress } : {}),
        send: (run) => this.core.withLogin(live, signal, run),
      });
    } finally {
      clearTimeout(idle);
      if (total) clearTimeout(total);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private async acquireSlot(
    slots: Semaphore,
    toolName: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    started: number,
  ): Promise<() => void> {
    try {
      return await slots.acquire(timeoutMs, signal);
    } catch (reason) {
      if (reason === "aborted") {
        return Promise.reject(
          new MCPRequestError(
            `tools/call "${toolName}" on MCP server "${this.core.config.name}" was cancelled by the caller while waiting for a free call slot.`,
            { code: "REQUEST_CANCELLED", serverName: this.core.config.name, toolName, method: "tools/call" },
          ),
        );
      }
      return Promise.reject(
        new MCPTimeoutError(
          `tools/call "${toolName}" on MCP server "${this.core.config.name}" waited ${Math.round(performance.now() - started)} ms for a free call slot (max_concurrent_calls = ${slots.limit}) and gave up.`,
          {
            code: "TOOL_TIMEOUT",
            serverName: this.core.config.name,
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
    const timeoutMs = this.core.config.toolTimeout * 1000;
    const mapping = {
      method,
      timeoutMs,
      started,
      cancelled: false,
      totalTimeoutMs: undefined,
      timeoutSetting: "tool_timeout",
    };
    if (signal?.aborted) throw this.core.failed(signal.reason, undefined, { ...mapping, cancelled: true });
    const live = await this.core.ensure(signal);
    if (live.client.getServerCapabilities()?.[capability] === undefined) {
      throw new MCPCapabilityError(
        `MCP server "${this.core.config.name}" does not offer ${capability} (it did not declare the "${capability}" capability), so ${method} cannot be used with it.`,
        { code: "CAPABILITY_NOT_SUPPORTED", serverName: this.core.config.name, capability, method },
      );
    }
    const inner = new AbortController();
    const onAbort = () => {
      mapping.cancelled = true;
      inner.abort(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const reply: unknown = await this.core.withLogin(live, signal, () =>
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
          `${method} on MCP server "${this.core.config.name}" returned a reply that is not valid: ${error.message}.`,
          { code: "INVALID_REPLY", serverName: this.core.config.name, method },
        );
      }
    } catch (error) {
      throw this.core.failed(error, live, mapping);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
